! Nonlinear 2-D shallow-water equations on a periodic box, Lax-Friedrichs scheme.
! Parameters come from a NAMELIST file (written first, then read back); at the end
! the state is saved as a formatted restart file, which is re-read and compared.
module swe_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)

  integer :: nx = 64, ny = 64, nsteps = 10
  real(dp) :: lx = 1.0_dp, ly = 1.0_dp, grav = 9.81_dp, cfl = 0.4_dp
  real(dp) :: h0 = 1.0_dp, drop_height = 0.1_dp, drop_radius = 0.1_dp
  real(dp) :: drop_x = 0.5_dp, drop_y = 0.5_dp
  character(len=64) :: restart_name = 'restart.txt'
  namelist /swe_params/ nx, ny, nsteps, lx, ly, grav, cfl, h0, &
       drop_height, drop_radius, drop_x, drop_y, restart_name

contains

  subroutine write_param_file(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='replace', action='write', form='formatted')
    write(u, '(a)') '! shallow-water run configuration'
    write(u, '(a)') '&swe_params'
    write(u, '(a)') '  nx = 224, ny = 192,'
    write(u, '(a)') '  nsteps = 600,'
    write(u, '(a)') '  lx = 2.0, ly = 1.5,'
    write(u, '(a)') '  grav = 9.81,'
    write(u, '(a)') '  cfl = 0.35,'
    write(u, '(a)') '  h0 = 1.0,'
    write(u, '(a)') '  drop_height = 0.25, drop_radius = 0.12,'
    write(u, '(a)') '  drop_x = 0.7, drop_y = 0.6,'
    write(u, '(a)') "  restart_name = 'swe_restart.txt'"
    write(u, '(a)') '/'
    close(u)
  end subroutine write_param_file

  subroutine read_param_file(path)
    character(len=*), intent(in) :: path
    integer :: u, ios
    open(newunit=u, file=path, status='old', action='read', form='formatted')
    read(u, nml=swe_params, iostat=ios)
    close(u)
    if (ios /= 0) then
       write(*, *) 'namelist read failed, iostat =', ios
       error stop 1
    end if
    if (nx < 8 .or. ny < 8 .or. nsteps < 1) error stop 'bad parameters'
  end subroutine read_param_file

  subroutine init_drop(h, hu, hv, dx, dy)
    real(dp), intent(out) :: h(:,:), hu(:,:), hv(:,:)
    real(dp), intent(in) :: dx, dy
    integer :: i, j
    real(dp) :: x, y, r2
    do j = 1, ny
       y = (j - 0.5_dp) * dy
       do i = 1, nx
          x = (i - 0.5_dp) * dx
          r2 = ((x - drop_x)**2 + (y - drop_y)**2) / drop_radius**2
          h(i, j) = h0 + drop_height * exp(-r2)
       end do
    end do
    hu = 0.0_dp
    hv = 0.0_dp
  end subroutine init_drop

  function stable_dt(h, hu, hv, dx, dy) result(dt)
    real(dp), intent(in) :: h(:,:), hu(:,:), hv(:,:), dx, dy
    real(dp) :: dt, c, smax
    integer :: i, j
    smax = 0.0_dp
    do j = 1, ny
       do i = 1, nx
          c = sqrt(grav * h(i, j))
          smax = max(smax, abs(hu(i, j) / h(i, j)) + c, abs(hv(i, j) / h(i, j)) + c)
       end do
    end do
    dt = cfl * min(dx, dy) / smax
  end function stable_dt

  subroutine lax_friedrichs_step(h, hu, hv, dt, dx, dy)
    real(dp), intent(inout) :: h(:,:), hu(:,:), hv(:,:)
    real(dp), intent(in) :: dt, dx, dy
    real(dp), allocatable :: f1(:,:), f2(:,:), f3(:,:), g1(:,:), g2(:,:), g3(:,:)
    real(dp), allocatable :: hn(:,:), hun(:,:), hvn(:,:)
    integer :: i, j, ip, im, jp, jm
    real(dp) :: u, v, p, ax, ay

    allocate(f1(nx,ny), f2(nx,ny), f3(nx,ny), g1(nx,ny), g2(nx,ny), g3(nx,ny))
    allocate(hn(nx,ny), hun(nx,ny), hvn(nx,ny))
    do j = 1, ny
       do i = 1, nx
          u = hu(i, j) / h(i, j)
          v = hv(i, j) / h(i, j)
          p = 0.5_dp * grav * h(i, j)**2
          f1(i, j) = hu(i, j)
          f2(i, j) = hu(i, j) * u + p
          f3(i, j) = hu(i, j) * v
          g1(i, j) = hv(i, j)
          g2(i, j) = hv(i, j) * u
          g3(i, j) = hv(i, j) * v + p
       end do
    end do
    ax = dt / (2.0_dp * dx)
    ay = dt / (2.0_dp * dy)
    do j = 1, ny
       jp = modulo(j, ny) + 1
       jm = modulo(j - 2, ny) + 1
       do i = 1, nx
          ip = modulo(i, nx) + 1
          im = modulo(i - 2, nx) + 1
          hn(i, j) = 0.25_dp * (h(ip, j) + h(im, j) + h(i, jp) + h(i, jm)) &
               - ax * (f1(ip, j) - f1(im, j)) - ay * (g1(i, jp) - g1(i, jm))
          hun(i, j) = 0.25_dp * (hu(ip, j) + hu(im, j) + hu(i, jp) + hu(i, jm)) &
               - ax * (f2(ip, j) - f2(im, j)) - ay * (g2(i, jp) - g2(i, jm))
          hvn(i, j) = 0.25_dp * (hv(ip, j) + hv(im, j) + hv(i, jp) + hv(i, jm)) &
               - ax * (f3(ip, j) - f3(im, j)) - ay * (g3(i, jp) - g3(i, jm))
       end do
    end do
    h = hn
    hu = hun
    hv = hvn
    deallocate(f1, f2, f3, g1, g2, g3, hn, hun, hvn)
  end subroutine lax_friedrichs_step

  subroutine integrals(h, hu, hv, dx, dy, mass, energy)
    real(dp), intent(in) :: h(:,:), hu(:,:), hv(:,:), dx, dy
    real(dp), intent(out) :: mass, energy
    integer :: i, j
    mass = 0.0_dp
    energy = 0.0_dp
    do j = 1, ny
       do i = 1, nx
          mass = mass + h(i, j)
          energy = energy + 0.5_dp * (hu(i, j)**2 + hv(i, j)**2) / h(i, j) &
               + 0.5_dp * grav * h(i, j)**2
       end do
    end do
    mass = mass * dx * dy
    energy = energy * dx * dy
  end subroutine integrals

  subroutine write_restart(path, step, time, h, hu, hv)
    character(len=*), intent(in) :: path
    integer, intent(in) :: step
    real(dp), intent(in) :: time, h(:,:), hu(:,:), hv(:,:)
    integer :: u, i, j
    open(newunit=u, file=path, status='replace', action='write', form='formatted')
    write(u, '(a)') '# swe_namelist restart: i j h hu hv'
    write(u, '(3i8)') nx, ny, step
    write(u, '(es24.16)') time
    do j = 1, ny
       do i = 1, nx
          write(u, '(2i6,3es24.16)') i, j, h(i, j), hu(i, j), hv(i, j)
       end do
    end do
    close(u)
  end subroutine write_restart

  subroutine verify_restart(path, step, time, h, hu, hv)
    character(len=*), intent(in) :: path
    integer, intent(in) :: step
    real(dp), intent(in) :: time, h(:,:), hu(:,:), hv(:,:)
    character(len=80) :: line
    integer :: u, i, j, ii, jj, rnx, rny, rstep, nbad
    real(dp) :: rtime, a, b, c, err
    open(newunit=u, file=path, status='old', action='read', form='formatted')
    read(u, '(a)') line
    read(u, '(3i8)') rnx, rny, rstep
    read(u, '(es24.16)') rtime
    if (rnx /= nx .or. rny /= ny .or. rstep /= step) error stop 'restart header mismatch'
    if (abs(rtime - time) > 1.0e-14_dp * abs(time)) error stop 'restart time mismatch'
    nbad = 0
    err = 0.0_dp
    do j = 1, ny
       do i = 1, nx
          read(u, '(2i6,3es24.16)') ii, jj, a, b, c
          if (ii /= i .or. jj /= j) nbad = nbad + 1
          err = max(err, abs(a - h(i, j)), abs(b - hu(i, j)), abs(c - hv(i, j)))
       end do
    end do
    close(u)
    if (nbad > 0 .or. err > 1.0e-13_dp) then
       write(*, *) 'restart mismatch: bad indices', nbad, ' max error', err
       error stop 1
    end if
  end subroutine verify_restart

end module swe_mod

program swe_namelist
  use swe_mod
  implicit none
  character(len=512) :: dir
  real(dp), allocatable :: h(:,:), hu(:,:), hv(:,:)
  real(dp) :: dx, dy, dt, time, mass0, energy0, mass, energy
  integer :: step

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) error stop 'usage: swe_namelist DIR'

  call write_param_file(trim(dir) // '/swe.nml')
  call read_param_file(trim(dir) // '/swe.nml')

  allocate(h(nx, ny), hu(nx, ny), hv(nx, ny))
  dx = lx / nx
  dy = ly / ny
  call init_drop(h, hu, hv, dx, dy)
  call integrals(h, hu, hv, dx, dy, mass0, energy0)

  time = 0.0_dp
  do step = 1, nsteps
     dt = stable_dt(h, hu, hv, dx, dy)
     call lax_friedrichs_step(h, hu, hv, dt, dx, dy)
     time = time + dt
  end do
  call integrals(h, hu, hv, dx, dy, mass, energy)

  write(*, '(a,i6,a,es12.4,a,es12.4,a,es12.4)') 'steps', nsteps, '  t =', time, &
       '  mass drift', (mass - mass0) / mass0, '  energy change', (energy - energy0) / energy0
  if (abs(mass - mass0) > 1.0e-10_dp * mass0) error stop 'mass not conserved'
  if (energy > energy0 * (1.0_dp + 1.0e-9_dp)) error stop 'energy increased'
  if (minval(h) <= 0.0_dp) error stop 'negative depth'

  call write_restart(trim(dir) // '/' // trim(restart_name), nsteps, time, h, hu, hv)
  call verify_restart(trim(dir) // '/' // trim(restart_name), nsteps, time, h, hu, hv)
  write(*, '(a)') 'restart verified'
end program swe_namelist
