! Surface drifter (SVP-style buoy) deployment simulator and dispersion analysis.
! Drifters are advected with RK4 through a time-dependent double gyre with
! superposed mesoscale eddies and wind drift plus a random-walk sub-grid term.
! Positions are written every NSAVE steps as records of an ACCESS='STREAM'
! binary trajectory file; drifter metadata goes to an unformatted sequential
! file.  The analysis re-reads snapshots with POS= positioning to compute
! absolute and pair (relative) dispersion and Lagrangian velocity
! autocorrelation, stores per-drifter statistics in a direct-access file, and
! reads that back to write a short formatted report.
module drifter_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nd = 2000
  integer, parameter :: nsteps = 1440
  integer, parameter :: nsave = 3
  integer, parameter :: nsnap = nsteps / nsave + 1
  real(dp), parameter :: dt = 3600.0_dp          ! s
  real(dp), parameter :: lx = 2.0e6_dp, ly = 1.0e6_dp
  real(dp), parameter :: pi = 3.14159265358979324_dp
  real(dp), parameter :: kdiff = 50.0_dp          ! m^2/s
  integer, parameter :: neddy = 16
  real(dp) :: ex(neddy), ey(neddy), er(neddy), eamp(neddy), eu(neddy)
  real(dp) :: ecx(neddy, 3)     ! eddy centres at t, t+dt/2, t+dt
  real(dp) :: x(nd), y(nd)
  integer :: cluster(nd)
  integer(8) :: rstate = 88172645463325252_8
  character(len=512) :: outdir
  integer, parameter :: snap_bytes = 4 + 8 + 16*nd
contains

  subroutine check(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
      write(*,'(3a,i0)') 'drifter I/O error in ', what, ': iostat=', ios
      stop 1
    end if
  end subroutine check

  real(dp) function urand()
    rstate = ieor(rstate, ishft(rstate, 13))
    rstate = ieor(rstate, ishft(rstate, -7))
    rstate = ieor(rstate, ishft(rstate, 17))
    urand = (dble(ishft(rstate, -11)) + 0.5_dp) / 9007199254740992.0_dp
  end function urand

  subroutine setup_eddies()
    integer :: k
    do k = 1, neddy
      ex(k) = urand()*lx; ey(k) = urand()*ly
      er(k) = 4.0e4_dp + 6.0e4_dp*urand()
      eamp(k) = (0.2_dp + 0.3_dp*urand()) * merge(1.0_dp, -1.0_dp, mod(k,2) == 0)
      eu(k) = -0.03_dp - 0.04_dp*urand()        ! westward propagation
    end do
  end subroutine setup_eddies

  subroutine velocity(px, py, t, stage, u, v)
    real(dp), intent(in) :: px, py, t
    integer, intent(in) :: stage
    real(dp), intent(out) :: u, v
    real(dp) :: a, b, f, dfdx, eps, om, cx, r2, g
    integer :: k
    eps = 0.25_dp; om = 2.0_dp*pi/(10.0_dp*86400.0_dp)
    a = eps*sin(om*t); b = 1.0_dp - 2.0_dp*eps*sin(om*t)
    f = a*(px/ly)**2 + b*(px/ly)
    dfdx = (2.0_dp*a*px/ly + b)/ly
    u = -0.35_dp*pi*sin(pi*f)*cos(pi*py/ly)
    v =  0.35_dp*pi*cos(pi*f)*sin(pi*py/ly)*dfdx*ly
    do k = 1, neddy
      cx = ecx(k, stage)
      r2 = ((px - cx)**2 + (py - ey(k))**2) / er(k)**2
      if (r2 < 9.0_dp) then
        g = eamp(k)*exp(-r2)
        u = u - g*(py - ey(k))/er(k)
        v = v + g*(px - cx)/er(k)
      end if
    end do
    u = u + 0.05_dp*cos(2.0_dp*pi*t/86400.0_dp)   ! inertial/diurnal wind drift
    v = v + 0.02_dp
  end subroutine velocity

  subroutine deploy()
    integer :: i, c
    real(dp) :: cxs(10), cys(10)
    do c = 1, 10
      cxs(c) = (0.1_dp + 0.8_dp*urand())*lx
      cys(c) = (0.1_dp + 0.8_dp*urand())*ly
    end do
    do i = 1, nd
      c = mod(i-1, 10) + 1
      cluster(i) = c
      x(i) = cxs(c) + (urand() - 0.5_dp)*2.0e4_dp
      y(i) = cys(c) + (urand() - 0.5_dp)*2.0e4_dp
    end do
  end subroutine deploy

  subroutine write_metadata()
    integer :: u, ios, i
    open(newunit=u, file=trim(outdir)//'/drifters.meta', form='unformatted', access='sequential', &
         status='replace', iostat=ios)
    call check(ios, 'open meta')
    write(u, iostat=ios) nd, nsnap, dt*nsave
    call check(ios, 'write meta header')
    do i = 1, nd
      write(u, iostat=ios) 300000 + i, cluster(i), x(i), y(i)
      call check(ios, 'write meta record')
    end do
    close(u)
  end subroutine write_metadata

  subroutine advect_step(t)
    real(dp), intent(in) :: t
    integer :: i
    real(dp) :: u1, v1, u2, v2, u3, v3, u4, v4, s
    integer :: k
    s = sqrt(2.0_dp*kdiff*dt)
    do k = 1, neddy
      ecx(k, 1) = modulo(ex(k) + eu(k)*t, lx)
      ecx(k, 2) = modulo(ex(k) + eu(k)*(t + 0.5_dp*dt), lx)
      ecx(k, 3) = modulo(ex(k) + eu(k)*(t + dt), lx)
    end do
    do i = 1, nd
      call velocity(x(i), y(i), t, 1, u1, v1)
      call velocity(x(i) + 0.5_dp*dt*u1, y(i) + 0.5_dp*dt*v1, t + 0.5_dp*dt, 2, u2, v2)
      call velocity(x(i) + 0.5_dp*dt*u2, y(i) + 0.5_dp*dt*v2, t + 0.5_dp*dt, 2, u3, v3)
      call velocity(x(i) + dt*u3, y(i) + dt*v3, t + dt, 3, u4, v4)
      x(i) = x(i) + dt*(u1 + 2.0_dp*u2 + 2.0_dp*u3 + u4)/6.0_dp + s*(urand() - 0.5_dp)*3.4641_dp
      y(i) = y(i) + dt*(v1 + 2.0_dp*v2 + 2.0_dp*v3 + v4)/6.0_dp + s*(urand() - 0.5_dp)*3.4641_dp
      x(i) = modulo(x(i), lx)
      y(i) = min(max(y(i), 0.0_dp), ly)
    end do
  end subroutine advect_step

  subroutine write_snapshot(u, isnap, t)
    integer, intent(in) :: u, isnap
    real(dp), intent(in) :: t
    integer :: ios
    integer(8) :: pos
    pos = int(isnap, 8)*int(snap_bytes, 8) + 1_8
    write(u, pos=pos, iostat=ios) isnap, t, x, y
    call check(ios, 'write snapshot')
  end subroutine write_snapshot

  subroutine read_snapshot(u, isnap, t, sx, sy)
    integer, intent(in) :: u, isnap
    real(dp), intent(out) :: t, sx(nd), sy(nd)
    integer :: ios, k
    integer(8) :: pos
    pos = int(isnap, 8)*int(snap_bytes, 8) + 1_8
    read(u, pos=pos, iostat=ios) k, t, sx, sy
    call check(ios, 'read snapshot')
    if (k /= isnap) then
      write(*,'(a,i0)') 'corrupt snapshot ', isnap
      stop 1
    end if
  end subroutine read_snapshot

  ! Absolute dispersion per snapshot, pair dispersion of initially close
  ! pairs, and per-drifter Lagrangian velocity statistics.
  subroutine analyse(u, absd, reld, vmean, tlag)
    integer, intent(in) :: u
    real(dp), intent(out) :: absd(nsnap), reld(nsnap), vmean(nd), tlag(nd)
    real(dp), allocatable :: x0(:), y0(:), xp(:), yp(:), sx(:), sy(:), uu(:,:), vv(:,:)
    integer, allocatable :: pa(:), pb(:)
    integer :: s, i, j, np, lag
    real(dp) :: t, dx, c0, cl, um
    allocate(x0(nd), y0(nd), xp(nd), yp(nd), sx(nd), sy(nd), uu(nsnap-1, 64), vv(nsnap-1, 64))
    allocate(pa(20*nd), pb(20*nd))
    call read_snapshot(u, 0, t, x0, y0)
    np = 0
    do i = 1, nd
      do j = i+1, nd
        if (np < 20*nd .and. (x0(i)-x0(j))**2 + (y0(i)-y0(j))**2 < 2.0e6_dp) then
          np = np + 1; pa(np) = i; pb(np) = j
        end if
      end do
    end do
    xp = x0; yp = y0
    vmean = 0.0_dp
    do s = 0, nsnap-1
      call read_snapshot(u, s, t, sx, sy)
      absd(s+1) = 0.0_dp
      do i = 1, nd
        dx = sx(i) - x0(i)
        if (dx > 0.5_dp*lx) dx = dx - lx
        if (dx < -0.5_dp*lx) dx = dx + lx
        absd(s+1) = absd(s+1) + dx*dx + (sy(i)-y0(i))**2
        if (s > 0) then
          dx = sx(i) - xp(i)
          if (dx > 0.5_dp*lx) dx = dx - lx
          if (dx < -0.5_dp*lx) dx = dx + lx
          vmean(i) = vmean(i) + sqrt(dx*dx + (sy(i)-yp(i))**2)/(dt*nsave)
          if (i <= 64) then
            uu(s, i) = dx/(dt*nsave); vv(s, i) = (sy(i)-yp(i))/(dt*nsave)
          end if
        end if
      end do
      absd(s+1) = absd(s+1)/nd
      reld(s+1) = 0.0_dp
      do j = 1, np
        dx = sx(pa(j)) - sx(pb(j))
        if (dx > 0.5_dp*lx) dx = dx - lx
        if (dx < -0.5_dp*lx) dx = dx + lx
        reld(s+1) = reld(s+1) + dx*dx + (sy(pa(j)) - sy(pb(j)))**2
      end do
      if (np > 0) reld(s+1) = reld(s+1)/np
      xp = sx; yp = sy
    end do
    vmean = vmean/(nsnap-1)
    ! integral Lagrangian time scale for the first 64 drifters
    tlag = 0.0_dp
    do i = 1, 64
      um = sum(uu(:,i))/(nsnap-1)
      c0 = sum((uu(:,i) - um)**2)
      do lag = 0, 80
        cl = 0.0_dp
        do s = 1, nsnap-1-lag
          cl = cl + (uu(s,i) - um)*(uu(s+lag,i) - um)
        end do
        if (cl <= 0.0_dp) exit
        tlag(i) = tlag(i) + cl/c0*dt*nsave
      end do
    end do
    deallocate(x0, y0, xp, yp, sx, sy, uu, vv, pa, pb)
  end subroutine analyse

  subroutine write_drifter_table(vmean, tlag)
    real(dp), intent(in) :: vmean(nd), tlag(nd)
    integer :: u, ios, i, rl
    inquire(iolength=rl) i, i, vmean(1), tlag(1)
    open(newunit=u, file=trim(outdir)//'/drifter_stats.da', access='direct', recl=rl, &
         form='unformatted', status='replace', iostat=ios)
    call check(ios, 'open direct')
    do i = 1, nd
      write(u, rec=i, iostat=ios) 300000 + i, cluster(i), vmean(i), tlag(i)
      call check(ios, 'write direct')
    end do
    close(u)
  end subroutine write_drifter_table

  subroutine report(absd, reld)
    real(dp), intent(in) :: absd(nsnap), reld(nsnap)
    integer :: u, ud, ios, i, rl, id, cl, ncl(10)
    real(dp) :: vm, tl, vcl(10), tmax
    inquire(iolength=rl) id, cl, vm, tl
    open(newunit=ud, file=trim(outdir)//'/drifter_stats.da', access='direct', recl=rl, &
         form='unformatted', status='old', action='read', iostat=ios)
    call check(ios, 'reopen direct')
    ncl = 0; vcl = 0.0_dp; tmax = 0.0_dp
    do i = nd, 1, -1
      read(ud, rec=i, iostat=ios) id, cl, vm, tl
      call check(ios, 'read direct')
      ncl(cl) = ncl(cl) + 1; vcl(cl) = vcl(cl) + vm
      tmax = max(tmax, tl)
    end do
    close(ud)
    open(newunit=u, file=trim(outdir)//'/dispersion_report.txt', status='replace', iostat=ios)
    call check(ios, 'open report')
    write(u, '(a)') '# day  abs_disp_km2  rel_disp_km2'
    do i = 1, nsnap, 8
      write(u, '(f7.2,2es14.5)') (i-1)*nsave*dt/86400.0_dp, absd(i)*1.0e-6_dp, reld(i)*1.0e-6_dp
    end do
    do cl = 1, 10
      write(u, '(a,i3,a,f8.4)') 'cluster', cl, ' mean speed m/s ', vcl(cl)/max(ncl(cl),1)
    end do
    write(u, '(a,f10.2)') 'max integral Lagrangian time scale [h] ', tmax/3600.0_dp
    close(u)
  end subroutine report
end module drifter_mod

program ocean_drifter_dispersion_stream
  use drifter_mod
  implicit none
  integer :: u, ios, step, isnap
  real(dp) :: t
  real(dp), allocatable :: absd(:), reld(:), vmean(:), tlag(:)
  if (command_argument_count() /= 1) then
    write(*,'(a)') 'usage: ocean_drifter_dispersion_stream OUTDIR'
    stop 2
  end if
  call get_command_argument(1, outdir)
  call setup_eddies()
  call deploy()
  call write_metadata()
  open(newunit=u, file=trim(outdir)//'/trajectories.bin', access='stream', form='unformatted', &
       status='replace', action='readwrite', iostat=ios)
  call check(ios, 'open trajectories')
  t = 0.0_dp
  isnap = 0
  call write_snapshot(u, isnap, t)
  do step = 1, nsteps
    call advect_step(t)
    t = t + dt
    if (mod(step, nsave) == 0) then
      isnap = isnap + 1
      call write_snapshot(u, isnap, t)
    end if
  end do
  allocate(absd(nsnap), reld(nsnap), vmean(nd), tlag(nd))
  call analyse(u, absd, reld, vmean, tlag)
  close(u)
  call write_drifter_table(vmean, tlag)
  call report(absd, reld)
  write(*,'(a,i0,a,i0,a,es11.4,a,es11.4)') 'drifters: ', nd, ' x ', nsnap, ' snapshots, final abs disp ', &
       absd(nsnap)*1.0e-6_dp, ' km2, rel disp ', reld(nsnap)*1.0e-6_dp
end program ocean_drifter_dispersion_stream
