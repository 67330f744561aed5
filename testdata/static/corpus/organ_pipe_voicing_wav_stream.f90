! organ_pipe_voicing_wav_stream.f90
!
! Voicing two ranks of flue pipes (Principal 8' and Octave 4', 61 pipes
! each) in the workshop.  Each pipe's scale (diameter from a Toepfer-style
! halving ratio), mouth width and cut-up determine the harmonic envelope,
! the end-corrected (slightly inharmonic) partials, the speech transient
! (chiff) and the wind noise of the synthesized tone.  Every pipe is
! recorded as a 16-bit mono WAV file written with ACCESS='STREAM' (RIFF
! sizes patched into the header with POS= after the data).  The voicer then
! reads each WAV back through stream access, measures pitch (autocorrelation
! with parabolic refinement), harmonic levels (Goertzel), speech time and
! spectral brightness, compares them with the regulation curve of the rank
! and re-cuts the mouths of pipes that are off, re-recording them (up to
! three rounds).  A formatted voicing log, a final regulation table and an
! unformatted stream file with all measured spectra (offset table at the
! front patched with POS=) are written.
!
! usage: organ_pipe_voicing_wav_stream OUTDIR
module voicing_mod
  use, intrinsic :: iso_fortran_env, only: dp => real64, int16, int32, int64, error_unit
  implicit none
  integer, parameter :: npipe = 61, nrank = 2
  integer, parameter :: fs = 44100
  integer, parameter :: nsamp = 66150                ! 1.5 s
  integer, parameter :: nharm = 16
  integer, parameter :: max_rounds = 3
  real(dp), parameter :: pi = 3.141592653589793_dp
  real(dp), parameter :: c_air = 343.0_dp

  type pipe_t
     integer :: rank, key
     real(dp) :: f_nom, length, diam, mouth_w, cutup
     real(dp) :: f_meas, bright, attack_ms, level_db
     real(dp) :: harm(nharm)
     integer :: rounds
  end type pipe_t

  type(pipe_t) :: pipes(npipe, nrank)
  character(len=512) :: outdir
  ! work buffers for one recording
  real(dp) :: wave(nsamp)
  integer(int16) :: pcm(nsamp)

contains

  subroutine die(msg)
    character(len=*), intent(in) :: msg
    write(error_unit, '(a)') 'organ_voicing: ' // trim(msg)
    error stop 4
  end subroutine die

  ! scaling: diameter halves on the 17th pipe (ratio 2^(1/16) per semitone)
  subroutine design_rank(r)
    integer, intent(in) :: r
    integer :: k
    real(dp) :: foot, d_c
    foot = 8.0_dp / real(2**(r - 1), dp)
    d_c = 0.155_dp / real(r, dp)**0.8_dp                  ! C diameter of the rank [m]
    do k = 1, npipe
       pipes(k, r)%rank = r
       pipes(k, r)%key = k
       pipes(k, r)%f_nom = 65.406_dp * 2.0_dp**(r - 1) * 2.0_dp**(real(k - 1, dp) / 12.0_dp)
       pipes(k, r)%diam = d_c * 2.0_dp**(-real(k - 1, dp) / 16.0_dp)
       ! open pipe: f = c / (2 (L + 2 * 0.3 d)) -> speaking length with end corrections
       pipes(k, r)%length = c_air / (2.0_dp * pipes(k, r)%f_nom) - 0.6_dp * pipes(k, r)%diam
       pipes(k, r)%mouth_w = 0.25_dp * pi * pipes(k, r)%diam
       pipes(k, r)%cutup = 0.26_dp * pipes(k, r)%mouth_w * (1.0_dp + 0.08_dp * sin(1.7_dp * k + r))
       pipes(k, r)%rounds = 0
       if (foot < 0.0_dp) call die('bad footage')
    end do
  end subroutine design_rank

  ! regulation target for brightness (harmonic centroid in units of f0)
  pure real(dp) function target_brightness(p)
    type(pipe_t), intent(in) :: p
    target_brightness = 1.80_dp - 0.011_dp * real(p%key - 1, dp) - 0.12_dp * real(p%rank - 1, dp)
  end function target_brightness

  ! tone synthesis: recursive oscillators per partial, harmonic envelope from
  ! scale and cut-up, chiff burst, filtered wind noise
  subroutine synthesize(p, x)
    type(pipe_t), intent(in) :: p
    real(dp), intent(out) :: x(nsamp)
    real(dp) :: amp(nharm), cw(nharm), sw(nharm), re(nharm), im(nharm), tau(nharm), dec(nharm), g(nharm)
    real(dp) :: ratio, scale_ratio, f, t, env, noise, lp, chiff, r1, tr, ti
    integer :: h, n
    integer(int64) :: seed
    scale_ratio = p%diam / p%length                     ! narrow scales are brighter
    ratio = p%cutup / p%mouth_w                         ! higher cut-up -> duller, slower speech
    do h = 1, nharm
       f = p%f_nom * real(h, dp) * (1.0_dp + 0.0009_dp * real(h * h, dp) * scale_ratio)
       if (f > 0.45_dp * fs) then
          amp(h) = 0.0_dp
       else
          amp(h) = exp(-real(h - 1, dp) * (0.9_dp * ratio / 0.26_dp) * (0.35_dp + 6.0_dp * scale_ratio)) / real(h, dp)**0.3_dp
       end if
       cw(h) = cos(2.0_dp * pi * f / fs)
       sw(h) = sin(2.0_dp * pi * f / fs)
       re(h) = 1.0_dp
       im(h) = 0.0_dp
       tau(h) = (0.012_dp + 0.9_dp / p%f_nom) * (1.0_dp + 3.0_dp * ratio) * (1.0_dp + 0.15_dp * h)
       dec(h) = exp(-1.0_dp / (tau(h) * fs))          ! per-sample decay of the build-up term
       g(h) = 1.0_dp
    end do
    seed = 1234567_int64 + 1000_int64 * p%key + p%rank
    lp = 0.0_dp
    do n = 1, nsamp
       t = real(n - 1, dp) / fs
       x(n) = 0.0_dp
       do h = 1, nharm
          if (amp(h) == 0.0_dp) cycle
          env = 1.0_dp - g(h)                          ! 1 - exp(-t/tau)
          g(h) = g(h) * dec(h)
          x(n) = x(n) + amp(h) * env * im(h)
          tr = re(h) * cw(h) - im(h) * sw(h)
          ti = re(h) * sw(h) + im(h) * cw(h)
          re(h) = tr
          im(h) = ti
       end do
       if (mod(n, 4096) == 0) then                     ! keep oscillators on the unit circle
          do h = 1, nharm
             r1 = 1.0_dp / sqrt(re(h)**2 + im(h)**2)
             re(h) = re(h) * r1
             im(h) = im(h) * r1
          end do
       end if
       seed = mod(seed * 48271_int64, 2147483647_int64)
       noise = real(seed, dp) / 2147483647.0_dp - 0.5_dp
       lp = lp + 0.08_dp * (noise - lp)
       chiff = 0.35_dp * exp(-t / (0.02_dp * (1.0_dp + 4.0_dp * ratio))) * noise
       x(n) = x(n) + 0.01_dp * lp + chiff * min(1.0_dp, t * 400.0_dp)
       if (t > 1.35_dp) x(n) = x(n) * max(0.0_dp, 1.0_dp - (t - 1.35_dp) / 0.15_dp)   ! key release
    end do
  end subroutine synthesize

  subroutine wav_name(p, name)
    type(pipe_t), intent(in) :: p
    character(len=*), intent(out) :: name
    write(name, '(a,a,i1,a,i2.2,a)') trim(outdir), '/rank', p%rank, '_key', p%key, '.wav'
  end subroutine wav_name

  ! RIFF/WAVE writer: placeholders first, sizes patched with POS= at the end
  subroutine write_wav(p, x)
    type(pipe_t), intent(in) :: p
    real(dp), intent(in) :: x(nsamp)
    integer :: u, ios, n
    integer(int32) :: datasize
    character(len=600) :: name
    real(dp) :: peak
    peak = maxval(abs(x))
    do n = 1, nsamp
       pcm(n) = int(nint(0.8_dp * 32767.0_dp * x(n) / peak), int16)
    end do
    call wav_name(p, name)
    open(newunit=u, file=trim(name), access='stream', form='unformatted', status='replace', &
         action='readwrite', iostat=ios)
    if (ios /= 0) call die('cannot create ' // trim(name))
    write(u, iostat=ios) 'RIFF', 0_int32, 'WAVE', 'fmt ', 16_int32, 1_int16, 1_int16, int(fs, int32), &
         int(2 * fs, int32), 2_int16, 16_int16, 'data', 0_int32
    if (ios /= 0) call die('wav header write failed')
    write(u, iostat=ios) pcm
    if (ios /= 0) call die('wav data write failed')
    datasize = int(2 * nsamp, int32)
    write(u, pos=41, iostat=ios) datasize
    if (ios /= 0) call die('wav data size patch failed')
    write(u, pos=5, iostat=ios) datasize + 36_int32
    if (ios /= 0) call die('wav riff size patch failed')
    close(u, iostat=ios)
    if (ios /= 0) call die('wav close failed')
  end subroutine write_wav

  subroutine read_wav(p, x)
    type(pipe_t), intent(in) :: p
    real(dp), intent(out) :: x(nsamp)
    integer(int16) :: fmt_tag, nch, bits
    integer(int32) :: riff_size, fmt_len, rate, datasize
    character(len=4) :: riff, wave, fmtid, dataid
    integer :: u, ios
    character(len=600) :: name
    call wav_name(p, name)
    open(newunit=u, file=trim(name), access='stream', form='unformatted', status='old', action='read', iostat=ios)
    if (ios /= 0) call die('cannot open ' // trim(name))
    read(u, pos=1, iostat=ios) riff, riff_size, wave, fmtid, fmt_len, fmt_tag, nch
    if (ios /= 0) call die('wav header read failed')
    read(u, pos=25, iostat=ios) rate
    read(u, pos=35, iostat=ios) bits
    read(u, pos=37, iostat=ios) dataid, datasize
    if (ios /= 0) call die('wav header read failed')
    if (riff /= 'RIFF' .or. wave /= 'WAVE' .or. dataid /= 'data' .or. rate /= fs .or. bits /= 16 .or. &
         nch /= 1 .or. datasize /= 2 * nsamp .or. fmt_len /= 16 .or. fmt_tag /= 1) &
         call die('unexpected wav format in ' // trim(name))
    read(u, pos=45, iostat=ios) pcm
    if (ios /= 0) call die('wav data read failed')
    close(u)
    x = real(pcm, dp) / 32768.0_dp
  end subroutine read_wav

  ! pitch from the autocorrelation peak near the nominal period, parabolic refinement
  real(dp) function measure_pitch(p, x)
    type(pipe_t), intent(in) :: p
    real(dp), intent(in) :: x(nsamp)
    integer, parameter :: n0 = 30000, nwin = 8192
    integer :: lag, lo, hi, best
    real(dp) :: r(0:2), acc, bestv, lnom, denom, shift
    real(dp), allocatable :: ac(:)
    lnom = real(fs, dp) / p%f_nom
    lo = max(2, int(lnom * 0.96_dp))
    hi = int(lnom * 1.04_dp) + 1
    allocate(ac(lo - 1:hi + 1))
    do lag = lo - 1, hi + 1
       acc = 0.0_dp
       acc = dot_product(x(n0:n0 + nwin - 1), x(n0 + lag:n0 + lag + nwin - 1))
       ac(lag) = acc
    end do
    best = lo
    bestv = ac(lo)
    do lag = lo, hi
       if (ac(lag) > bestv) then
          bestv = ac(lag)
          best = lag
       end if
    end do
    r(0) = ac(best - 1); r(1) = ac(best); r(2) = ac(best + 1)
    denom = r(0) - 2.0_dp * r(1) + r(2)
    shift = 0.0_dp
    if (abs(denom) > 0.0_dp) shift = 0.5_dp * (r(0) - r(2)) / denom
    measure_pitch = real(fs, dp) / (real(best, dp) + shift)
    deallocate(ac)
  end function measure_pitch

  ! Goertzel power at each partial over the steady state
  subroutine harmonic_levels(f0, x, harm)
    real(dp), intent(in) :: f0, x(nsamp)
    real(dp), intent(out) :: harm(nharm)
    integer, parameter :: n0 = 22050, n1 = 55125
    integer :: h, n
    real(dp) :: w, c2, s0, s1, s2
    do h = 1, nharm
       harm(h) = 0.0_dp
       if (f0 * h > 0.45_dp * fs) cycle
       w = 2.0_dp * pi * f0 * h / fs
       c2 = 2.0_dp * cos(w)
       s1 = 0.0_dp; s2 = 0.0_dp
       do n = n0, n1
          s0 = x(n) + c2 * s1 - s2
          s2 = s1
          s1 = s0
       end do
       harm(h) = sqrt(max(s1 * s1 + s2 * s2 - c2 * s1 * s2, 0.0_dp)) / real(n1 - n0 + 1, dp)
    end do
  end subroutine harmonic_levels

  ! speech time: smoothed envelope reaching 90 % of its steady level
  real(dp) function attack_time(x)
    real(dp), intent(in) :: x(nsamp)
    real(dp) :: env, steady, a
    integer :: n
    a = 1.0_dp / (0.004_dp * fs)
    env = 0.0_dp
    steady = sqrt(sum(x(33075:55125)**2) / 22051.0_dp) * 1.4142_dp
    attack_time = -1.0_dp
    do n = 1, 33075
       env = env + a * (abs(x(n)) * 1.5708_dp - env)
       if (env >= 0.9_dp * steady) then
          attack_time = 1000.0_dp * real(n, dp) / fs
          return
       end if
    end do
  end function attack_time

  subroutine analyse_pipe(p)
    type(pipe_t), intent(inout) :: p
    real(dp) :: s, w
    integer :: h
    call read_wav(p, wave)
    p%f_meas = measure_pitch(p, wave)
    call harmonic_levels(p%f_meas, wave, p%harm)
    p%attack_ms = attack_time(wave)
    s = 0.0_dp; w = 0.0_dp
    do h = 1, nharm
       s = s + h * p%harm(h)
       w = w + p%harm(h)
    end do
    p%bright = s / max(w, 1.0e-12_dp)
    p%level_db = 20.0_dp * log10(max(p%harm(1), 1.0e-9_dp))
  end subroutine analyse_pipe

  subroutine log_pipe(u, p, round, action)
    integer, intent(in) :: u, round
    type(pipe_t), intent(in) :: p
    character(len=*), intent(in) :: action
    integer :: ios
    write(u, '(i1,1x,i2,1x,i1,f10.3,f10.3,f8.2,f8.3,f8.3,f8.2,f8.2,f9.5,1x,a)', iostat=ios) p%rank, p%key, round, &
         p%f_nom, p%f_meas, 1200.0_dp * log(p%f_meas / p%f_nom) / log(2.0_dp), p%bright, target_brightness(p), &
         p%attack_ms, p%level_db, p%cutup, action
    if (ios /= 0) call die('voicing log write failed')
  end subroutine log_pipe

  ! all measured spectra in one stream file: header, offset table, records
  subroutine write_spectra_stream(path)
    character(len=*), intent(in) :: path
    integer :: u, ios, r, k, idx
    integer(int64) :: offs(npipe * nrank), pos_now
    open(newunit=u, file=path, access='stream', form='unformatted', status='replace', action='write', iostat=ios)
    if (ios /= 0) call die('cannot create spectra stream')
    write(u, iostat=ios) 'ORGSPEC1', int(npipe * nrank, int32), int(nharm, int32)
    if (ios /= 0) call die('spectra header write failed')
    offs = 0_int64
    write(u, iostat=ios) offs                         ! placeholder offset table
    if (ios /= 0) call die('spectra table write failed')
    idx = 0
    do r = 1, nrank
       do k = 1, npipe
          idx = idx + 1
          inquire(unit=u, pos=pos_now)
          offs(idx) = pos_now
          write(u, iostat=ios) int(r, int32), int(k, int32), pipes(k, r)%f_meas, pipes(k, r)%cutup, &
               pipes(k, r)%harm
          if (ios /= 0) call die('spectra record write failed')
       end do
    end do
    write(u, pos=17, iostat=ios) offs
    if (ios /= 0) call die('spectra table patch failed')
    close(u, iostat=ios)
    if (ios /= 0) call die('spectra close failed')
  end subroutine write_spectra_stream

end module voicing_mod

program organ_pipe_voicing_wav_stream
  use voicing_mod
  implicit none
  real(dp) :: dev, tb, worst_cents, cents
  integer :: r, k, round, ulog, ureg, ios, recut, total_recut
  character(len=8) :: action

  if (command_argument_count() /= 1) call die('usage: organ_pipe_voicing_wav_stream OUTDIR')
  call get_command_argument(1, outdir)

  do r = 1, nrank
     call design_rank(r)
  end do
  open(newunit=ulog, file=trim(outdir) // '/voicing_log.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) call die('cannot create voicing log')
  write(ulog, '(a)') '# r key rd   f_nom    f_meas   cents  bright  target  att_ms   L_dB    cutup action'

  do r = 1, nrank
     do k = 1, npipe
        call synthesize(pipes(k, r), wave)
        call write_wav(pipes(k, r), wave)
     end do
  end do

  total_recut = 0
  do round = 1, max_rounds
     recut = 0
     do r = 1, nrank
        do k = 1, npipe
           if (round > 1 .and. pipes(k, r)%rounds /= round - 1) cycle   ! only pipes re-cut last round
           call analyse_pipe(pipes(k, r))
           tb = target_brightness(pipes(k, r))
           dev = pipes(k, r)%bright - tb
           action = 'ok'
           if (abs(dev) > 0.06_dp .and. round < max_rounds) then
              ! too bright -> raise the cut-up, too dull -> lower it (by proportion of deviation)
              pipes(k, r)%cutup = pipes(k, r)%cutup * (1.0_dp + 0.9_dp * dev / tb)
              pipes(k, r)%rounds = round
              action = 'recut'
              recut = recut + 1
           end if
           call log_pipe(ulog, pipes(k, r), round, trim(action))
           if (action == 'recut') then
              call synthesize(pipes(k, r), wave)
              call write_wav(pipes(k, r), wave)
           end if
        end do
     end do
     total_recut = total_recut + recut
     if (recut == 0) exit
  end do
  close(ulog, iostat=ios)
  if (ios /= 0) call die('voicing log close failed')

  open(newunit=ureg, file=trim(outdir) // '/regulation.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) call die('cannot create regulation table')
  write(ureg, '(a)') 'rank key   diam_mm  length_mm  mouth_mm  cutup_mm   cents  bright   H1_dB   H2_dB   H3_dB'
  worst_cents = 0.0_dp
  do r = 1, nrank
     do k = 1, npipe
        cents = 1200.0_dp * log(pipes(k, r)%f_meas / pipes(k, r)%f_nom) / log(2.0_dp)
        worst_cents = max(worst_cents, abs(cents))
        write(ureg, '(i4,i4,4f10.2,f8.2,f8.3,3f8.2)', iostat=ios) r, k, 1000.0_dp * pipes(k, r)%diam, &
             1000.0_dp * pipes(k, r)%length, 1000.0_dp * pipes(k, r)%mouth_w, 1000.0_dp * pipes(k, r)%cutup, &
             cents, pipes(k, r)%bright, 20.0_dp * log10(max(pipes(k, r)%harm(1:3), 1.0e-9_dp))
        if (ios /= 0) call die('regulation write failed')
     end do
  end do
  close(ureg, iostat=ios)
  if (ios /= 0) call die('regulation close failed')
  call write_spectra_stream(trim(outdir) // '/rank_spectra.bin')

  write(*, '(a,i0,a,i0,a,f6.2,a)') 'organ voicing: ', npipe * nrank, ' pipes, ', total_recut, &
       ' mouth re-cuts, worst pitch deviation ', worst_cents, ' cents'
end program organ_pipe_voicing_wav_stream
