! church_bell_partial_tuning_stream.f90
!
! Tuning a new ring of eight church bells on the tuning lathe.
!
! Each bell's five principal partials (hum, prime, tierce, quint, nominal)
! plus the superquint and octave nominal depend on metal removed in eight
! zones of the inside profile (crown, shoulder, waist, sound-bow...) through
! a sensitivity matrix.  The founder aims at true-harmonic ratios
! (0.5, 1, 1.2, 1.5, 2, 3, 4 x prime) and a nominal on the ring's major scale.
! Every tuning pass:
!   * computes a damped least-squares cut (metal can only be removed),
!   * strikes the bell: a 3-second recording is synthesised from the modal
!     partials with their decay times and written as a 16-bit mono WAV file
!     through an ACCESS='STREAM' unit, RIFF sizes patched with POS=,
!   * re-reads the recording through POS= reads (header check, then blocks),
!     computes a windowed FFT spectrum and locates the partial peaks.
! A formatted tuning log and a final report per bell are written.
!
! Usage: church_bell_partial_tuning_stream OUTDIR
module bell_tuning
  use, intrinsic :: iso_fortran_env, only: int16, int32
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: NBELL = 8, NPART = 7, NZONE = 8, NPASS = 6
  integer, parameter :: RATE = 44100, NSAMP = 3 * RATE
  integer, parameter :: NFFT = 131072
  integer, parameter :: BLOCK = 4096
  real(dp), parameter :: PI = 3.141592653589793_dp
  real(dp), parameter :: ideal(NPART) = [0.5_dp, 1.0_dp, 1.2_dp, 1.5_dp, 2.0_dp, 3.0_dp, 4.0_dp]
  character(len=10), parameter :: pname(NPART) = [character(len=10) :: 'hum', 'prime', 'tierce', &
       'quint', 'nominal', 'superquint', 'oct_nom']
  character(len=512) :: outdir
  integer :: ulog

  type bell_t
     real(dp) :: nominal_target        ! Hz
     real(dp) :: f0(NPART)             ! as-cast partial frequencies
     real(dp) :: cut(NZONE)            ! mm removed per zone
     real(dp) :: decay(NPART)          ! s
     real(dp) :: amp(NPART)
     real(dp) :: mass_kg
  end type bell_t
contains

  subroutine fail(msg, ios)
    character(len=*), intent(in) :: msg
    integer, intent(in) :: ios
    write(*, '(a,a,a,i0)') 'error: ', trim(msg), ' iostat=', ios
    error stop 2
  end subroutine fail

  ! Fractional frequency change of partial k per mm removed in zone j.
  ! Hum reacts to the waist/crown, nominal to the sound bow region, etc.
  pure real(dp) function sens(k, j)
    integer, intent(in) :: k, j
    real(dp) :: zc, width, centre
    real(dp), parameter :: pc(NPART) = [0.30_dp, 0.62_dp, 0.45_dp, 0.55_dp, 0.82_dp, 0.88_dp, 0.93_dp]
    zc = (real(j, dp) - 0.5_dp) / NZONE
    centre = pc(k)
    width = 0.16_dp + 0.02_dp * k
    ! removing metal lowers frequencies; near the lip it can raise upper partials
    sens = -0.0065_dp * exp(-((zc - centre) / width)**2)
    if (k >= 5 .and. zc > 0.9_dp) sens = sens + 0.0015_dp
  end function sens

  subroutine partial_freqs(b, f)
    type(bell_t), intent(in) :: b
    real(dp), intent(out) :: f(NPART)
    integer :: k, j
    real(dp) :: s
    do k = 1, NPART
       s = 0.0_dp
       do j = 1, NZONE
          s = s + sens(k, j) * b%cut(j)
       end do
       f(k) = b%f0(k) * (1.0_dp + s)
    end do
  end subroutine partial_freqs

  ! Eight bells in D major; castings come out sharp and a little out of tune.
  subroutine init_ring(ring)
    type(bell_t), intent(out) :: ring(NBELL)
    integer, parameter :: steps(NBELL) = [12, 11, 9, 7, 5, 4, 2, 0]
    real(dp), parameter :: amp0(NPART) = [0.6_dp, 0.5_dp, 0.7_dp, 0.25_dp, 1.0_dp, 0.35_dp, 0.2_dp]
    integer :: i, k
    real(dp) :: x, jit
    integer(8) :: s
    s = 9127_8
    do i = 1, NBELL
       ring(i)%nominal_target = 587.33_dp * 2.0_dp**(real(steps(i), dp) / 12.0_dp)
       do k = 1, NPART
          s = mod(s * 48271_8, 2147483647_8)
          jit = real(s, dp) / 2147483647.0_dp - 0.5_dp
          x = ideal(k) / 2.0_dp * ring(i)%nominal_target
          ! as cast: about 3 % sharp, hum and prime most out of tune
          ring(i)%f0(k) = x * (1.03_dp + 0.02_dp * jit * (1.0_dp + merge(1.0_dp, 0.0_dp, k <= 2)))
          ring(i)%decay(k) = 1.0_dp * (12.0_dp / (1.0_dp + k)) * (1800.0_dp / ring(i)%nominal_target)**0.5_dp
          ring(i)%amp(k) = amp0(k)
       end do
       ring(i)%cut = 0.0_dp
       ring(i)%mass_kg = 1200.0_dp * (587.33_dp / ring(i)%nominal_target)**3
    end do
  end subroutine init_ring

  ! Damped least squares on the log-frequency errors, projected onto cut >= 0
  ! and limited to 1.5 mm per pass, solved by projected gradient iterations.
  subroutine tuning_cut(b, fmeas, dcut)
    type(bell_t), intent(in) :: b
    real(dp), intent(in) :: fmeas(NPART)
    real(dp), intent(out) :: dcut(NZONE)
    real(dp) :: a(NPART, NZONE), r(NPART), g(NZONE), w(NPART), step
    integer :: k, j, it
    w = [2.0_dp, 2.0_dp, 1.5_dp, 0.5_dp, 3.0_dp, 0.3_dp, 0.3_dp]
    do k = 1, NPART
       do j = 1, NZONE
          a(k, j) = w(k) * sens(k, j)
       end do
       r(k) = w(k) * log(ideal(k) / 2.0_dp * b%nominal_target / fmeas(k))
    end do
    dcut = 0.0_dp
    step = 1.0_dp / (sum(a**2) + 1.0e-4_dp)
    do it = 1, 4000
       g = matmul(transpose(a), matmul(a, dcut) - r) + 1.0e-3_dp * dcut
       dcut = dcut - step * g
       dcut = max(0.0_dp, min(1.5_dp, dcut))
    end do
  end subroutine tuning_cut

  ! Strike: sum of exponentially decaying partials (recursive oscillators),
  ! with a short clapper transient, scaled to 16 bits.
  subroutine synthesize_strike(b, f, pcm)
    type(bell_t), intent(in) :: b
    real(dp), intent(in) :: f(NPART)
    integer(int16), intent(out) :: pcm(NSAMP)
    real(dp), allocatable :: sig(:)
    real(dp) :: c, s, re, im, tmp, dec, peak
    integer :: k, n
    allocate(sig(NSAMP))
    sig = 0.0_dp
    do k = 1, NPART
       c = cos(2.0_dp * PI * f(k) / RATE)
       s = sin(2.0_dp * PI * f(k) / RATE)
       dec = exp(-1.0_dp / (b%decay(k) * RATE))
       re = b%amp(k)
       im = 0.0_dp
       do n = 1, NSAMP
          sig(n) = sig(n) + im
          tmp = (re * c - im * s) * dec
          im = (re * s + im * c) * dec
          re = tmp
       end do
    end do
    do n = 1, 600
       sig(n) = sig(n) + 0.8_dp * exp(-real(n, dp) / 90.0_dp) * sin(0.37_dp * n * n / 50.0_dp)
    end do
    peak = maxval(abs(sig))
    do n = 1, NSAMP
       pcm(n) = int(nint(30000.0_dp * sig(n) / peak), int16)
    end do
    deallocate(sig)
  end subroutine synthesize_strike

  ! RIFF/WAVE through a stream unit: placeholder sizes, data in blocks, then
  ! both size fields patched in place with POS=.
  subroutine write_wav(fname, pcm)
    character(len=*), intent(in) :: fname
    integer(int16), intent(in) :: pcm(NSAMP)
    integer :: u, ios, n0, nb
    integer(int32) :: zero32, riff_size, data_size
    open(newunit=u, file=fname, access='stream', form='unformatted', status='replace', &
         action='readwrite', iostat=ios)
    if (ios /= 0) call fail('open '//trim(fname), ios)
    zero32 = 0
    write(u, iostat=ios) 'RIFF', zero32, 'WAVE', 'fmt ', 16_int32, 1_int16, 1_int16, &
         int(RATE, int32), int(2 * RATE, int32), 2_int16, 16_int16, 'data', zero32
    if (ios /= 0) call fail('write wav header', ios)
    do n0 = 1, NSAMP, BLOCK
       nb = min(BLOCK, NSAMP - n0 + 1)
       write(u, iostat=ios) pcm(n0:n0 + nb - 1)
       if (ios /= 0) call fail('write wav data', ios)
    end do
    data_size = int(2 * NSAMP, int32)
    riff_size = 36_int32 + data_size
    write(u, pos=5, iostat=ios) riff_size
    if (ios /= 0) call fail('patch riff size', ios)
    write(u, pos=41, iostat=ios) data_size
    if (ios /= 0) call fail('patch data size', ios)
    close(u)
  end subroutine write_wav

  subroutine read_wav(fname, x)
    character(len=*), intent(in) :: fname
    real(dp), intent(out) :: x(NSAMP)
    integer :: u, ios, n0, nb
    character(len=4) :: tag
    integer(int32) :: data_size, srate
    integer(int16) :: buf(BLOCK)
    open(newunit=u, file=fname, access='stream', form='unformatted', status='old', &
         action='read', iostat=ios)
    if (ios /= 0) call fail('reopen '//trim(fname), ios)
    read(u, pos=1, iostat=ios) tag
    if (ios /= 0 .or. tag /= 'RIFF') call fail('not a RIFF file', ios)
    read(u, pos=25, iostat=ios) srate
    if (ios /= 0 .or. srate /= RATE) call fail('bad sample rate', ios)
    read(u, pos=37, iostat=ios) tag, data_size
    if (ios /= 0 .or. tag /= 'data' .or. data_size /= 2 * NSAMP) call fail('bad data chunk', ios)
    do n0 = 1, NSAMP, BLOCK
       nb = min(BLOCK, NSAMP - n0 + 1)
       read(u, pos=45 + 2 * (n0 - 1), iostat=ios) buf(1:nb)
       if (ios /= 0) call fail('read wav data', ios)
       x(n0:n0 + nb - 1) = real(buf(1:nb), dp) / 32768.0_dp
    end do
    close(u)
  end subroutine read_wav

  ! In-place iterative radix-2 FFT.
  subroutine fft(re, im)
    real(dp), intent(inout) :: re(NFFT), im(NFFT)
    integer :: i, j, k, m, len, half
    real(dp) :: wr, wi, ur, ui, tr, ti, ang, t
    j = 1
    do i = 1, NFFT
       if (i < j) then
          t = re(i); re(i) = re(j); re(j) = t
          t = im(i); im(i) = im(j); im(j) = t
       end if
       m = NFFT / 2
       do while (m >= 1 .and. j > m)
          j = j - m
          m = m / 2
       end do
       j = j + m
    end do
    len = 2
    do while (len <= NFFT)
       half = len / 2
       ang = -2.0_dp * PI / len
       do k = 0, half - 1
          wr = cos(ang * k)
          wi = sin(ang * k)
          do i = k + 1, NFFT, len
             ur = re(i)
             ui = im(i)
             tr = wr * re(i + half) - wi * im(i + half)
             ti = wr * im(i + half) + wi * re(i + half)
             re(i) = ur + tr
             im(i) = ui + ti
             re(i + half) = ur - tr
             im(i + half) = ui - ti
          end do
       end do
       len = 2 * len
    end do
  end subroutine fft

  ! Hann-windowed spectrum of the first NFFT samples after the transient;
  ! each partial is the largest peak near its expected frequency, refined by
  ! parabolic interpolation of the log magnitude.
  subroutine measure_partials(x, fguess, fmeas)
    real(dp), intent(in) :: x(NSAMP), fguess(NPART)
    real(dp), intent(out) :: fmeas(NPART)
    real(dp), allocatable :: re(:), im(:), mag(:)
    real(dp) :: df, a, b, c, p
    integer :: n, k, lo, hi, ib, i0
    allocate(re(NFFT), im(NFFT), mag(NFFT / 2))
    i0 = min(1000, NSAMP - NFFT)   ! skip the clapper transient
    do n = 1, NFFT
       re(n) = x(i0 + n) * (0.5_dp - 0.5_dp * cos(2.0_dp * PI * (n - 1) / NFFT))
       im(n) = 0.0_dp
    end do
    call fft(re, im)
    mag = log(re(1:NFFT / 2)**2 + im(1:NFFT / 2)**2 + 1.0e-30_dp)
    df = real(RATE, dp) / NFFT
    do k = 1, NPART
       lo = max(2, int(fguess(k) * 0.985_dp / df))
       hi = min(NFFT / 2 - 1, int(fguess(k) * 1.015_dp / df) + 1)
       ib = lo - 1 + maxloc(mag(lo:hi), 1)
       a = mag(ib - 1); b = mag(ib); c = mag(ib + 1)
       p = 0.5_dp * (a - c) / (a - 2.0_dp * b + c)
       fmeas(k) = (real(ib - 1, dp) + p) * df
    end do
    deallocate(re, im, mag)
  end subroutine measure_partials

  real(dp) function cents(f, fref)
    real(dp), intent(in) :: f, fref
    cents = 1200.0_dp * log(f / fref) / log(2.0_dp)
  end function cents

  subroutine log_pass(ib, pass, b, fmeas, dcut)
    integer, intent(in) :: ib, pass
    type(bell_t), intent(in) :: b
    real(dp), intent(in) :: fmeas(NPART), dcut(NZONE)
    integer :: k, ios
    write(ulog, '(a,i2,a,i2,a,f9.3,a)', iostat=ios) 'bell ', ib, ' pass ', pass, &
         '  target nominal ', b%nominal_target, ' Hz'
    if (ios /= 0) call fail('write tuning log', ios)
    do k = 1, NPART
       write(ulog, '(4x,a10,f10.3,a,f8.1,a)') pname(k), fmeas(k), ' Hz ', &
            cents(fmeas(k), ideal(k) / 2.0_dp * b%nominal_target), ' cents'
    end do
    write(ulog, '(4x,a,8f7.3)') 'cut mm ', dcut
  end subroutine log_pass
end module bell_tuning

program church_bell_partial_tuning_stream
  use bell_tuning
  implicit none
  type(bell_t) :: ring(NBELL)
  integer(int16), allocatable :: pcm(:)
  real(dp), allocatable :: x(:)
  real(dp) :: f(NPART), fmeas(NPART), dcut(NZONE), worst(NBELL), removed(NBELL)
  character(len=600) :: fname
  integer :: ib, pass, k, ios, urep

  if (command_argument_count() /= 1) then
     write(*, '(a)') 'usage: church_bell_partial_tuning_stream OUTDIR'
     stop 1
  end if
  call get_command_argument(1, outdir)
  allocate(pcm(NSAMP), x(NSAMP))
  open(newunit=ulog, file=trim(outdir)//'/tuning_log.txt', status='replace', action='write', &
       form='formatted', iostat=ios)
  if (ios /= 0) call fail('open tuning_log.txt', ios)

  call init_ring(ring)
  do ib = 1, NBELL
     do pass = 0, NPASS
        call partial_freqs(ring(ib), f)
        call synthesize_strike(ring(ib), f, pcm)
        write(fname, '(a,a,i1,a,i1,a)') trim(outdir), '/bell', ib, '_pass', pass, '.wav'
        call write_wav(trim(fname), pcm)
        call read_wav(trim(fname), x)
        call measure_partials(x, f, fmeas)
        if (pass < NPASS) then
           call tuning_cut(ring(ib), fmeas, dcut)
           ring(ib)%cut = ring(ib)%cut + dcut
        else
           dcut = 0.0_dp
        end if
        call log_pass(ib, pass, ring(ib), fmeas, dcut)
     end do
     worst(ib) = 0.0_dp
     do k = 1, NPART
        if (k == 4 .or. k >= 6) cycle  ! quint and upper partials are not tuned
        worst(ib) = max(worst(ib), abs(cents(fmeas(k), ideal(k) / 2.0_dp * ring(ib)%nominal_target)))
     end do
     removed(ib) = sum(ring(ib)%cut) * 0.35_dp * ring(ib)%mass_kg**(2.0_dp / 3.0_dp) / 10.0_dp
  end do
  close(ulog)

  open(newunit=urep, file=trim(outdir)//'/ring_report.txt', status='replace', action='write', &
       form='formatted', iostat=ios)
  if (ios /= 0) call fail('open ring_report.txt', ios)
  write(urep, '(a)') 'bell  nominal_Hz  mass_kg  metal_removed_kg  worst_tuned_partial_cents'
  do ib = 1, NBELL
     write(urep, '(i4,f12.3,f9.1,f18.3,f16.1)') ib, ring(ib)%nominal_target, ring(ib)%mass_kg, &
          removed(ib), worst(ib)
  end do
  close(urep)
  write(*, '(a,i0,a,i0,a,f6.1,a)') 'bells ', NBELL, '  recordings ', NBELL * (NPASS + 1), &
       '  worst partial error ', maxval(worst), ' cents'
end program church_bell_partial_tuning_stream
