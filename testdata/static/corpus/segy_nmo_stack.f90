! Synthesises CMP-sorted reflection seismic data into a SEG-Y style stream file,
! then scans the trace headers, performs semblance velocity analysis on a subset
! of gathers, applies NMO correction and writes a stacked section and picks.
module segy_mod
  use iso_fortran_env, only: int16, int32, int64, real32
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: ncmp = 320, nfold = 48, ns = 1000
  integer, parameter :: nrefl = 14
  integer, parameter :: nvel = 80, vel_every = 8, semb_win = 5
  real(dp), parameter :: dt = 0.004_dp, doff = 50.0_dp, off0 = 100.0_dp
  real(dp), parameter :: vmin = 1400.0_dp, vmax = 4400.0_dp
  integer(int64), parameter :: text_bytes = 3200, bin_bytes = 400, thdr_bytes = 240
  integer(int64), parameter :: trace_bytes = thdr_bytes + 4_int64 * ns

  type trace_index
    integer :: cdp
    integer :: offset
    integer(int64) :: pos
  end type trace_index

contains

  pure real(dp) function ricker(t, f)
    real(dp), intent(in) :: t, f
    real(dp) :: a
    a = (3.141592653589793_dp * f * t)**2
    ricker = (1.0_dp - 2.0_dp * a) * exp(-a)
  end function ricker

  ! Interval model: rms velocity increasing with time, lateral variation with cmp.
  pure real(dp) function vrms_true(t0, icmp)
    real(dp), intent(in) :: t0
    integer, intent(in) :: icmp
    vrms_true = 1500.0_dp + 520.0_dp * t0 + 60.0_dp * sin(0.03_dp * icmp)
  end function vrms_true

  integer(int64) function trace_pos(itr)
    integer, intent(in) :: itr
    trace_pos = text_bytes + bin_bytes + 1_int64 + int(itr - 1, int64) * trace_bytes
  end function trace_pos

  subroutine write_file_headers(un)
    integer, intent(in) :: un
    character(len=80) :: card
    integer :: i
    do i = 1, 40
      select case (i)
      case (1)
        write(card, '(a,i3,a)') 'C', i, ' SYNTHETIC CMP DATA FOR NMO/STACK TESTING'
      case (2)
        write(card, '(a,i3,a,i5,a,i4,a,i5)') 'C', i, ' CMPS', ncmp, ' FOLD', nfold, &
             ' SAMPLES', ns
      case (3)
        write(card, '(a,i3,a,f6.4,a)') 'C', i, ' SAMPLE INTERVAL ', dt, ' S, IEEE FLOAT'
      case default
        write(card, '(a,i3)') 'C', i
      end select
      write(un, pos=1 + (i - 1) * 80) card
    end do
    ! binary header: interval (us), samples, format code 5 (IEEE)
    write(un, pos=text_bytes + 17) int(nint(dt * 1.0e6_dp), int16)
    write(un, pos=text_bytes + 21) int(ns, int16)
    write(un, pos=text_bytes + 25) int(5, int16)
    write(un, pos=text_bytes + bin_bytes) int(0, kind=1)
  end subroutine write_file_headers

  subroutine synth_trace(icmp, offset, tr, noise_seed)
    integer, intent(in) :: icmp
    real(dp), intent(in) :: offset
    real(real32), intent(out) :: tr(ns)
    integer, intent(inout) :: noise_seed
    real(dp) :: t0, tx, amp, t, v
    integer :: r, it, i0
    tr = 0.0
    do r = 1, nrefl
      t0 = 0.25_dp + 0.24_dp * (r - 1) + 0.02_dp * sin(0.05_dp * icmp + r)
      v = vrms_true(t0, icmp)
      tx = sqrt(t0 * t0 + (offset / v)**2)
      amp = (1.0_dp - 2.0_dp * mod(r, 2)) * (0.6_dp + 0.4_dp / r) * t0 / tx
      i0 = nint(tx / dt)
      do it = max(1, i0 - 25), min(ns, i0 + 25)
        t = (it - 1) * dt - tx
        tr(it) = tr(it) + real(amp * ricker(t, 25.0_dp), real32)
      end do
    end do
    do it = 1, ns
      noise_seed = mod(noise_seed * 16807, 2147483647)
      tr(it) = tr(it) + real(0.05_dp * (noise_seed / 2147483647.0_dp - 0.5_dp), real32)
    end do
  end subroutine synth_trace

  subroutine write_trace(un, itr, icmp, ioff, tr)
    integer, intent(in) :: un, itr, icmp, ioff
    real(real32), intent(in) :: tr(ns)
    integer(int32) :: hdr(60)
    integer(int64) :: p0
    p0 = trace_pos(itr)
    hdr = 0
    hdr(1) = itr             ! tracl
    hdr(2) = itr             ! tracr
    hdr(6) = icmp            ! cdp
    hdr(7) = ioff            ! cdpt
    hdr(10) = nint(off0 + (ioff - 1) * doff)   ! offset
    write(un, pos=p0) hdr
    write(un, pos=p0 + 114) int(ns, int16), int(nint(dt * 1.0e6_dp), int16)
    write(un, pos=p0 + thdr_bytes) tr
  end subroutine write_trace

  subroutine scan_headers(un, ntr, idx)
    integer, intent(in) :: un, ntr
    type(trace_index), intent(out) :: idx(ntr)
    integer :: itr
    integer(int32) :: cdp, offset
    integer(int16) :: nsamp
    do itr = 1, ntr
      idx(itr)%pos = trace_pos(itr)
      read(un, pos=idx(itr)%pos + 20) cdp
      read(un, pos=idx(itr)%pos + 36) offset
      read(un, pos=idx(itr)%pos + 114) nsamp
      if (nsamp /= ns) then
        write(0, '(a,i0)') 'segy_nmo_stack: bad sample count in trace ', itr
        error stop 1
      end if
      idx(itr)%cdp = cdp
      idx(itr)%offset = offset
    end do
  end subroutine scan_headers

  subroutine read_gather(un, idx, ntr, icmp, gather, offs, nf)
    integer, intent(in) :: un, ntr, icmp
    type(trace_index), intent(in) :: idx(ntr)
    real(real32), intent(out) :: gather(ns, nfold)
    real(dp), intent(out) :: offs(nfold)
    integer, intent(out) :: nf
    integer :: itr
    nf = 0
    do itr = 1, ntr
      if (idx(itr)%cdp /= icmp) cycle
      nf = nf + 1
      offs(nf) = idx(itr)%offset
      read(un, pos=idx(itr)%pos + thdr_bytes) gather(:, nf)
    end do
  end subroutine read_gather

  ! Semblance panel and picked velocity at each time sample.
  subroutine semblance_scan(gather, offs, nf, vpick)
    real(real32), intent(in) :: gather(ns, nfold)
    real(dp), intent(in) :: offs(nfold)
    integer, intent(in) :: nf
    real(dp), intent(out) :: vpick(ns)
    real(dp) :: num(ns), den(ns), s, best(ns), vel, t0, tx, frac, a
    integer :: iv, it, k, j, i0
    best = -1.0_dp
    vpick = vmin
    do iv = 1, nvel
      vel = vmin + (vmax - vmin) * (iv - 1) / (nvel - 1)
      num = 0.0_dp
      den = 0.0_dp
      do it = 1, ns
        t0 = (it - 1) * dt
        s = 0.0_dp
        a = 0.0_dp
        do k = 1, nf
          tx = sqrt(t0 * t0 + (offs(k) / vel)**2) / dt + 1.0_dp
          i0 = int(tx)
          if (i0 >= ns) cycle
          frac = tx - i0
          a = (1.0_dp - frac) * gather(i0, k) + frac * gather(i0 + 1, k)
          s = s + a
          den(it) = den(it) + a * a
        end do
        num(it) = s * s
      end do
      do it = 1, ns
        s = 0.0_dp
        a = 0.0_dp
        do j = max(1, it - semb_win), min(ns, it + semb_win)
          s = s + num(j)
          a = a + den(j)
        end do
        if (a > 0.0_dp) then
          s = s / (nf * a)
          if (s > best(it)) then
            best(it) = s
            vpick(it) = vel
          end if
        end if
      end do
    end do
    ! semblance-weighted smoothing of the picks
    num = vpick
    do it = 1, ns
      s = 0.0_dp
      a = 0.0_dp
      do j = max(1, it - 25), min(ns, it + 25)
        s = s + max(best(j), 0.0_dp)**2 * num(j)
        a = a + max(best(j), 0.0_dp)**2
      end do
      if (a > 0.0_dp) vpick(it) = s / a
    end do
  end subroutine semblance_scan

  subroutine nmo_stack(gather, offs, nf, vel, stk)
    real(real32), intent(in) :: gather(ns, nfold)
    real(dp), intent(in) :: offs(nfold), vel(ns)
    integer, intent(in) :: nf
    real(real32), intent(out) :: stk(ns)
    integer :: it, k, i0, live
    real(dp) :: t0, tx, frac, acc, stretch
    do it = 1, ns
      t0 = (it - 1) * dt
      acc = 0.0_dp
      live = 0
      do k = 1, nf
        tx = sqrt(t0 * t0 + (offs(k) / vel(it))**2)
        stretch = tx / max(t0, dt)
        if (stretch > 1.5_dp) cycle     ! stretch mute
        tx = tx / dt + 1.0_dp
        i0 = int(tx)
        if (i0 >= ns) cycle
        frac = tx - i0
        acc = acc + (1.0_dp - frac) * gather(i0, k) + frac * gather(i0 + 1, k)
        live = live + 1
      end do
      stk(it) = real(acc / max(live, 1), real32)
    end do
  end subroutine nmo_stack

end module segy_mod

program segy_nmo_stack
  use segy_mod
  use iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  interface
    integer(c_int) function c_mkdir(path, mode) bind(c, name='mkdir')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: mode
    end function c_mkdir
  end interface
  character(len=1024) :: outdir
  integer :: un, sun, pun, ios, icmp, ioff, itr, ntr, nf, seed, it, rc, nanal, a
  real(real32), allocatable :: tr(:), gather(:, :), stk(:), chk(:)
  real(dp), allocatable :: vpick(:, :), vel(:), offs(:)
  integer, allocatable :: anal_cmp(:)
  type(trace_index), allocatable :: idx(:)
  real(dp) :: w, energy

  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: segy_nmo_stack OUTDIR'
    error stop 2
  end if
  call get_command_argument(1, outdir)
  rc = c_mkdir(trim(outdir) // c_null_char, int(o'755', c_int))

  ntr = ncmp * nfold
  allocate(tr(ns), gather(ns, nfold), stk(ns), chk(ns), offs(nfold), vel(ns), idx(ntr))

  ! --- acquisition: write the survey file ---
  open(newunit=un, file=trim(outdir) // '/survey.sgy', access='stream', &
       form='unformatted', status='replace', action='readwrite', &
       convert='big_endian', iostat=ios)
  if (ios /= 0) then
    write(0, '(a)') 'segy_nmo_stack: cannot create survey.sgy'
    error stop 1
  end if
  call write_file_headers(un)
  seed = 12345
  itr = 0
  do icmp = 1, ncmp
    do ioff = 1, nfold
      itr = itr + 1
      call synth_trace(icmp, off0 + (ioff - 1) * doff, tr, seed)
      call write_trace(un, itr, icmp, ioff, tr)
    end do
  end do
  flush(un)

  ! --- processing ---
  call scan_headers(un, ntr, idx)

  nanal = (ncmp - 1) / vel_every + 1
  allocate(vpick(ns, nanal), anal_cmp(nanal))
  open(newunit=pun, file=trim(outdir) // '/velocity_picks.txt', status='replace', &
       action='write')
  write(pun, '(a)') '# cdp  t0(s)  vrms(m/s)'
  do a = 1, nanal
    anal_cmp(a) = 1 + (a - 1) * vel_every
    call read_gather(un, idx, ntr, anal_cmp(a), gather, offs, nf)
    call semblance_scan(gather, offs, nf, vpick(:, a))
    do it = 1, ns, 10
      write(pun, '(i6,f8.3,f10.1)') anal_cmp(a), (it - 1) * dt, vpick(it, a)
    end do
  end do
  close(pun)

  open(newunit=sun, file=trim(outdir) // '/stack.bin', access='stream', &
       form='unformatted', status='replace', action='readwrite', iostat=ios)
  if (ios /= 0) then
    write(0, '(a)') 'segy_nmo_stack: cannot create stack.bin'
    error stop 1
  end if
  write(sun) int(ncmp, int32), int(ns, int32), real(dt, real32)
  do icmp = 1, ncmp
    ! linear interpolation between analysis locations
    a = min((icmp - 1) / vel_every + 1, nanal)
    if (a < nanal) then
      w = real(icmp - anal_cmp(a), dp) / (anal_cmp(a + 1) - anal_cmp(a))
      vel = (1.0_dp - w) * vpick(:, a) + w * vpick(:, a + 1)
    else
      vel = vpick(:, a)
    end if
    call read_gather(un, idx, ntr, icmp, gather, offs, nf)
    if (nf /= nfold) then
      write(0, '(a,i0)') 'segy_nmo_stack: incomplete gather ', icmp
      error stop 1
    end if
    call nmo_stack(gather, offs, nf, vel, stk)
    write(sun, pos=13 + int(icmp - 1, int64) * 4 * ns) stk
  end do
  close(un)

  ! spot-check the stacked section
  energy = 0.0_dp
  do icmp = 1, ncmp, 7
    read(sun, pos=13 + int(icmp - 1, int64) * 4 * ns) chk
    energy = energy + sum(real(chk, dp)**2)
  end do
  close(sun)
  write(*, '(a,i0,a,i0,a,es12.5)') 'traces ', ntr, ', velocity analyses ', nanal, &
       ', sampled stack energy ', energy
end program segy_nmo_stack
