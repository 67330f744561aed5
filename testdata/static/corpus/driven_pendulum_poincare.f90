! Damped, periodically driven pendulum: reads its run parameters from a
! namelist file (written first, as a user would), sweeps the drive
! amplitude to build a Poincare-section bifurcation diagram (formatted
! text, one line per section point), dumps full phase-space trajectories
! for a few selected amplitudes (one file each), estimates the largest
! Lyapunov exponent per amplitude, and re-reads the diagram to classify the
! attractor period of every amplitude.
module pendulum_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp

  type :: pend_cfg
     real(dp) :: damping, omega_d, drive_min, drive_max
     integer :: n_drive, n_transient, n_record, steps_per_period, n_dumps
  end type pend_cfg

contains

  subroutine write_config(path)
    character(len=*), intent(in) :: path
    real(dp) :: damping, omega_d, drive_min, drive_max
    integer :: n_drive, n_transient, n_record, steps_per_period, n_dumps, u
    namelist /pendulum_run/ damping, omega_d, drive_min, drive_max, n_drive, &
         n_transient, n_record, steps_per_period, n_dumps
    damping = 0.5_dp; omega_d = 2.0_dp / 3.0_dp
    drive_min = 0.9_dp; drive_max = 1.5_dp
    n_drive = 300; n_transient = 120; n_record = 96
    steps_per_period = 96; n_dumps = 20
    open(newunit=u, file=path, status='replace', action='write')
    write(u, nml=pendulum_run)
    close(u)
  end subroutine write_config

  subroutine read_config(path, cfg)
    character(len=*), intent(in) :: path
    type(pend_cfg), intent(out) :: cfg
    real(dp) :: damping, omega_d, drive_min, drive_max
    integer :: n_drive, n_transient, n_record, steps_per_period, n_dumps, u
    namelist /pendulum_run/ damping, omega_d, drive_min, drive_max, n_drive, &
         n_transient, n_record, steps_per_period, n_dumps
    open(newunit=u, file=path, status='old', action='read')
    read(u, nml=pendulum_run)
    close(u)
    cfg = pend_cfg(damping, omega_d, drive_min, drive_max, n_drive, n_transient, &
         n_record, steps_per_period, n_dumps)
  end subroutine read_config

  pure subroutine rhs(t, y, q, g, wd, dy)
    real(dp), intent(in) :: t, y(4), q, g, wd
    real(dp), intent(out) :: dy(4)
    ! y(1:2) = (theta, omega); y(3:4) = tangent vector
    dy(1) = y(2)
    dy(2) = -q * y(2) - sin(y(1)) + g * cos(wd * t)
    dy(3) = y(4)
    dy(4) = -cos(y(1)) * y(3) - q * y(4)
  end subroutine rhs

  pure subroutine rk4_step(t, y, h, q, g, wd)
    real(dp), intent(inout) :: t, y(4)
    real(dp), intent(in) :: h, q, g, wd
    real(dp) :: k1(4), k2(4), k3(4), k4(4)
    call rhs(t, y, q, g, wd, k1)
    call rhs(t + 0.5_dp*h, y + 0.5_dp*h*k1, q, g, wd, k2)
    call rhs(t + 0.5_dp*h, y + 0.5_dp*h*k2, q, g, wd, k3)
    call rhs(t + h, y + h*k3, q, g, wd, k4)
    y = y + h * (k1 + 2*k2 + 2*k3 + k4) / 6.0_dp
    t = t + h
  end subroutine rk4_step

  ! integrate one drive period; renormalise the tangent vector and
  ! return its log growth
  subroutine integrate_period(cfg, g, t, y, lgrowth, traj_unit)
    type(pend_cfg), intent(in) :: cfg
    real(dp), intent(in) :: g
    real(dp), intent(inout) :: t, y(4)
    real(dp), intent(out) :: lgrowth
    integer, intent(in) :: traj_unit
    real(dp) :: h, nrm
    integer :: s
    h = 2.0_dp * pi / cfg%omega_d / cfg%steps_per_period
    do s = 1, cfg%steps_per_period
       call rk4_step(t, y, h, cfg%damping, g, cfg%omega_d)
       if (traj_unit /= 0) write(traj_unit, '(f12.5,2(1x,es15.7))') t, modulo(y(1) + pi, 2*pi) - pi, y(2)
    end do
    nrm = sqrt(y(3)**2 + y(4)**2)
    lgrowth = log(nrm)
    y(3:4) = y(3:4) / nrm
  end subroutine integrate_period

  subroutine scan_bifurcation(cfg, dir, lyap)
    type(pend_cfg), intent(in) :: cfg
    character(len=*), intent(in) :: dir
    real(dp), intent(out) :: lyap(:)
    integer :: i, p, ub, ut, dump_every
    real(dp) :: g, t, y(4), lg, acc
    character(len=300) :: fname
    open(newunit=ub, file=trim(dir)//'/bifurcation.dat', status='replace', action='write')
    write(ub, '(a)') '# drive_amplitude  theta  omega'
    dump_every = max(1, cfg%n_drive / cfg%n_dumps)
    do i = 1, cfg%n_drive
       g = cfg%drive_min + (cfg%drive_max - cfg%drive_min) * (i - 1) / max(1, cfg%n_drive - 1)
       t = 0; y = [0.2_dp, 0.0_dp, 1.0_dp, 0.0_dp]
       do p = 1, cfg%n_transient
          call integrate_period(cfg, g, t, y, lg, 0)
       end do
       ut = 0
       if (mod(i - 1, dump_every) == 0) then
          write(fname, '(a,"/trajectory_g",f6.4,".txt")') trim(dir), g
          open(newunit=ut, file=trim(fname), status='replace', action='write')
          write(ut, '(a,f8.5)') '# t theta omega for drive amplitude ', g
       end if
       acc = 0
       do p = 1, cfg%n_record
          call integrate_period(cfg, g, t, y, lg, merge(ut, 0, p <= 40))
          acc = acc + lg
          write(ub, '(f9.6,2(1x,f12.7))') g, modulo(y(1) + pi, 2*pi) - pi, y(2)
       end do
       if (ut /= 0) close(ut)
       lyap(i) = acc / (cfg%n_record * 2 * pi / cfg%omega_d)
    end do
    close(ub)
  end subroutine scan_bifurcation

  ! read the diagram back; count distinct section points per amplitude
  subroutine classify_periods(cfg, dir, lyap)
    type(pend_cfg), intent(in) :: cfg
    character(len=*), intent(in) :: dir
    real(dp), intent(in) :: lyap(:)
    real(dp), allocatable :: th(:), om(:)
    real(dp) :: g
    integer :: ub, uo, i, p, k, ndist, nchaos
    logical :: seen
    character(len=64) :: hdr
    allocate(th(cfg%n_record), om(cfg%n_record))
    open(newunit=ub, file=trim(dir)//'/bifurcation.dat', status='old', action='read')
    read(ub, '(a)') hdr
    open(newunit=uo, file=trim(dir)//'/period_table.txt', status='replace', action='write')
    write(uo, '(a)') '  drive      lyapunov   n_distinct  class'
    nchaos = 0
    do i = 1, cfg%n_drive
       do p = 1, cfg%n_record
          read(ub, *) g, th(p), om(p)
       end do
       ndist = 0
       do p = 1, cfg%n_record
          seen = .false.
          do k = 1, p - 1
             if (abs(th(p) - th(k)) + abs(om(p) - om(k)) < 1.0e-3_dp) then
                seen = .true.; exit
             end if
          end do
          if (.not. seen) ndist = ndist + 1
       end do
       if (ndist > 16) nchaos = nchaos + 1
       write(uo, '(f9.5,1x,es12.4,1x,i8,2x,a)') g, lyap(i), ndist, &
            merge('chaotic ', 'periodic', ndist > 16)
    end do
    close(ub); close(uo)
    print '(a,i0,a,i0)', 'amplitudes=', cfg%n_drive, ' chaotic=', nchaos
  end subroutine classify_periods

end module pendulum_mod

program driven_pendulum_poincare
  use pendulum_mod
  implicit none
  character(len=256) :: dir
  type(pend_cfg) :: cfg
  real(dp), allocatable :: lyap(:)
  if (command_argument_count() /= 1) stop 'usage: driven_pendulum_poincare DIR'
  call get_command_argument(1, dir)
  call write_config(trim(dir)//'/pendulum.nml')
  call read_config(trim(dir)//'/pendulum.nml', cfg)
  allocate(lyap(cfg%n_drive))
  call scan_bifurcation(cfg, trim(dir), lyap)
  call classify_periods(cfg, trim(dir), lyap)
end program driven_pendulum_poincare
