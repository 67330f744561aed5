! tsunami_runup_profiles.f90
!
! One-dimensional nonlinear shallow-water model of a leading-depression
! N-wave running up a plane beach (well-balanced hydrostatic reconstruction,
! HLL fluxes, wetting and drying, Manning friction).  Every DT_PROF seconds
! a formatted cross-shore profile table is appended to profiles.txt; tide
! gauges are written every step, the shoreline is tracked for the run-up
! history, and at the end the profile file is read back to build the
! maximum-elevation / arrival-time envelope.
!
! usage: tsunami_runup_profiles OUTDIR
program tsunami_runup_profiles
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 2000, ngauge = 8
  real(dp), parameter :: xlen = 20000.0_dp, grav = 9.81_dp
  real(dp), parameter :: depth0 = 100.0_dp, xtoe = 10000.0_dp
  real(dp), parameter :: beach_slope = 1.0_dp / 50.0_dp
  real(dp), parameter :: t_end = 900.0_dp, dt_prof = 15.0_dp, cfl = 0.45_dp
  real(dp), parameter :: hdry = 1.0e-4_dp, hwet = 1.0e-3_dp, manning_n = 0.025_dp

  character(len=512) :: outdir
  real(dp) :: x(nx), zb(nx), h(nx), hu(nx), dx
  real(dp) :: gx(ngauge)
  integer  :: gidx(ngauge)
  real(dp) :: t, dt, next_prof, max_runup, max_inund, e0, e1
  integer  :: nstep, nprof, ios, ugauge, uprof, ushore, uenergy, nargs
  real(dp) :: shore_x, shore_z

  nargs = command_argument_count()
  if (nargs /= 1) then
     write(*,'(A)') 'usage: tsunami_runup_profiles OUTDIR'
     stop 2
  end if
  call get_command_argument(1, outdir)

  call setup_bathymetry()
  call initial_wave()
  call write_config()

  open(newunit=uprof, file=trim(outdir)//'/profiles.txt', status='replace', &
       action='write', form='formatted', iostat=ios)
  call check(ios, 'open profiles.txt')
  open(newunit=ugauge, file=trim(outdir)//'/gauges.txt', status='replace', &
       action='write', form='formatted', iostat=ios)
  call check(ios, 'open gauges.txt')
  open(newunit=ushore, file=trim(outdir)//'/shoreline.txt', status='replace', &
       action='write', form='formatted', iostat=ios)
  call check(ios, 'open shoreline.txt')
  open(newunit=uenergy, file=trim(outdir)//'/energy.txt', status='replace', &
       action='write', form='formatted', iostat=ios)
  call check(ios, 'open energy.txt')

  write(ugauge,'(A)', iostat=ios) '#      time   eta_g1 .. eta_g8 (m)'
  call check(ios, 'write gauges header')
  write(ushore,'(A)', iostat=ios) '#      time   shore_x(m)   runup_z(m)'
  call check(ios, 'write shoreline header')
  write(uenergy,'(A)', iostat=ios) '#      time     E_pot(J/m)     E_kin(J/m)     volume(m2)'
  call check(ios, 'write energy header')

  t = 0.0_dp
  nstep = 0
  nprof = 0
  next_prof = 0.0_dp
  max_runup = -1.0e30_dp
  max_inund = 0.0_dp
  call energy_budget(uenergy, e0)

  do while (t < t_end - 1.0e-9_dp)
     if (t >= next_prof - 1.0e-9_dp) then
        call write_profile(uprof)
        nprof = nprof + 1
        next_prof = next_prof + dt_prof
     end if
     dt = stable_dt()
     if (t + dt > t_end) dt = t_end - t
     if (t + dt > next_prof) dt = max(next_prof - t, 1.0e-6_dp)
     call fv_step(dt)
     call apply_friction(dt)
     t = t + dt
     nstep = nstep + 1
     call sample_gauges(ugauge)
     call track_shoreline(shore_x, shore_z)
     if (shore_z > max_runup) max_runup = shore_z
     if (shore_x > max_inund) max_inund = shore_x
     if (mod(nstep, 10) == 0) then
        write(ushore,'(F10.3,2(1X,F12.4))', iostat=ios) t, shore_x, shore_z
        call check(ios, 'write shoreline')
     end if
     if (mod(nstep, 100) == 0) call energy_budget(uenergy, e1)
  end do
  call write_profile(uprof)
  nprof = nprof + 1
  call energy_budget(uenergy, e1)

  close(uprof, iostat=ios);   call check(ios, 'close profiles')
  close(ugauge, iostat=ios);  call check(ios, 'close gauges')
  close(ushore, iostat=ios);  call check(ios, 'close shoreline')
  close(uenergy, iostat=ios); call check(ios, 'close energy')

  call build_envelope(nprof)

  write(*,'(A,I0,A,I0,A)') 'tsunami_runup_profiles: ', nstep, ' steps, ', nprof, ' profiles'
  write(*,'(A,F8.3,A,F10.2,A)') '  max run-up ', max_runup, ' m, max inundation x = ', max_inund, ' m'
  write(*,'(A,ES12.5,A,ES12.5)') '  energy start ', e0, '  end ', e1

contains

  subroutine check(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
       write(*,'(A,A,A,I0)') 'I/O error: ', what, ' iostat=', ios
       stop 1
    end if
  end subroutine check

  ! Plane beach: flat shelf of depth0 out to xtoe, then a constant slope
  ! that continues onshore to the end of the domain.
  subroutine setup_bathymetry()
    integer :: i, k
    dx = xlen / real(nx, dp)
    do i = 1, nx
       x(i) = (real(i, dp) - 0.5_dp) * dx
       if (x(i) < xtoe) then
          zb(i) = -depth0
       else
          zb(i) = -depth0 + beach_slope * (x(i) - xtoe)
       end if
       ! small sand bars on the shoreface
       if (x(i) > 13000.0_dp .and. x(i) < 14800.0_dp) then
          zb(i) = zb(i) + 1.2_dp * sin(2.0_dp * 3.141592653589793_dp * (x(i) - 13000.0_dp) / 450.0_dp)**2
       end if
    end do
    gx = [2000.0_dp, 6000.0_dp, 9000.0_dp, 11000.0_dp, 13000.0_dp, &
          14000.0_dp, 14700.0_dp, 15000.0_dp]
    do k = 1, ngauge
       gidx(k) = min(nx, max(1, int(gx(k) / dx) + 1))
    end do
  end subroutine setup_bathymetry

  ! Leading-depression N-wave travelling shoreward, u from the linear
  ! long-wave relation u = eta*sqrt(g/h).
  subroutine initial_wave()
    integer :: i
    real(dp) :: eta, a1, a2, x1, x2, kw
    a1 = 2.5_dp;  x1 = 5200.0_dp
    a2 = -1.2_dp; x2 = 6400.0_dp
    kw = 1.0_dp / 700.0_dp
    do i = 1, nx
       eta = a1 / cosh(kw * (x(i) - x1))**2 + a2 / cosh(kw * (x(i) - x2))**2
       if (x(i) > xtoe) eta = 0.0_dp
       h(i) = max(0.0_dp, eta - zb(i))
       if (h(i) > hdry) then
          hu(i) = h(i) * eta * sqrt(grav / depth0)
       else
          h(i) = 0.0_dp
          hu(i) = 0.0_dp
       end if
    end do
  end subroutine initial_wave

  subroutine write_config()
    integer :: u, ios
    open(newunit=u, file=trim(outdir)//'/config.txt', status='replace', &
         action='write', form='formatted', iostat=ios)
    call check(ios, 'open config.txt')
    write(u,'(A)') '# tsunami run-up model configuration'
    write(u,'(A,I8)')     'nx            = ', nx
    write(u,'(A,F12.4)')  'dx (m)        = ', dx
    write(u,'(A,F12.4)')  'shelf depth   = ', depth0
    write(u,'(A,F12.4)')  'beach toe x   = ', xtoe
    write(u,'(A,F12.6)')  'beach slope   = ', beach_slope
    write(u,'(A,F12.4)')  'Manning n     = ', manning_n
    write(u,'(A,F12.2)')  't_end (s)     = ', t_end
    write(u,'(A,F12.2)')  'profile dt    = ', dt_prof
    write(u,'(A,8F10.1)') 'gauges x (m)  = ', gx
    close(u, iostat=ios)
    call check(ios, 'close config.txt')
  end subroutine write_config

  function stable_dt() result(dtc)
    real(dp) :: dtc, smax, u, c
    integer :: i
    smax = 1.0e-8_dp
    do i = 1, nx
       if (h(i) > hwet) then
          u = hu(i) / h(i)
          c = sqrt(grav * h(i))
          smax = max(smax, abs(u) + c)
       end if
    end do
    dtc = cfl * dx / smax
  end function stable_dt

  ! HLL flux for the 1-D shallow-water equations.
  pure subroutine hll(hl, ul, hr, ur, fh, fm)
    real(dp), intent(in) :: hl, ul, hr, ur
    real(dp), intent(out) :: fh, fm
    real(dp) :: cl, cr, sl, sr, fhl, fml, fhr, fmr
    if (hl <= hdry .and. hr <= hdry) then
       fh = 0.0_dp; fm = 0.0_dp
       return
    end if
    cl = sqrt(grav * hl); cr = sqrt(grav * hr)
    sl = min(ul - cl, ur - cr)
    sr = max(ul + cl, ur + cr)
    fhl = hl * ul; fml = hl * ul * ul + 0.5_dp * grav * hl * hl
    fhr = hr * ur; fmr = hr * ur * ur + 0.5_dp * grav * hr * hr
    if (sl >= 0.0_dp) then
       fh = fhl; fm = fml
    else if (sr <= 0.0_dp) then
       fh = fhr; fm = fmr
    else
       fh = (sr * fhl - sl * fhr + sl * sr * (hr - hl)) / (sr - sl)
       fm = (sr * fml - sl * fmr + sl * sr * (hr * ur - hl * ul)) / (sr - sl)
    end if
  end subroutine hll

  ! One explicit finite-volume step with Audusse hydrostatic reconstruction.
  subroutine fv_step(dtl)
    real(dp), intent(in) :: dtl
    real(dp) :: fh(0:nx), fml(0:nx), fmr(0:nx)
    real(dp) :: hl, hr, ul, ur, zl, zr, zm, hls, hrs, ghl, ghr, lam
    integer :: i
    do i = 0, nx
       if (i == 0) then                 ! open sea: transmissive
          hl = h(1); zl = zb(1); ul = vel(1)
       else
          hl = h(i); zl = zb(i); ul = vel(i)
       end if
       if (i == nx) then                ! landward wall
          hr = h(nx); zr = zb(nx); ur = -vel(nx)
       else
          hr = h(i+1); zr = zb(i+1); ur = vel(i+1)
       end if
       zm = max(zl, zr)
       hls = max(0.0_dp, hl + zl - zm)
       hrs = max(0.0_dp, hr + zr - zm)
       call hll(hls, ul, hrs, ur, fh(i), ghl)
       ghr = ghl
       fml(i) = ghl + 0.5_dp * grav * (hl * hl - hls * hls)
       fmr(i) = ghr + 0.5_dp * grav * (hr * hr - hrs * hrs)
    end do
    lam = dtl / dx
    do i = 1, nx
       h(i)  = h(i)  - lam * (fh(i) - fh(i-1))
       hu(i) = hu(i) - lam * (fml(i) - fmr(i-1))
       if (h(i) < hdry) then
          h(i) = max(h(i), 0.0_dp)
          hu(i) = 0.0_dp
       end if
    end do
  end subroutine fv_step

  pure function vel(i) result(u)
    integer, intent(in) :: i
    real(dp) :: u
    if (h(i) > hwet) then
       u = hu(i) / h(i)
    else
       u = 0.0_dp
    end if
  end function vel

  ! Semi-implicit Manning bottom friction.
  subroutine apply_friction(dtl)
    real(dp), intent(in) :: dtl
    integer :: i
    real(dp) :: u, cf
    do i = 1, nx
       if (h(i) > hwet) then
          u = hu(i) / h(i)
          cf = grav * manning_n**2 * abs(u) / h(i)**(4.0_dp / 3.0_dp)
          hu(i) = hu(i) / (1.0_dp + dtl * cf)
       else
          hu(i) = 0.0_dp
       end if
    end do
  end subroutine apply_friction

  subroutine write_profile(u)
    integer, intent(in) :: u
    integer :: i, ios
    real(dp) :: eta, uu
    write(u,'(A,F10.3,A,I0)', iostat=ios) '# t = ', t, '  n = ', nx
    call check(ios, 'write profile header')
    do i = 1, nx
       if (h(i) > hwet) then
          eta = zb(i) + h(i); uu = hu(i) / h(i)
       else
          eta = zb(i); uu = 0.0_dp
       end if
       write(u,'(F10.2,1X,F9.3,1X,F10.5,1X,ES12.4E2,1X,F9.4)', iostat=ios) &
            x(i), zb(i), eta, hu(i), uu
       call check(ios, 'write profile row')
    end do
  end subroutine write_profile

  subroutine sample_gauges(u)
    integer, intent(in) :: u
    real(dp) :: eta(ngauge)
    integer :: k, i, ios
    do k = 1, ngauge
       i = gidx(k)
       if (h(i) > hwet) then
          eta(k) = zb(i) + h(i)
       else
          eta(k) = max(zb(i), 0.0_dp)
       end if
    end do
    write(u,'(F10.3,8(1X,F9.4))', iostat=ios) t, eta
    call check(ios, 'write gauges')
  end subroutine sample_gauges

  ! Shoreline = landward-most wet cell connected to the sea.
  subroutine track_shoreline(sx, sz)
    real(dp), intent(out) :: sx, sz
    integer :: i, last
    last = 1
    do i = 1, nx
       if (h(i) > 5.0_dp * hwet) then
          last = i
       else if (zb(i) > 0.0_dp) then
          exit
       end if
    end do
    sx = x(last)
    sz = zb(last) + h(last)
  end subroutine track_shoreline

  subroutine energy_budget(u, etot)
    integer, intent(in) :: u
    real(dp), intent(out) :: etot
    real(dp) :: ep, ek, vol, eta
    integer :: i, ios
    ep = 0.0_dp; ek = 0.0_dp; vol = 0.0_dp
    do i = 1, nx
       if (h(i) > hwet) then
          eta = zb(i) + h(i)
          ! potential energy relative to still water level
          ep = ep + 0.5_dp * 1025.0_dp * grav * (eta**2 - max(zb(i), 0.0_dp)**2) * dx
          ek = ek + 0.5_dp * 1025.0_dp * hu(i)**2 / h(i) * dx
          vol = vol + h(i) * dx
       end if
    end do
    etot = ep + ek
    write(u,'(F10.3,3(1X,ES14.6E2))', iostat=ios) t, ep, ek, vol
    call check(ios, 'write energy')
  end subroutine energy_budget

  ! Read profiles.txt back and compute, for every cell, the maximum water
  ! level, maximum speed and first arrival time of a +5 cm rise.
  subroutine build_envelope(np)
    integer, intent(in) :: np
    real(dp) :: emax(nx), umax(nx), tarr(nx), eta0(nx)
    real(dp) :: xr, zr, er, qr, ur, tp
    character(len=128) :: line
    integer :: u, ip, i, ios, nn, nwet, uo
    emax = -1.0e30_dp; umax = 0.0_dp; tarr = -1.0_dp; eta0 = 0.0_dp
    open(newunit=u, file=trim(outdir)//'/profiles.txt', status='old', &
         action='read', form='formatted', iostat=ios)
    call check(ios, 'reopen profiles.txt')
    do ip = 1, np
       read(u,'(A)', iostat=ios) line
       call check(ios, 'read profile header')
       read(line(7:), *, iostat=ios) tp
       call check(ios, 'parse profile time')
       do i = 1, nx
          read(u,'(F10.2,1X,F9.3,1X,F10.5,1X,ES12.4E2,1X,F9.4)', iostat=ios) xr, zr, er, qr, ur
          call check(ios, 'read profile row')
          if (ip == 1) eta0(i) = er
          if (er > zr + hwet .or. zr < 0.0_dp) then
             emax(i) = max(emax(i), er)
             umax(i) = max(umax(i), abs(ur))
             if (tarr(i) < 0.0_dp .and. er - max(eta0(i), 0.0_dp) > 0.05_dp .and. ip > 1) tarr(i) = tp
          end if
       end do
    end do
    close(u, iostat=ios)
    call check(ios, 'close profiles.txt')

    open(newunit=uo, file=trim(outdir)//'/envelope.txt', status='replace', &
         action='write', form='formatted', iostat=ios)
    call check(ios, 'open envelope.txt')
    write(uo,'(A)') '#        x        zb      eta_max    u_max   t_arrival'
    nwet = 0
    nn = 0
    do i = 1, nx
       if (emax(i) > -1.0e29_dp) then
          nwet = nwet + 1
          write(uo,'(F10.2,1X,F9.3,1X,F10.4,1X,F8.4,1X,F10.2)', iostat=ios) &
               x(i), zb(i), emax(i), umax(i), tarr(i)
          call check(ios, 'write envelope')
          if (zb(i) > 0.0_dp) nn = nn + 1
       end if
    end do
    close(uo, iostat=ios)
    call check(ios, 'close envelope.txt')
    write(*,'(A,I0,A,I0,A)') '  envelope: ', nwet, ' cells ever wet, ', nn, ' above datum'
  end subroutine build_envelope

end program tsunami_runup_profiles
