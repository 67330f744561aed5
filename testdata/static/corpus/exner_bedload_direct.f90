! exner_bedload_direct.f90
!
! 1-D river morphodynamics: a flood hydrograph passes through a gravel-bed
! reach with a sediment-starved upstream boundary.  Each time step solves
! the gradually-varied-flow (backwater) profile by the standard-step method
! with Newton iterations, evaluates Meyer-Peter-Mueller bedload, and
! advances the bed with the Exner equation.  Results are kept in two
! unformatted DIRECT-access files:
!   bed_profiles.da   - one record per saved time = the whole bed profile,
!   station_state.da  - one tiny record (z, h, u, qs) per station per save,
!                       laid out station-major, so every save scatters
!                       NX small writes across the file.
! Afterwards the station file is read back station by station (gauge time
! series) and the profile file in reverse time order (erosion budget);
! both analyses are written as formatted text.
!
! usage: exner_bedload_direct DIR

module river_reach
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: g = 9.81_dp, rho = 1000.0_dp, rho_s = 2650.0_dp
  real(dp), parameter :: d50 = 0.012_dp, porosity = 0.4_dp, manning_n = 0.032_dp
  real(dp), parameter :: width = 40.0_dp, theta_c = 0.047_dp

  type :: reach_state
     integer :: nx
     real(dp) :: dx
     real(dp), allocatable :: z(:), h(:), u(:), qs(:)
  end type reach_state

contains

  subroutine init_reach(r, nx, dx)
    type(reach_state), intent(out) :: r
    integer, intent(in) :: nx
    real(dp), intent(in) :: dx
    integer :: i
    r%nx = nx
    r%dx = dx
    allocate(r%z(nx), r%h(nx), r%u(nx), r%qs(nx))
    do i = 1, nx
       ! concave-up profile with a riffle-pool perturbation
       r%z(i) = 12.0_dp * exp(-real(i - 1, dp) * dx / 9000.0_dp) + 0.35_dp * sin(real(i, dp) * 0.21_dp)
    end do
    r%h = 1.0_dp
    r%u = 0.0_dp
    r%qs = 0.0_dp
  end subroutine init_reach

  pure real(dp) function hydrograph(t_hours)
    real(dp), intent(in) :: t_hours
    ! base flow plus a gamma-shaped flood peaking at ~ 30 h
    hydrograph = 60.0_dp + 640.0_dp * (t_hours / 30.0_dp)**3 * exp(3.0_dp * (1.0_dp - t_hours / 30.0_dp))
  end function hydrograph

  pure real(dp) function friction_slope(q, h)
    real(dp), intent(in) :: q, h
    real(dp) :: a, rh, v
    a = width * h
    rh = a / (width + 2.0_dp * h)
    v = q / a
    friction_slope = (manning_n * v)**2 / rh**(4.0_dp / 3.0_dp)
  end function friction_slope

  ! Energy-equation residual between station i (unknown depth hu) and i+1.
  pure real(dp) function step_residual(zi, hu, q, e_down, sf_d, dx)
    real(dp), intent(in) :: zi, hu, q, e_down, sf_d, dx
    step_residual = zi + hu + (q / (width * hu))**2 / (2.0_dp * g) - e_down &
         - 0.5_dp * dx * (friction_slope(q, hu) + sf_d)
  end function step_residual

  ! Standard-step backwater from the downstream end (subcritical), Newton on h.
  subroutine backwater_profile(r, q, h_down)
    type(reach_state), intent(inout) :: r
    real(dp), intent(in) :: q, h_down
    integer :: i, it
    real(dp) :: e_down, hu, f, fp, hc, sf_d, eps
    hc = (q * q / (g * width * width))**(1.0_dp / 3.0_dp)
    r%h(r%nx) = max(h_down, 1.05_dp * hc)
    do i = r%nx - 1, 1, -1
       e_down = r%z(i+1) + r%h(i+1) + (q / (width * r%h(i+1)))**2 / (2.0_dp * g)
       sf_d = friction_slope(q, r%h(i+1))
       hu = r%h(i+1)
       do it = 1, 30
          f = step_residual(r%z(i), hu, q, e_down, sf_d, r%dx)
          if (abs(f) < 1.0e-10_dp) exit
          eps = 1.0e-6_dp * hu
          fp = (step_residual(r%z(i), hu + eps, q, e_down, sf_d, r%dx) - f) / eps
          hu = hu - f / fp
          if (hu < 1.02_dp * hc) hu = 1.02_dp * hc
       end do
       r%h(i) = hu
    end do
    r%u = q / (width * r%h)
  end subroutine backwater_profile

  subroutine bedload_mpm(r, q, feed_ratio)
    type(reach_state), intent(inout) :: r
    real(dp), intent(in) :: q, feed_ratio
    integer :: i
    real(dp) :: tau, theta, rgd
    rgd = sqrt((rho_s / rho - 1.0_dp) * g * d50**3)
    do i = 1, r%nx
       tau = rho * g * friction_slope(q, r%h(i)) * width * r%h(i) / (width + 2.0_dp * r%h(i))
       theta = tau / ((rho_s - rho) * g * d50)
       if (theta > theta_c) then
          r%qs(i) = 8.0_dp * (theta - theta_c)**1.5_dp * rgd
       else
          r%qs(i) = 0.0_dp
       end if
    end do
    ! sediment-starved inlet (dam upstream): feed is a fraction of capacity
    r%qs(1) = feed_ratio * r%qs(1)
  end subroutine bedload_mpm

  subroutine exner_step(r, dt)
    type(reach_state), intent(inout) :: r
    real(dp), intent(in) :: dt
    integer :: i
    real(dp) :: dz(r%nx)
    dz(1) = -dt / (1.0_dp - porosity) * (r%qs(2) - r%qs(1)) / r%dx
    do i = 2, r%nx
       dz(i) = -dt / (1.0_dp - porosity) * (r%qs(i) - r%qs(i-1)) / r%dx
    end do
    dz(r%nx) = 0.0_dp   ! fixed base level
    r%z = r%z + dz
  end subroutine exner_step

end module river_reach

module reach_output
  use river_reach
  implicit none
contains

  subroutine save_profile(u, irec, r)
    integer, intent(in) :: u, irec
    type(reach_state), intent(in) :: r
    write(u, rec=irec) r%z
  end subroutine save_profile

  ! station-major layout: record = (station-1)*nsave + isave
  subroutine save_stations(u, isave, nsave, r)
    integer, intent(in) :: u, isave, nsave
    type(reach_state), intent(in) :: r
    integer :: i
    do i = 1, r%nx
       write(u, rec=(i - 1) * nsave + isave) r%z(i), r%h(i), r%u(i), r%qs(i)
    end do
  end subroutine save_stations

  ! Read each gauge's whole time series back and summarise it.
  subroutine gauge_report(u, path, nx, nsave, every, t_save)
    integer, intent(in) :: u, nx, nsave, every
    character(len=*), intent(in) :: path
    real(dp), intent(in) :: t_save(:)
    integer :: v, i, k, kpk
    real(dp) :: z, h, vel, qs, zmin, zmax, z0, hmax, qsum, tprev
    open(newunit=v, file=trim(path), status='replace', action='write')
    write(v, '(a)') '# station   z_start     z_end    dz_min    dz_max   h_max  t_hmax[h]  load[m3/m]'
    do i = 1, nx, every
       hmax = -1.0_dp; kpk = 1; qsum = 0.0_dp
       read(u, rec=(i - 1) * nsave + 1) z0, h, vel, qs
       zmin = z0; zmax = z0; tprev = t_save(1); z = z0
       do k = 2, nsave
          read(u, rec=(i - 1) * nsave + k) z, h, vel, qs
          zmin = min(zmin, z); zmax = max(zmax, z)
          if (h > hmax) then
             hmax = h; kpk = k
          end if
          qsum = qsum + qs * (t_save(k) - tprev) * 3600.0_dp
          tprev = t_save(k)
       end do
       write(v, '(i8,4f10.4,f8.3,f10.2,es12.4)') i, z0, z, zmin - z0, zmax - z0, hmax, t_save(kpk), qsum
    end do
    close(v)
  end subroutine gauge_report

  ! Walk the profile file backwards in time: erosion/deposition between saves.
  subroutine erosion_budget(u, path, nx, nsave, dx, t_save)
    integer, intent(in) :: u, nx, nsave
    character(len=*), intent(in) :: path
    real(dp), intent(in) :: dx, t_save(:)
    real(dp) :: znew(nx), zold(nx), ero, dep, d
    integer :: v, k, i
    open(newunit=v, file=trim(path), status='replace', action='write')
    write(v, '(a)') '# t_from[h]  t_to[h]   eroded[m3]   deposited[m3]'
    read(u, rec=nsave) znew
    do k = nsave - 1, 1, -1
       read(u, rec=k) zold
       ero = 0.0_dp; dep = 0.0_dp
       do i = 1, nx
          d = (znew(i) - zold(i)) * dx * width
          if (d < 0.0_dp) then
             ero = ero - d
          else
             dep = dep + d
          end if
       end do
       write(v, '(2f10.3,2es14.5)') t_save(k), t_save(k+1), ero, dep
       znew = zold
    end do
    close(v)
  end subroutine erosion_budget

end module reach_output

program exner_bedload_direct
  use river_reach
  use reach_output
  use iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  interface
     function c_mkdir(path, mode) bind(c, name='mkdir') result(rc)
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: path(*)
       integer(c_int), value :: mode
       integer(c_int) :: rc
     end function c_mkdir
  end interface
  integer, parameter :: nx = 400, nsteps = 9000, save_every = 12
  real(dp), parameter :: dx = 30.0_dp, dt = 40.0_dp   ! s
  character(len=400) :: dir
  integer(c_int) :: rc
  type(reach_state) :: r
  integer :: nsave, ubed, usta, ulog, step, isave, rl_bed, rl_sta
  real(dp) :: t, q, dummy4(4)
  real(dp), allocatable :: t_save(:)

  if (command_argument_count() /= 1) then
     write(*,*) 'usage: exner_bedload_direct DIR'
     stop 2
  end if
  call get_command_argument(1, dir)
  rc = c_mkdir(trim(dir) // c_null_char, int(o'755', c_int))   ! EEXIST is fine
  call init_reach(r, nx, dx)
  nsave = nsteps / save_every
  allocate(t_save(nsave))

  inquire(iolength=rl_bed) r%z
  inquire(iolength=rl_sta) dummy4
  open(newunit=ubed, file=trim(dir)//'/bed_profiles.da', access='direct', form='unformatted', &
       recl=rl_bed, status='replace', action='readwrite')
  open(newunit=usta, file=trim(dir)//'/station_state.da', access='direct', form='unformatted', &
       recl=rl_sta, status='replace', action='readwrite')
  open(newunit=ulog, file=trim(dir)//'/hydrograph.log', status='replace', action='write')
  write(ulog, '(a)') '#  step    t[h]     Q[m3/s]   h_out[m]   qs_out[m2/s]  z_mid[m]'

  isave = 0
  t = 0.0_dp
  do step = 1, nsteps
     q = hydrograph(t / 3600.0_dp)
     call backwater_profile(r, q, 1.2_dp + 0.004_dp * q)
     call bedload_mpm(r, q, 0.3_dp)
     call exner_step(r, dt)
     t = t + dt
     if (mod(step, save_every) == 0) then
        isave = isave + 1
        t_save(isave) = t / 3600.0_dp
        call save_profile(ubed, isave, r)
        call save_stations(usta, isave, nsave, r)
        write(ulog, '(i7,f8.2,f12.3,f11.4,es14.5,f10.4)') step, t / 3600.0_dp, q, r%h(nx), r%qs(nx), r%z(nx / 2)
     end if
  end do
  close(ulog)

  call gauge_report(usta, trim(dir)//'/gauges.txt', nx, nsave, 10, t_save)
  call erosion_budget(ubed, trim(dir)//'/erosion_budget.txt', nx, nsave, dx, t_save)
  close(ubed)
  close(usta)
  write(*, '(a,i5,a,i4,a)') 'saved ', nsave, ' states of ', nx, ' stations'
end program exner_bedload_direct
