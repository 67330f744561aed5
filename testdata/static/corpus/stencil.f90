! 2D five-point stencil in Fortran (free form) with periodic unformatted
! stream checkpoints: module stencil_mod holds init_grid, sweep and
! write_checkpoint; the program reads the output directory from the
! command line and writes a checkpoint every ckpt_every sweeps.
! Usage: stencil_f90 DIR
module stencil_mod
  implicit none
  integer, parameter :: nx = 400, ny = 400, nsteps = 500, ckpt_every = 50
contains
  subroutine init_grid(g)
    real(8), intent(out) :: g(nx, ny)
    g = 0d0
    g(nx/2, ny/2) = 1000d0
  end subroutine init_grid

  subroutine sweep(g, out)
    real(8), intent(in) :: g(nx, ny)
    real(8), intent(inout) :: out(nx, ny)
    integer :: i, j
    do j = 2, ny - 1
      do i = 2, nx - 1
        out(i, j) = 0.25d0 * (g(i-1, j) + g(i+1, j) + g(i, j-1) + g(i, j+1))
      end do
    end do
  end subroutine sweep

  subroutine write_checkpoint(dir, it, g)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: it
    real(8), intent(in) :: g(nx, ny)
    character(len=4096) :: path
    integer :: u
    write(path, '(a,a,i4.4,a)') trim(dir), '/ckpt_', it, '.bin'
    open(newunit=u, file=trim(path), access='stream', form='unformatted', status='replace')
    write(u) it
    write(u) g
    close(u)
  end subroutine write_checkpoint
end module stencil_mod

program stencil
  use stencil_mod
  implicit none
  real(8), allocatable :: a(:, :), b(:, :)
  character(len=4096) :: dir
  integer :: it
  call get_command_argument(1, dir)
  allocate(a(nx, ny), b(nx, ny))
  call init_grid(a)
  b = a
  do it = 1, nsteps
    call sweep(a, b)
    a = b
    if (mod(it, ckpt_every) == 0) call write_checkpoint(trim(dir), it, a)
  end do
  print '(es14.6)', sum(a * a)
end program stencil
