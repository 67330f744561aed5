! Heat solver with periodic checkpoints (free form, Fortran 2008).
module sim_io
  use iso_fortran_env, only: int64
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 128, ny = 64
  character(len=*), parameter :: prefix = 'ckpt_'
  real(dp), allocatable :: u(:,:), v(:, :)
  integer :: freq = 10
  integer(int64) :: bytes_written = 0
contains
  subroutine init(n, m)
    integer, intent(in) :: n, m
    allocate(u(n, m), v(0:n+1, m))
    u = 0.0_dp; v = 1.0_dp
  end subroutine init

  subroutine checkpoint(step)
    integer, intent(in) :: step
    integer :: unit, ios
    character(len=64) :: fname
    logical :: there
    write(fname, '(a, i6.6, ".bin")') prefix, step
    inquire(file=trim(fname), exist=there)
    if (there) then
      open(newunit=unit, file=fname, status='old', position='append', &
           form='unformatted', access='stream', action='write', iostat=ios)
    else
      open(newunit=unit, file=fname, status='new', &
      & form='unformatted', access='stream', action='write', iostat=ios)
    end if
    if (ios /= 0) return
    write(unit) nx, ny
    write(unit) ((u(i, j), i = 1, nx), j = 1, ny)
    flush(unit)
    close(unit)
    bytes_written = bytes_written + storage_size(u) / 8 * size(u)
  end subroutine checkpoint

  pure function norm(a) result(r)
    real(dp), intent(in) :: a(:,:)
    real(dp) :: r
    r = sqrt(sum(a**2))
  end function norm
end module sim_io

program driver
  use sim_io
  implicit none
  integer :: step, nsteps, mode, iter
  real(dp) :: err
  nsteps = 1000; mode = 2
  call init(nx, ny)
  time: do step = 1, nsteps
    select case (mode)
    case (1)
      call relax(u)
    case (2, 3)
      err = 1.0
      iter = 0
      do while (err > 1.0d-6 .and. iter < 100)
        err = norm(u) * 0.5_dp
        iter = iter + 1
      end do
    case default
      exit time
    end select
    if (mod(step, freq) == 0) then
      call checkpoint(step)
    else if (step == nsteps) then
      call checkpoint(-1)
    end if
    if (err < 0) exit time
  end do time
  write(*, '(a, g0)') 'final norm = ', norm(u)
  call flush(6)
  print *, "done; it's ""ok"" ! really"
contains
  subroutine relax(a)
    real(dp), intent(inout) :: a(:,:)
    a = a * 0.5_dp
  end subroutine relax
end program driver
