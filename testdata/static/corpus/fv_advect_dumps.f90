! fv_advect_dumps: second-order finite-volume advection (MUSCL reconstruction
! with a minmod limiter, Heun time stepping) of a passive scalar in a rotating
! velocity field on a doubly periodic grid.  Every DUMP_EVERY steps the field
! is dumped to its own file with unformatted sequential WRITE (one header
! record, then one record per grid row); a formatted diagnostics line is
! written every step and a formatted summary at the end.  All dumps are read
! back and their masses compared with the values recorded when writing.

module sim_params
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 320, ny = 320
  integer, parameter :: nsteps = 240
  integer, parameter :: dump_every = 10
  real(dp), parameter :: cfl = 0.35_dp
  real(dp), parameter :: pi = 3.14159265358979323846_dp
end module sim_params

module fv_solver
  use sim_params
  implicit none
  real(dp), allocatable :: q(:,:), q1(:,:), rhs(:,:)
  real(dp), allocatable :: uface(:,:), vface(:,:)
  real(dp), allocatable :: sx(:,:), sy(:,:), fxf(:,:), fyf(:,:)
  real(dp) :: dx, dy
contains

  subroutine init_fields()
    integer :: i, j
    real(dp) :: x, y, r2
    allocate(q(-1:nx+2, -1:ny+2), q1(-1:nx+2, -1:ny+2), rhs(nx, ny))
    allocate(uface(0:nx, ny), vface(nx, 0:ny))
    allocate(sx(0:nx+1, ny), sy(nx, 0:ny+1), fxf(0:nx, ny), fyf(nx, 0:ny))
    dx = 1.0_dp / nx
    dy = 1.0_dp / ny
    q = 0.0_dp
    do j = 1, ny
      y = (j - 0.5_dp) * dy
      do i = 1, nx
        x = (i - 0.5_dp) * dx
        r2 = (x - 0.35_dp)**2 + (y - 0.5_dp)**2
        q(i, j) = exp(-r2 / 0.004_dp)
        if (abs(x - 0.65_dp) < 0.08_dp .and. abs(y - 0.5_dp) < 0.12_dp) q(i, j) = q(i, j) + 1.0_dp
      end do
    end do
    ! solid-body rotation about the centre, sampled on the faces
    do j = 1, ny
      do i = 0, nx
        uface(i, j) = -2.0_dp * pi * ((j - 0.5_dp) * dy - 0.5_dp)
      end do
    end do
    do j = 0, ny
      do i = 1, nx
        vface(i, j) = 2.0_dp * pi * ((i - 0.5_dp) * dx - 0.5_dp)
      end do
    end do
  end subroutine init_fields

  pure function minmod(a, b) result(m)
    real(dp), intent(in) :: a, b
    real(dp) :: m
    if (a * b <= 0.0_dp) then
      m = 0.0_dp
    else if (abs(a) < abs(b)) then
      m = a
    else
      m = b
    end if
  end function minmod

  subroutine fill_ghosts(f)
    real(dp), intent(inout) :: f(-1:nx+2, -1:ny+2)
    f(-1:0, 1:ny) = f(nx-1:nx, 1:ny)
    f(nx+1:nx+2, 1:ny) = f(1:2, 1:ny)
    f(:, -1:0) = f(:, ny-1:ny)
    f(:, ny+1:ny+2) = f(:, 1:2)
  end subroutine fill_ghosts

  ! Flux divergence of field f into rhs (periodic).  Limited slopes are
  ! computed once per cell, then upwinded face values build the fluxes.
  subroutine compute_rhs(f)
    real(dp), intent(inout) :: f(-1:nx+2, -1:ny+2)
    integer :: i, j
    real(dp) :: ql, qr
    call fill_ghosts(f)
    do j = 1, ny
      do i = 0, nx + 1
        sx(i, j) = minmod(f(i, j) - f(i-1, j), f(i+1, j) - f(i, j))
      end do
    end do
    do j = 0, ny + 1
      do i = 1, nx
        sy(i, j) = minmod(f(i, j) - f(i, j-1), f(i, j+1) - f(i, j))
      end do
    end do
    do j = 1, ny
      do i = 0, nx
        ql = f(i, j) + 0.5_dp * sx(i, j)
        qr = f(i+1, j) - 0.5_dp * sx(i+1, j)
        fxf(i, j) = max(uface(i, j), 0.0_dp) * ql + min(uface(i, j), 0.0_dp) * qr
      end do
    end do
    do j = 0, ny
      do i = 1, nx
        ql = f(i, j) + 0.5_dp * sy(i, j)
        qr = f(i, j+1) - 0.5_dp * sy(i, j+1)
        fyf(i, j) = max(vface(i, j), 0.0_dp) * ql + min(vface(i, j), 0.0_dp) * qr
      end do
    end do
    do j = 1, ny
      do i = 1, nx
        rhs(i, j) = -(fxf(i, j) - fxf(i-1, j)) / dx - (fyf(i, j) - fyf(i, j-1)) / dy
      end do
    end do
  end subroutine compute_rhs

  subroutine heun_step(dt)
    real(dp), intent(in) :: dt
    call compute_rhs(q)
    q1(1:nx, 1:ny) = q(1:nx, 1:ny) + dt * rhs
    call compute_rhs(q1)
    q(1:nx, 1:ny) = 0.5_dp * (q(1:nx, 1:ny) + q1(1:nx, 1:ny) + dt * rhs)
  end subroutine heun_step

  function stable_dt() result(dt)
    real(dp) :: dt
    dt = cfl / (maxval(abs(uface)) / dx + maxval(abs(vface)) / dy)
  end function stable_dt

  function field_mass(f) result(m)
    real(dp), intent(in) :: f(:,:)
    real(dp) :: m
    m = sum(f) * dx * dy
  end function field_mass

end module fv_solver

module dump_io
  use sim_params
  implicit none
contains

  function dump_name(dir, k) result(path)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: k
    character(len=512) :: path
    write(path, '(a,"/dumps/q_",i4.4,".dat")') trim(dir), k
  end function dump_name

  subroutine write_dump(path, step, t, f)
    character(len=*), intent(in) :: path
    integer, intent(in) :: step
    real(dp), intent(in) :: t
    real(dp), intent(in) :: f(-1:nx+2, -1:ny+2)
    integer :: u, j, ios
    open(newunit=u, file=path, form='unformatted', access='sequential', status='replace', &
         action='write', iostat=ios)
    if (ios /= 0) then
      write(*, '(a,a)') 'fv_advect_dumps: cannot open ', trim(path)
      stop 1
    end if
    write(u) step, t, nx, ny
    do j = 1, ny
      write(u) f(1:nx, j)
    end do
    close(u)
  end subroutine write_dump

  ! Re-read one dump; return its mass and extrema.
  subroutine read_dump(path, step, t, mass, fmin, fmax, ok)
    character(len=*), intent(in) :: path
    integer, intent(out) :: step
    real(dp), intent(out) :: t, mass, fmin, fmax
    logical, intent(out) :: ok
    integer :: u, j, ios, mx, my
    real(dp), allocatable :: row(:)
    ok = .false.
    mass = 0.0_dp
    fmin = huge(1.0_dp)
    fmax = -huge(1.0_dp)
    open(newunit=u, file=path, form='unformatted', access='sequential', status='old', &
         action='read', iostat=ios)
    if (ios /= 0) return
    read(u, iostat=ios) step, t, mx, my
    if (ios /= 0 .or. mx /= nx .or. my /= ny) then
      close(u)
      return
    end if
    allocate(row(mx))
    do j = 1, my
      read(u, iostat=ios) row
      if (ios /= 0) then
        close(u)
        return
      end if
      mass = mass + sum(row)
      fmin = min(fmin, minval(row))
      fmax = max(fmax, maxval(row))
    end do
    close(u)
    mass = mass / (real(nx, dp) * real(ny, dp))
    ok = .true.
  end subroutine read_dump

end module dump_io

program fv_advect_dumps
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_null_char
  use sim_params
  use fv_solver
  use dump_io
  implicit none
  interface
    function c_mkdir(path, mode) bind(C, name='mkdir') result(r)
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: path
      integer(c_int), value :: mode
      integer(c_int) :: r
    end function c_mkdir
  end interface

  character(len=400) :: dir
  integer :: step, ndump, k, ios, udiag, usum, rstep, nbad
  integer(c_int) :: rc
  real(dp) :: dt, t, mass0, m, rt, rmass, rmin, rmax
  real(dp), allocatable :: dump_mass(:), dump_time(:)
  logical :: ok

  if (command_argument_count() /= 1) then
    write(*, '(a)') 'usage: fv_advect_dumps OUTDIR'
    stop 2
  end if
  call get_command_argument(1, dir)
  rc = c_mkdir(trim(dir) // c_null_char, int(o'755', c_int))
  rc = c_mkdir(trim(dir) // '/dumps' // c_null_char, int(o'755', c_int))

  call init_fields()
  dt = stable_dt()
  t = 0.0_dp
  mass0 = field_mass(q(1:nx, 1:ny))
  allocate(dump_mass(nsteps / dump_every), dump_time(nsteps / dump_every))

  open(newunit=udiag, file=trim(dir) // '/diagnostics.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) then
    write(*, '(a)') 'fv_advect_dumps: cannot open diagnostics file'
    stop 1
  end if
  write(udiag, '(a)') '#  step          time            mass             min             max'
  ndump = 0
  do step = 1, nsteps
    call heun_step(dt)
    t = t + dt
    m = field_mass(q(1:nx, 1:ny))
    write(udiag, '(i7,4es16.8)') step, t, m, minval(q(1:nx, 1:ny)), maxval(q(1:nx, 1:ny))
    if (mod(step, dump_every) == 0) then
      ndump = ndump + 1
      call write_dump(dump_name(trim(dir), ndump), step, t, q)
      dump_mass(ndump) = m
      dump_time(ndump) = t
    end if
  end do
  close(udiag)

  nbad = 0
  open(newunit=usum, file=trim(dir) // '/summary.txt', status='replace', action='write')
  write(usum, '(a,i5,a,i5,a,es12.4)') 'grid ', nx, ' x ', ny, '  dt ', dt
  do k = 1, ndump
    call read_dump(dump_name(trim(dir), k), rstep, rt, rmass, rmin, rmax, ok)
    if (.not. ok) then
      nbad = nbad + 1
      cycle
    end if
    if (abs(rmass - dump_mass(k)) > 1.0e-12_dp * abs(dump_mass(k)) .or. rt /= dump_time(k)) nbad = nbad + 1
    write(usum, '(a,i4,a,i6,a,f10.6,a,es18.10,a,2f10.5)') 'dump ', k, ' step ', rstep, ' t ', rt, &
         ' mass ', rmass, ' range ', rmin, rmax
  end do
  write(usum, '(a,es12.4)') 'relative mass drift ', abs(dump_mass(ndump) - mass0) / mass0
  write(usum, '(a,i4)') 'mismatches ', nbad
  close(usum)

  if (nbad /= 0 .or. abs(dump_mass(ndump) - mass0) > 1.0e-10_dp * mass0) then
    write(*, '(a,i4)') 'fv_advect_dumps: check FAILED, mismatches ', nbad
    stop 1
  end if
  write(*, '(a,i4,a)') 'fv_advect_dumps: ok (', ndump, ' dumps verified)'
end program fv_advect_dumps
