! Crank-Nicolson solution of 1-D heat conduction in a family of rods with different
! diffusivities. Reads its parameters from an input deck it writes first, dumps sampled
! profiles to one CSV per output time, then re-reads them to tabulate errors vs. theory.
module rods_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  integer :: nrods, nx, nsteps, out_every, sample_stride
  real(dp) :: dt, kappa_min, kappa_max
contains

  subroutine write_deck(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '# rod heat conduction input deck'
    write(u, '(a)') 'nrods         = 640'
    write(u, '(a)') 'nx            = 399'
    write(u, '(a)') 'nsteps        = 480'
    write(u, '(a)') 'out_every     = 40'
    write(u, '(a)') 'sample_stride = 8'
    write(u, '(a)') 'dt            = 2.0e-5'
    write(u, '(a)') 'kappa_min     = 0.5'
    write(u, '(a)') 'kappa_max     = 2.0'
    close(u)
  end subroutine write_deck

  subroutine read_deck(path)
    character(len=*), intent(in) :: path
    integer :: u, ios, eq
    character(len=200) :: line, key, val
    open(newunit=u, file=path, status='old', action='read')
    do
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      line = adjustl(line)
      if (len_trim(line) == 0 .or. line(1:1) == '#') cycle
      eq = index(line, '=')
      if (eq == 0) cycle
      key = adjustl(line(:eq - 1))
      val = adjustl(line(eq + 1:))
      select case (trim(key))
      case ('nrods');         read(val, *) nrods
      case ('nx');            read(val, *) nx
      case ('nsteps');        read(val, *) nsteps
      case ('out_every');     read(val, *) out_every
      case ('sample_stride'); read(val, *) sample_stride
      case ('dt');            read(val, *) dt
      case ('kappa_min');     read(val, *) kappa_min
      case ('kappa_max');     read(val, *) kappa_max
      case default
        write(0, '(a)') 'cn_rod_profiles: unknown key '//trim(key)
        error stop 1
      end select
    end do
    close(u)
  end subroutine read_deck

  real(dp) function exact(x, t, kap)
    real(dp), intent(in) :: x, t, kap
    exact = exp(-kap * pi**2 * t) * sin(pi * x) + 0.3_dp * exp(-9.0_dp * kap * pi**2 * t) * sin(3.0_dp * pi * x)
  end function exact

  ! Solve (I - r/2 A) u_new = (I + r/2 A) u_old with the Thomas algorithm.
  subroutine cn_step(u, n, r, cp, dp_)
    integer, intent(in) :: n
    real(dp), intent(inout) :: u(n)
    real(dp), intent(in) :: r
    real(dp), intent(inout) :: cp(n), dp_(n)
    real(dp) :: a, b, rhs, denom, left, right
    integer :: i
    a = -0.5_dp * r
    b = 1.0_dp + r
    do i = 1, n
      left = 0.0_dp
      right = 0.0_dp
      if (i > 1) left = u(i - 1)
      if (i < n) right = u(i + 1)
      rhs = (1.0_dp - r) * u(i) + 0.5_dp * r * (left + right)
      if (i == 1) then
        cp(i) = a / b
        dp_(i) = rhs / b
      else
        denom = b - a * cp(i - 1)
        cp(i) = a / denom
        dp_(i) = (rhs - a * dp_(i - 1)) / denom
      end if
    end do
    u(n) = dp_(n)
    do i = n - 1, 1, -1
      u(i) = dp_(i) - cp(i) * u(i + 1)
    end do
  end subroutine cn_step

  subroutine dump_profiles(dir, step, u, kap)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: step
    real(dp), intent(in) :: u(:, :), kap(:)
    character(len=600) :: fname
    integer :: unit, i, r
    write(fname, '(a,a,i5.5,a)') dir, '/profile_s', step, '.csv'
    open(newunit=unit, file=trim(fname), status='replace', action='write')
    write(unit, '(a,es22.14)') '# t=', step * dt
    write(unit, '(a)', advance='no') 'x'
    do r = 1, nrods, sample_stride
      write(unit, '(a,f9.6)', advance='no') ',k=', kap(r)
    end do
    write(unit, *)
    do i = 1, nx
      write(unit, '(f10.7)', advance='no') real(i, dp) / (nx + 1)
      do r = 1, nrods, sample_stride
        write(unit, '(a,es22.14)', advance='no') ',', u(i, r)
      end do
      write(unit, *)
    end do
    close(unit)
  end subroutine dump_profiles

  subroutine integrate(dir, kap, ndumps)
    character(len=*), intent(in) :: dir
    real(dp), intent(out) :: kap(:)
    integer, intent(out) :: ndumps
    real(dp), allocatable :: u(:, :), cp(:), dtmp(:)
    real(dp) :: h, x
    integer :: r, i, step
    allocate(u(nx, nrods), cp(nx), dtmp(nx))
    h = 1.0_dp / (nx + 1)
    do r = 1, nrods
      kap(r) = kappa_min + (kappa_max - kappa_min) * (r - 1) / max(1, nrods - 1)
      do i = 1, nx
        x = i * h
        u(i, r) = exact(x, 0.0_dp, kap(r))
      end do
    end do
    ndumps = 0
    do step = 1, nsteps
      do r = 1, nrods
        call cn_step(u(:, r), nx, kap(r) * dt / h**2, cp, dtmp)
      end do
      if (mod(step, out_every) == 0) then
        call dump_profiles(dir, step, u, kap)
        ndumps = ndumps + 1
      end if
    end do
    deallocate(u, cp, dtmp)
  end subroutine integrate

  subroutine error_table(dir, kap, ndumps)
    character(len=*), intent(in) :: dir
    real(dp), intent(in) :: kap(:)
    integer, intent(in) :: ndumps
    integer :: d, step, unit, uout, i, c, ncol, ios
    character(len=600) :: fname
    character(len=16384) :: line
    real(dp) :: t, x, err2(nrods), vals(nrods)
    ncol = (nrods - 1) / sample_stride + 1
    open(newunit=uout, file=dir//'/errors.dat', status='replace', action='write')
    write(uout, '(a)') '#   step          t      max_L2err     mean_L2err'
    do d = 1, ndumps
      step = d * out_every
      write(fname, '(a,a,i5.5,a)') dir, '/profile_s', step, '.csv'
      open(newunit=unit, file=trim(fname), status='old', action='read', iostat=ios)
      if (ios /= 0) then
        write(0, '(a)') 'cn_rod_profiles: missing '//trim(fname)
        error stop 1
      end if
      read(unit, '(a)') line
      read(line(5:), *) t
      read(unit, '(a)') line
      err2(1:ncol) = 0.0_dp
      do i = 1, nx
        read(unit, '(a)') line
        read(line, *) x, vals(1:ncol)
        do c = 1, ncol
          err2(c) = err2(c) + (vals(c) - exact(x, t, kap(1 + (c - 1) * sample_stride)))**2
        end do
      end do
      close(unit)
      err2(1:ncol) = sqrt(err2(1:ncol) / nx)
      write(uout, '(i8,es12.4,2es15.6)') step, t, maxval(err2(1:ncol)), sum(err2(1:ncol)) / ncol
    end do
    close(uout)
  end subroutine error_table

end module rods_mod

program cn_rod_profiles
  use rods_mod
  implicit none
  character(len=512) :: dir
  real(dp), allocatable :: kap(:)
  integer :: ndumps
  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: cn_rod_profiles DIR'
    error stop 2
  end if
  call get_command_argument(1, dir)
  call execute_command_line('mkdir -p "'//trim(dir)//'"')
  call write_deck(trim(dir)//'/rods.in')
  call read_deck(trim(dir)//'/rods.in')
  allocate(kap(nrods))
  call integrate(trim(dir), kap, ndumps)
  call error_table(trim(dir), kap, ndumps)
  print '(a,i0,a,i0,a)', 'integrated ', nrods, ' rods, ', ndumps, ' profile dumps'
end program cn_rod_profiles
