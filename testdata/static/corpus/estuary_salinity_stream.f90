! estuary_salinity_stream: 1-D tidally forced advection-dispersion of salinity
! along a funnel-shaped estuary (upwind advection, implicit dispersion via a
! tridiagonal solve).  Writes formatted station time series (many short
! records), unformatted sequential snapshots of the whole axis, then reads the
! snapshots back to compute salt-intrusion length statistics and writes the
! tidally averaged field with stream access.
module estuary_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 4000, nsteps = 24000, snap_every = 400, stn_every = 8
  integer, parameter :: nstn = 12
  real(dp), parameter :: length = 80.0e3_dp, dt = 30.0_dp
  type :: estuary_t
     real(dp) :: dx
     real(dp), allocatable :: s(:), area(:), u(:), kx(:), smean(:)
     integer :: nmean = 0
  end type estuary_t
contains

  subroutine setup(e)
    type(estuary_t), intent(inout) :: e
    integer :: i
    real(dp) :: x
    allocate(e%s(nx), e%area(nx), e%u(nx), e%kx(nx), e%smean(nx))
    e%dx = length / nx
    do i = 1, nx
       x = (i - 1) * e%dx
       e%area(i) = 8000.0_dp * exp(-x / 25.0e3_dp) + 400.0_dp
       e%s(i) = 35.0_dp * exp(-x / 15.0e3_dp)
       e%kx(i) = 120.0_dp * exp(-x / 30.0e3_dp) + 5.0_dp
    end do
    e%smean = 0.0_dp
  end subroutine setup

  subroutine set_velocity(e, t, river_q)
    type(estuary_t), intent(inout) :: e
    real(dp), intent(in) :: t, river_q
    real(dp) :: tide
    integer :: i
    tide = 0.9_dp * sin(2.0_dp * 3.141592653589793_dp * t / 44712.0_dp)
    do i = 1, nx
       e%u(i) = -river_q / e%area(i) + tide * e%area(1) / e%area(i) * exp(-(i - 1) * e%dx / 60.0e3_dp)
    end do
  end subroutine set_velocity

  ! upwind advection then implicit dispersion (Thomas algorithm)
  subroutine advance(e)
    type(estuary_t), intent(inout) :: e
    real(dp) :: a(nx), b(nx), c(nx), r(nx), snew(nx), cfl, w
    integer :: i
    snew = e%s
    do i = 2, nx - 1
       cfl = e%u(i) * dt / e%dx
       if (cfl > 0.0_dp) then
          snew(i) = e%s(i) - cfl * (e%s(i) - e%s(i - 1))
       else
          snew(i) = e%s(i) - cfl * (e%s(i + 1) - e%s(i))
       end if
    end do
    do i = 1, nx
       w = e%kx(i) * dt / e%dx**2
       a(i) = -w; c(i) = -w; b(i) = 1.0_dp + 2.0_dp * w; r(i) = snew(i)
    end do
    a(1) = 0; c(1) = 0; b(1) = 1; r(1) = 35.0_dp
    a(nx) = -1; c(nx) = 0; b(nx) = 1; r(nx) = 0
    do i = 2, nx
       w = a(i) / b(i - 1)
       b(i) = b(i) - w * c(i - 1)
       r(i) = r(i) - w * r(i - 1)
    end do
    e%s(nx) = r(nx) / b(nx)
    do i = nx - 1, 1, -1
       e%s(i) = (r(i) - c(i) * e%s(i + 1)) / b(i)
    end do
    e%s = max(0.0_dp, min(35.0_dp, e%s))
  end subroutine advance

  subroutine write_stations(unit, e, step, t)
    type(estuary_t), intent(in) :: e
    integer, intent(in) :: unit, step
    real(dp), intent(in) :: t
    integer :: k, i
    do k = 1, nstn
       i = 1 + (k - 1) * (nx - 1) / (nstn - 1)
       write(unit, '(I7,1X,F10.1,1X,I2,1X,F9.3,1X,ES12.5,1X,F8.4)') step, t / 3600.0_dp, k, &
            (i - 1) * e%dx / 1000.0_dp, e%s(i), e%u(i)
    end do
  end subroutine write_stations

  subroutine write_snapshot(unit, e, step, t)
    type(estuary_t), intent(in) :: e
    integer, intent(in) :: unit, step
    real(dp), intent(in) :: t
    write(unit) step, t
    write(unit) e%s
    write(unit) e%u
  end subroutine write_snapshot

  pure function intrusion_length(s, dx, thresh) result(l)
    real(dp), intent(in) :: s(:), dx, thresh
    real(dp) :: l
    integer :: i
    l = 0.0_dp
    do i = 1, size(s)
       if (s(i) >= thresh) l = (i - 1) * dx
    end do
  end function intrusion_length

  subroutine analyse_snapshots(fname, dx, report_unit, nsnap)
    character(len=*), intent(in) :: fname
    real(dp), intent(in) :: dx
    integer, intent(in) :: report_unit
    integer, intent(out) :: nsnap
    real(dp) :: s(nx), u(nx), t, l2, l10, lmin, lmax, lsum
    integer :: u_in, step, ios
    open(newunit=u_in, file=fname, form='unformatted', access='sequential', status='old', action='read')
    nsnap = 0; lmin = huge(1.0_dp); lmax = 0; lsum = 0
    do
       read(u_in, iostat=ios) step, t
       if (ios /= 0) exit
       read(u_in) s
       read(u_in) u
       l2 = intrusion_length(s, dx, 2.0_dp)
       l10 = intrusion_length(s, dx, 10.0_dp)
       nsnap = nsnap + 1
       lmin = min(lmin, l2); lmax = max(lmax, l2); lsum = lsum + l2
       write(report_unit, '(A,I7,A,F9.2,A,F9.2,A)') 'step ', step, ' L2 ', l2 / 1000, ' km  L10 ', l10 / 1000, ' km'
    end do
    close(u_in)
    write(report_unit, '(A,3F10.2)') 'L2 min/mean/max km: ', lmin / 1000, lsum / max(1, nsnap) / 1000, lmax / 1000
  end subroutine analyse_snapshots
end module estuary_mod

program estuary_salinity_stream
  use estuary_mod
  implicit none
  type(estuary_t) :: e
  character(len=512) :: dir
  integer :: ustn, usnap, urep, ubin, step, nsnap
  real(dp) :: t, q

  if (command_argument_count() < 1) stop 'usage: estuary_salinity_stream dir'
  call get_command_argument(1, dir)
  call setup(e)
  open(newunit=ustn, file=trim(dir)//'/stations.txt', status='replace', action='write')
  open(newunit=usnap, file=trim(dir)//'/snapshots.bin', form='unformatted', access='sequential', &
       status='replace', action='write')
  t = 0
  do step = 1, nsteps
     t = step * dt
     q = 300.0_dp + 200.0_dp * sin(2.0_dp * 3.141592653589793_dp * t / (86400.0_dp * 5))
     call set_velocity(e, t, q)
     call advance(e)
     if (mod(step, stn_every) == 0) call write_stations(ustn, e, step, t)
     if (mod(step, snap_every) == 0) call write_snapshot(usnap, e, step, t)
     if (t > 3 * 44712.0_dp) then
        e%smean = e%smean + e%s
        e%nmean = e%nmean + 1
     end if
  end do
  close(ustn)
  close(usnap)

  open(newunit=urep, file=trim(dir)//'/intrusion_report.txt', status='replace', action='write')
  call analyse_snapshots(trim(dir)//'/snapshots.bin', e%dx, urep, nsnap)
  close(urep)

  open(newunit=ubin, file=trim(dir)//'/tidal_mean.f64', access='stream', form='unformatted', &
       status='replace', action='write')
  write(ubin) nx, e%dx
  write(ubin) e%smean / max(1, e%nmean)
  close(ubin)
  print '(A,I5,A,F8.3)', 'snapshots ', nsnap, ' mean salinity at mid-axis ', e%smean(nx / 2) / max(1, e%nmean)
end program estuary_salinity_stream
