! richards_infiltration_nml.f90
!
! One-dimensional Richards-equation infiltration for a set of soil columns
! (van Genuchten-Mualem hydraulics, mixed-form Picard iteration with a
! tridiagonal solver).  The run configuration is written as a namelist file
! and read back; each column writes formatted moisture profiles at output
! times to its own text file, a formatted per-step water-balance log, and an
! unformatted sequential state file at the end.  A final pass re-reads all
! state files and prints a formatted summary table.
module soil_hydraulics
  implicit none
  integer, parameter :: dp = kind(1.0d0)

  type :: soil_t
     character(len=16) :: name
     real(dp) :: theta_r, theta_s, alpha, n, ks
  end type soil_t

  type :: run_cfg_t
     integer :: nz, nsteps, out_every, ncols
     real(dp) :: depth, dt, rain_rate, se_init
  end type run_cfg_t

contains

  subroutine write_config(path)
    character(len=*), intent(in) :: path
    integer :: nz, nsteps, out_every, ncols, u
    real(dp) :: depth, dt, rain_rate, se_init
    namelist /run/ nz, nsteps, out_every, ncols, depth, dt, rain_rate, se_init
    nz = 160; nsteps = 900; out_every = 12; ncols = 10
    depth = 2.0_dp; dt = 80.0_dp; rain_rate = 5.0e-7_dp; se_init = 0.35_dp
    open(newunit=u, file=path, status='replace', action='write')
    write(u, nml=run)
    close(u)
  end subroutine write_config

  subroutine read_config(path, cfg)
    character(len=*), intent(in) :: path
    type(run_cfg_t), intent(out) :: cfg
    integer :: nz, nsteps, out_every, ncols, u
    real(dp) :: depth, dt, rain_rate, se_init
    namelist /run/ nz, nsteps, out_every, ncols, depth, dt, rain_rate, se_init
    open(newunit=u, file=path, status='old', action='read')
    read(u, nml=run)
    close(u)
    cfg = run_cfg_t(nz, nsteps, out_every, ncols, depth, dt, rain_rate, se_init)
  end subroutine read_config

  elemental subroutine van_genuchten(h, s, theta, k, c)
    real(dp), intent(in) :: h
    type(soil_t), intent(in) :: s
    real(dp), intent(out) :: theta, k, c
    real(dp) :: m, se, ah
    m = 1.0_dp - 1.0_dp / s%n
    if (h >= 0.0_dp) then
       theta = s%theta_s; k = s%ks; c = 1.0e-8_dp
       return
    end if
    ah = (s%alpha * abs(h))**s%n
    se = (1.0_dp + ah)**(-m)
    theta = s%theta_r + (s%theta_s - s%theta_r) * se
    k = s%ks * sqrt(se) * (1.0_dp - (1.0_dp - se**(1.0_dp / m))**m)**2
    c = (s%theta_s - s%theta_r) * m * s%n * s%alpha * (s%alpha * abs(h))**(s%n - 1.0_dp) &
         * (1.0_dp + ah)**(-m - 1.0_dp) + 1.0e-8_dp
  end subroutine van_genuchten

  ! Pressure head (m) at which the effective saturation equals se.
  real(dp) function initial_head(s, se) result(h)
    type(soil_t), intent(in) :: s
    real(dp), intent(in) :: se
    real(dp) :: m
    m = 1.0_dp - 1.0_dp / s%n
    h = -(1.0_dp / s%alpha) * (se**(-1.0_dp / m) - 1.0_dp)**(1.0_dp / s%n)
  end function initial_head

  subroutine thomas(a, b, c, d, x, n)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n), b(n), c(n), d(n)
    real(dp), intent(out) :: x(n)
    real(dp) :: cp(n), dp_(n), m
    integer :: i
    cp(1) = c(1) / b(1); dp_(1) = d(1) / b(1)
    do i = 2, n
       m = b(i) - a(i) * cp(i-1)
       cp(i) = c(i) / m
       dp_(i) = (d(i) - a(i) * dp_(i-1)) / m
    end do
    x(n) = dp_(n)
    do i = n - 1, 1, -1
       x(i) = dp_(i) - cp(i) * x(i+1)
    end do
  end subroutine thomas

  ! One implicit time step; returns the number of Picard iterations used.
  integer function richards_step(h, nz, dz, dt, s, q_top) result(iters)
    integer, intent(in) :: nz
    real(dp), intent(inout) :: h(nz)
    real(dp), intent(in) :: dz, dt, q_top
    type(soil_t), intent(in) :: s
    real(dp) :: th_old(nz), th(nz), k(nz), c(nz), hn(nz), kf(nz+1)
    real(dp) :: a(nz), b(nz), cc(nz), d(nz), hnew(nz)
    integer :: i
    call van_genuchten(h, s, th_old, k, c)
    hn = h
    do iters = 1, 25
       call van_genuchten(hn, s, th, k, c)
       kf(2:nz) = 0.5_dp * (k(1:nz-1) + k(2:nz))
       kf(1) = k(1); kf(nz+1) = k(nz)
       do i = 1, nz
          a(i) = 0; cc(i) = 0
          b(i) = c(i) / dt
          d(i) = c(i) * hn(i) / dt - (th(i) - th_old(i)) / dt
          if (i > 1) then
             a(i) = -kf(i) / dz**2
             b(i) = b(i) + kf(i) / dz**2
             d(i) = d(i) + kf(i) / dz          ! gravity flux from above
          else
             d(i) = d(i) + q_top / dz          ! prescribed infiltration flux
          end if
          if (i < nz) then
             cc(i) = -kf(i+1) / dz**2
             b(i) = b(i) + kf(i+1) / dz**2
             d(i) = d(i) - kf(i+1) / dz        ! gravity flux to below
          else
             d(i) = d(i) - k(nz) / dz          ! free drainage
          end if
       end do
       call thomas(a, b, cc, d, hnew, nz)
       if (maxval(abs(hnew - hn)) < 1.0e-6_dp) then
          hn = hnew
          exit
       end if
       hn = hnew
    end do
    if (iters > 25) iters = 25
    h = hn
  end function richards_step

  subroutine write_profile(u, t, h, nz, dz, s)
    integer, intent(in) :: u, nz
    real(dp), intent(in) :: t, h(nz), dz
    type(soil_t), intent(in) :: s
    real(dp) :: th(nz), k(nz), c(nz)
    integer :: i
    call van_genuchten(h, s, th, k, c)
    write(u, '(a,f12.1,a)') '# time ', t, ' s'
    do i = 1, nz
       write(u, '(f8.4,1x,es14.6,1x,f9.5,1x,es12.4)') (i - 0.5_dp) * dz, h(i), th(i), k(i)
    end do
    write(u, *)
  end subroutine write_profile

  subroutine save_state(path, name, t, h, nz, infil)
    character(len=*), intent(in) :: path, name
    integer, intent(in) :: nz
    real(dp), intent(in) :: t, h(nz), infil
    integer :: u
    open(newunit=u, file=path, form='unformatted', access='sequential', status='replace')
    write(u) name
    write(u) nz, t, infil
    write(u) h
    close(u)
  end subroutine save_state

  subroutine load_state(path, name, t, h, nz, infil)
    character(len=*), intent(in) :: path
    character(len=16), intent(out) :: name
    integer, intent(out) :: nz
    real(dp), intent(out) :: t, infil
    real(dp), allocatable, intent(out) :: h(:)
    integer :: u
    open(newunit=u, file=path, form='unformatted', access='sequential', status='old')
    read(u) name
    read(u) nz, t, infil
    allocate(h(nz))
    read(u) h
    close(u)
  end subroutine load_state

end module soil_hydraulics

program richards_infiltration_nml
  use soil_hydraulics
  implicit none
  character(len=512) :: dir, path
  type(run_cfg_t) :: cfg
  type(soil_t) :: soils(6), s
  real(dp), allocatable :: h(:), h2(:)
  real(dp) :: dz, t, infil, store0, store1, th_dummy, k_dummy, c_dummy
  real(dp), allocatable :: th(:), kk(:), cc(:)
  integer :: col, step, it, u_prof, u_log, nz2, total_iters
  character(len=16) :: nm

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) stop 'usage: richards_infiltration_nml DIR'

  soils(1) = soil_t('sand', 0.045_dp, 0.43_dp, 14.5_dp, 2.68_dp, 8.25e-5_dp)
  soils(2) = soil_t('loamy_sand', 0.057_dp, 0.41_dp, 12.4_dp, 2.28_dp, 4.05e-5_dp)
  soils(3) = soil_t('sandy_loam', 0.065_dp, 0.41_dp, 7.5_dp, 1.89_dp, 1.23e-5_dp)
  soils(4) = soil_t('loam', 0.078_dp, 0.43_dp, 3.6_dp, 1.56_dp, 2.89e-6_dp)
  soils(5) = soil_t('silt_loam', 0.067_dp, 0.45_dp, 2.0_dp, 1.41_dp, 1.25e-6_dp)
  soils(6) = soil_t('clay_loam', 0.095_dp, 0.41_dp, 1.9_dp, 1.31_dp, 7.22e-7_dp)

  path = trim(dir) // '/infiltration.nml'
  call write_config(trim(path))
  call read_config(trim(path), cfg)
  dz = cfg%depth / cfg%nz
  allocate(h(cfg%nz), th(cfg%nz), kk(cfg%nz), cc(cfg%nz))

  open(newunit=u_log, file=trim(dir)//'/water_balance.log', status='replace', action='write')
  do col = 1, cfg%ncols
     s = soils(mod(col - 1, 6) + 1)
     h = initial_head(s, cfg%se_init * (1.0_dp - 0.05_dp * (col / 6)))
     write(path, '(a,a,i2.2,a)') trim(dir), '/profile_col', col, '.txt'
     open(newunit=u_prof, file=trim(path), status='replace', action='write')
     write(u_prof, '(a,a)') '# soil ', trim(s%name)
     call van_genuchten(h, s, th, kk, cc)
     store0 = sum(th) * dz
     infil = 0; t = 0; total_iters = 0
     do step = 1, cfg%nsteps
        it = richards_step(h, cfg%nz, dz, cfg%dt, s, cfg%rain_rate)
        total_iters = total_iters + it
        t = t + cfg%dt
        infil = infil + cfg%rain_rate * cfg%dt
        call van_genuchten(h, s, th, kk, cc)
        store1 = sum(th) * dz
        write(u_log, '(i3,1x,i6,1x,f10.1,1x,i3,3(1x,es13.5))') col, step, t, it, store1 - store0, &
             infil, kk(cfg%nz) * t
        if (mod(step, cfg%out_every) == 0) call write_profile(u_prof, t, h, cfg%nz, dz, s)
     end do
     close(u_prof)
     write(path, '(a,a,i2.2,a)') trim(dir), '/state_col', col, '.bin'
     call save_state(trim(path), s%name, t, h, cfg%nz, infil)
  end do
  close(u_log)

  print '(a)', ' col soil              time_s     infil_m   mean_head   surface_theta'
  do col = 1, cfg%ncols
     write(path, '(a,a,i2.2,a)') trim(dir), '/state_col', col, '.bin'
     call load_state(trim(path), nm, t, h2, nz2, infil)
     s = soils(mod(col - 1, 6) + 1)
     call van_genuchten(h2(1), s, th_dummy, k_dummy, c_dummy)
     print '(i4,1x,a16,f10.1,es12.4,f12.4,f12.5)', col, nm, t, infil, sum(h2) / nz2, th_dummy
     deallocate(h2)
  end do
end program richards_infiltration_nml
