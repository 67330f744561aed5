! compost_windrow_thermal_direct.f90
!
! Thermophilic composting of a turned windrow (green waste + manure),
! modelled in its 2-D trapezoidal cross-section.  Temperature and oxygen are
! advanced with a split implicit scheme (tridiagonal sweeps in x and y) with
! microbial heat release and O2 uptake following a cardinal-temperature
! kinetics, first-order loss of degradable volatile solids, evaporative
! drying and a daily ambient cycle at the surface.  The windrow is turned
! every 5 days (mixing, re-wetting).
!
! I/O: every 6 simulated hours the four state fields go into one
! unformatted DIRECT-access file (one record per field and snapshot); at each
! turning the full state is written to an unformatted SEQUENTIAL restart
! file.  Afterwards the temperature records are read back in order to check
! the PFRP sanitisation rule (>= 55 C for 15 days) cell by cell, the oxygen
! records are read newest-first to date the last anaerobic episode of each
! cell, the last restart is re-read and compared, and a formatted report is
! written.
!
! usage: compost_windrow_thermal_direct OUTDIR
module windrow_mod
  use, intrinsic :: iso_fortran_env, only: dp => real64, int64, error_unit
  implicit none
  integer, parameter :: nx = 120, ny = 60           ! 3 cm cells, 3.6 m x 1.8 m
  integer, parameter :: nfield = 4                  ! T, O2, moisture, volatile solids
  real(dp), parameter :: dx = 0.03_dp
  real(dp), parameter :: dt = 600.0_dp
  integer, parameter :: ndays = 30
  integer, parameter :: steps_per_day = 144
  integer, parameter :: snap_every = 36              ! 6 h
  integer, parameter :: nsnap = ndays * steps_per_day / snap_every
  integer, parameter :: turn_every_days = 5

  real(dp) :: t(nx, ny), o2(nx, ny), w(nx, ny), vs(nx, ny)
  logical :: inside(nx, ny)
  character(len=512) :: outdir

contains

  subroutine die(msg)
    character(len=*), intent(in) :: msg
    write(error_unit, '(a)') 'compost_windrow: ' // trim(msg)
    error stop 3
  end subroutine die

  subroutine init_windrow()
    integer :: i, j
    real(dp) :: x, y, half
    do j = 1, ny
       y = (real(j, dp) - 0.5_dp) * dx
       half = 1.8_dp - 0.75_dp * y                   ! trapezoid: 3.6 m base, 0.9 m crest
       do i = 1, nx
          x = (real(i, dp) - 0.5_dp) * dx - 1.8_dp
          inside(i, j) = abs(x) < half .and. y < 1.75_dp
          t(i, j) = 15.0_dp
          o2(i, j) = 0.209_dp
          w(i, j) = 0.0_dp
          vs(i, j) = 0.0_dp
          if (inside(i, j)) then
             w(i, j) = 0.58_dp + 0.04_dp * sin(7.0_dp * x) * cos(5.0_dp * y)
             vs(i, j) = 0.62_dp + 0.05_dp * cos(3.0_dp * x + 2.0_dp * y)
          end if
       end do
    end do
  end subroutine init_windrow

  ! cardinal temperature model (Rosso) for the microbial rate
  pure real(dp) function ctm(tc)
    real(dp), intent(in) :: tc
    real(dp), parameter :: tmin = 5.0_dp, topt = 58.0_dp, tmax = 80.0_dp
    real(dp) :: num, den
    if (tc <= tmin .or. tc >= tmax) then
       ctm = 0.0_dp
       return
    end if
    num = (tc - tmax) * (tc - tmin)**2
    den = (topt - tmin) * ((topt - tmin) * (tc - topt) - (topt - tmax) * (topt + tmin - 2.0_dp * tc))
    ctm = max(0.0_dp, num / den)
  end function ctm

  ! heat release, O2 uptake, VS loss and drying over one step
  subroutine source_terms(qheat, qo2)
    real(dp), intent(out) :: qheat(nx, ny), qo2(nx, ny)
    real(dp), parameter :: kmax = 4.0e-7_dp, hc = 1.4e7_dp, rho_c = 2.2e6_dp, yo2 = 1.2_dp
    real(dp) :: rate, fo, fw
    integer :: i, j
    do j = 1, ny
       do i = 1, nx
          qheat(i, j) = 0.0_dp
          qo2(i, j) = 0.0_dp
          if (.not. inside(i, j)) cycle
          fo = o2(i, j) / (0.02_dp + o2(i, j))
          fw = max(0.0_dp, min(1.0_dp, (w(i, j) - 0.25_dp) / 0.25_dp)) * &
               max(0.0_dp, min(1.0_dp, (0.75_dp - w(i, j)) / 0.1_dp))
          rate = kmax * ctm(t(i, j)) * fo * fw * vs(i, j)     ! fraction of VS per s
          vs(i, j) = vs(i, j) - dt * rate
          qheat(i, j) = hc * 350.0_dp * rate / rho_c          ! K/s
          qo2(i, j) = yo2 * rate * 350.0_dp / 1.3_dp / 0.35_dp ! vol fraction per s (pore air)
          w(i, j) = w(i, j) - dt * 4.0e-9_dp * max(t(i, j) - 20.0_dp, 0.0_dp)
       end do
    end do
  end subroutine source_terms

  subroutine tridiag(n, a, b, c, d, x)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n), b(n), c(n), d(n)
    real(dp), intent(out) :: x(n)
    real(dp) :: cp(n), dp2(n), m
    integer :: k
    cp(1) = c(1) / b(1)
    dp2(1) = d(1) / b(1)
    do k = 2, n
       m = b(k) - a(k) * cp(k - 1)
       cp(k) = c(k) / m
       dp2(k) = (d(k) - a(k) * dp2(k - 1)) / m
    end do
    x(n) = dp2(n)
    do k = n - 1, 1, -1
       x(k) = dp2(k) - cp(k) * x(k + 1)
    end do
  end subroutine tridiag

  ! one locally-one-dimensional implicit sweep along x (dir=1) or y (dir=2)
  ! for field f with diffusivity kd, half of the source src, and Dirichlet
  ! value fout in the air outside the windrow; the base (j=1) is no-flux
  subroutine implicit_sweep(f, kd, src, fout, dir)
    real(dp), intent(inout) :: f(nx, ny)
    real(dp), intent(in) :: kd, src(nx, ny), fout
    integer, intent(in) :: dir
    real(dp) :: a(max(nx, ny)), b(max(nx, ny)), c(max(nx, ny)), d(max(nx, ny)), x(max(nx, ny))
    real(dp) :: r
    integer :: i, j, n
    r = kd * dt / (dx * dx)
    if (dir == 1) then
       n = nx
       do j = 1, ny
          do i = 1, nx
             if (.not. inside(i, j)) then
                a(i) = 0.0_dp; b(i) = 1.0_dp; c(i) = 0.0_dp; d(i) = fout
                cycle
             end if
             a(i) = -r; c(i) = -r; b(i) = 1.0_dp + 2.0_dp * r
             d(i) = f(i, j) + 0.5_dp * dt * src(i, j)
          end do
          call tridiag(n, a(1:n), b(1:n), c(1:n), d(1:n), x(1:n))
          f(:, j) = x(1:n)
       end do
    else
       n = ny
       do i = 1, nx
          do j = 1, ny
             if (.not. inside(i, j)) then
                a(j) = 0.0_dp; b(j) = 1.0_dp; c(j) = 0.0_dp; d(j) = fout
                cycle
             end if
             a(j) = -r; c(j) = -r; b(j) = 1.0_dp + 2.0_dp * r
             if (j == 1) then
                a(j) = 0.0_dp; b(j) = 1.0_dp + r
             end if
             d(j) = f(i, j) + 0.5_dp * dt * src(i, j)
          end do
          call tridiag(n, a(1:n), b(1:n), c(1:n), d(1:n), x(1:n))
          f(i, :) = x(1:n)
       end do
    end if
  end subroutine implicit_sweep

  ! turning: the machine lifts and re-deposits material; fields mix strongly,
  ! water is sprayed on to restore the moisture content
  subroutine turn_windrow()
    real(dp) :: tm, om, wm, vm, cnt, frac
    integer :: i, j
    tm = 0.0_dp; om = 0.0_dp; wm = 0.0_dp; vm = 0.0_dp; cnt = 0.0_dp
    do j = 1, ny
       do i = 1, nx
          if (.not. inside(i, j)) cycle
          tm = tm + t(i, j); om = om + o2(i, j); wm = wm + w(i, j); vm = vm + vs(i, j)
          cnt = cnt + 1.0_dp
       end do
    end do
    tm = tm / cnt; om = om / cnt; wm = wm / cnt; vm = vm / cnt
    do j = 1, ny
       do i = 1, nx
          if (.not. inside(i, j)) cycle
          frac = 0.8_dp
          t(i, j) = frac * (tm - 8.0_dp) + (1.0_dp - frac) * t(i, j)     ! heat lost while turning
          o2(i, j) = 0.18_dp
          w(i, j) = frac * max(wm, 0.55_dp) + (1.0_dp - frac) * w(i, j)
          vs(i, j) = frac * vm + (1.0_dp - frac) * vs(i, j)
       end do
    end do
  end subroutine turn_windrow

  subroutine write_restart(day)
    integer, intent(in) :: day
    integer :: u, ios
    character(len=600) :: path
    write(path, '(a,a,i2.2,a)') trim(outdir), '/restart_day', day, '.bin'
    open(newunit=u, file=trim(path), form='unformatted', access='sequential', status='replace', &
         action='write', iostat=ios)
    if (ios /= 0) call die('cannot create ' // trim(path))
    write(u, iostat=ios) nx, ny, day, dx, dt
    if (ios /= 0) call die('restart header write failed')
    write(u, iostat=ios) inside
    if (ios /= 0) call die('restart mask write failed')
    write(u, iostat=ios) t, o2
    if (ios /= 0) call die('restart write failed')
    write(u, iostat=ios) w, vs
    if (ios /= 0) call die('restart write failed')
    close(u, iostat=ios)
    if (ios /= 0) call die('restart close failed')
  end subroutine write_restart

  subroutine write_snapshot(u, isnap)
    integer, intent(in) :: u, isnap
    integer :: ios, base
    base = (isnap - 1) * nfield
    write(u, rec=base + 1, iostat=ios) t
    if (ios /= 0) call die('direct write T failed')
    write(u, rec=base + 2, iostat=ios) o2
    if (ios /= 0) call die('direct write O2 failed')
    write(u, rec=base + 3, iostat=ios) w
    if (ios /= 0) call die('direct write moisture failed')
    write(u, rec=base + 4, iostat=ios) vs
    if (ios /= 0) call die('direct write VS failed')
  end subroutine write_snapshot

  ! PFRP: hours at >= 55 C per cell, from the temperature records in order
  subroutine pfrp_compliance(u, hours55, tmax_cell)
    integer, intent(in) :: u
    real(dp), intent(out) :: hours55(nx, ny), tmax_cell(nx, ny)
    real(dp) :: buf(nx, ny)
    integer :: s, ios
    hours55 = 0.0_dp
    tmax_cell = -99.0_dp
    do s = 1, nsnap
       read(u, rec=(s - 1) * nfield + 1, iostat=ios) buf
       if (ios /= 0) call die('direct read T failed')
       where (buf >= 55.0_dp .and. inside) hours55 = hours55 + real(snap_every, dp) * dt / 3600.0_dp
       tmax_cell = max(tmax_cell, buf)
    end do
  end subroutine pfrp_compliance

  ! newest-first scan of the O2 records: day of the last anaerobic (<5 %) episode
  subroutine anaerobic_history(u, last_anaer, anaer_frac)
    integer, intent(in) :: u
    real(dp), intent(out) :: last_anaer(nx, ny), anaer_frac(nsnap)
    real(dp) :: buf(nx, ny)
    integer :: s, ios, i, j
    real(dp) :: ncell
    last_anaer = -1.0_dp
    ncell = real(count(inside), dp)
    do s = nsnap, 1, -1
       read(u, rec=(s - 1) * nfield + 2, iostat=ios) buf
       if (ios /= 0) call die('direct read O2 failed')
       anaer_frac(s) = real(count(buf < 0.05_dp .and. inside), dp) / ncell
       do j = 1, ny
          do i = 1, nx
             if (inside(i, j) .and. buf(i, j) < 0.05_dp .and. last_anaer(i, j) < 0.0_dp) &
                  last_anaer(i, j) = real(s * snap_every, dp) * dt / 86400.0_dp
          end do
       end do
    end do
  end subroutine anaerobic_history

  ! re-read a restart file and return the max deviation from the given state
  real(dp) function check_restart(day, tref, vref)
    integer, intent(in) :: day
    real(dp), intent(in) :: tref(nx, ny), vref(nx, ny)
    integer :: u, ios, n1, n2, d
    real(dp) :: dxr, dtr
    logical :: msk(nx, ny)
    real(dp) :: tt(nx, ny), oo(nx, ny), ww(nx, ny), vv(nx, ny)
    character(len=600) :: path
    write(path, '(a,a,i2.2,a)') trim(outdir), '/restart_day', day, '.bin'
    open(newunit=u, file=trim(path), form='unformatted', access='sequential', status='old', &
         action='read', iostat=ios)
    if (ios /= 0) call die('cannot reopen ' // trim(path))
    read(u, iostat=ios) n1, n2, d, dxr, dtr
    if (ios /= 0 .or. n1 /= nx .or. n2 /= ny .or. d /= day) call die('restart header mismatch')
    read(u, iostat=ios) msk
    if (ios /= 0) call die('restart mask read failed')
    read(u, iostat=ios) tt, oo
    if (ios /= 0) call die('restart read failed')
    read(u, iostat=ios) ww, vv
    if (ios /= 0) call die('restart read failed')
    close(u)
    check_restart = max(maxval(abs(tt - tref)), maxval(abs(vv - vref)))
  end function check_restart

end module windrow_mod

program compost_windrow_thermal_direct
  use windrow_mod
  implicit none
  real(dp) :: qheat(nx, ny), qo2(nx, ny), zero(nx, ny)
  real(dp) :: hours55(nx, ny), tmax_cell(nx, ny), last_anaer(nx, ny), anaer_frac(nsnap)
  real(dp) :: t_last_turn(nx, ny), vs_last_turn(nx, ny)
  real(dp) :: tamb, time_s, dev, ncell, pfrp_ok, vs0, vs1
  integer :: ud, ur, ios, step, isnap, reclen, day, last_turn_day, s

  if (command_argument_count() /= 1) call die('usage: compost_windrow_thermal_direct OUTDIR')
  call get_command_argument(1, outdir)

  call init_windrow()
  zero = 0.0_dp
  vs0 = sum(vs, mask=inside)
  inquire(iolength=reclen) t
  open(newunit=ud, file=trim(outdir) // '/windrow_fields.da', form='unformatted', access='direct', &
       recl=reclen, status='replace', action='readwrite', iostat=ios)
  if (ios /= 0) call die('cannot create windrow_fields.da')

  isnap = 0
  last_turn_day = -1
  do step = 1, ndays * steps_per_day
     time_s = real(step, dp) * dt
     tamb = 12.0_dp + 6.0_dp * sin(2.0_dp * 3.141592653589793_dp * (time_s / 86400.0_dp - 0.3_dp))
     call source_terms(qheat, qo2)
     ! effective conductivity rises with temperature (vapour transport, convection)
     call implicit_sweep(t, 2.5e-7_dp * (1.0_dp + 0.02_dp * 40.0_dp), qheat, tamb, 1)
     call implicit_sweep(t, 2.5e-7_dp * (1.0_dp + 0.02_dp * 40.0_dp), qheat, tamb, 2)
     call implicit_sweep(o2, 1.0e-4_dp, -qo2, 0.209_dp, 1)
     call implicit_sweep(o2, 1.0e-4_dp, -qo2, 0.209_dp, 2)
     o2 = max(o2, 0.0_dp)
     if (mod(step, snap_every) == 0) then
        isnap = isnap + 1
        call write_snapshot(ud, isnap)
     end if
     if (mod(step, steps_per_day * turn_every_days) == 0 .and. step < ndays * steps_per_day) then
        day = step / steps_per_day
        call turn_windrow()
        call write_restart(day)
        last_turn_day = day
        t_last_turn = t
        vs_last_turn = vs
     end if
  end do
  vs1 = sum(vs, mask=inside)

  call pfrp_compliance(ud, hours55, tmax_cell)
  call anaerobic_history(ud, last_anaer, anaer_frac)
  close(ud, iostat=ios)
  if (ios /= 0) call die('close windrow_fields.da failed')
  dev = check_restart(last_turn_day, t_last_turn, vs_last_turn)
  if (dev > 0.0_dp) call die('restart file does not match state')

  ncell = real(count(inside), dp)
  pfrp_ok = real(count(inside .and. hours55 >= 15.0_dp * 24.0_dp), dp) / ncell
  open(newunit=ur, file=trim(outdir) // '/windrow_report.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) call die('cannot create report')
  write(ur, '(a,i0,a,i0,a,i0,a)', iostat=ios) 'windrow ', nx, 'x', ny, ' cells, ', ndays, ' days'
  write(ur, '(a,f8.4)', iostat=ios) 'fraction of volume meeting PFRP (>=55 C for 15 d): ', pfrp_ok
  write(ur, '(a,f8.2)', iostat=ios) 'peak temperature [C]: ', maxval(tmax_cell, mask=inside)
  write(ur, '(a,f8.4)', iostat=ios) 'volatile solids degraded fraction: ', 1.0_dp - vs1 / vs0
  write(ur, '(a,f8.2)', iostat=ios) 'latest anaerobic episode [day]: ', maxval(last_anaer)
  write(ur, '(a)', iostat=ios) 'snapshot  day   anaerobic_fraction'
  do s = 1, nsnap
     write(ur, '(i6,f8.2,f12.5)', iostat=ios) s, real(s * snap_every, dp) * dt / 86400.0_dp, anaer_frac(s)
     if (ios /= 0) call die('report write failed')
  end do
  close(ur, iostat=ios)
  if (ios /= 0) call die('report close failed')

  write(*, '(a,i0,a,f6.3,a,f6.2,a)') 'compost windrow: ', nsnap, ' snapshots, PFRP volume fraction ', pfrp_ok, &
       ', peak ', maxval(tmax_cell, mask=inside), ' C'
end program compost_windrow_thermal_direct
