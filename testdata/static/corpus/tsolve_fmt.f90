! Formatted-output solver: the main program holds the rod size as a
! PARAMETER (n) and passes it to relax, which does Jacobi sweeps of the
! 1-D heat equation with a fixed source, and to dump_profile, which
! writes one formatted line per grid point to a new text file every nout
! sweeps; write_meta writes a few lines describing the run once, and
! log_residual appends one formatted line per sweep to a monitor file.
! The subroutines are external (not in a module).
! Usage: tsolve_fmt DIR
program tsolve_fmt
  implicit none
  integer, parameter :: n = 30000, nsweep = 240, nout = 60
  real(8) :: u(n), un(n), src(n)
  character(len=4096) :: dir
  integer :: it, ndump, i
  call get_command_argument(1, dir)
  do i = 1, n
     src(i) = 1d-3 * dble(mod(i * 37, 101)) / 101d0
  end do
  u = 0d0
  un = 0d0
  ndump = 0
  call write_meta(trim(dir), n, nsweep, nout)
  open (unit=22, file=trim(dir) // '/residual.log', status='replace', form='formatted', action='write')
  do it = 1, nsweep
     call relax(u, un, src, n)
     call log_residual(22, it, u, n)
     if (mod(it, nout) == 0) then
        ndump = ndump + 1
        call dump_profile(trim(dir), ndump, u, n)
     end if
  end do
  close (22)
  print '(es16.8)', sum(u)
end program tsolve_fmt

subroutine write_meta(dir, n, nsweep, nout)
  implicit none
  character(len=*), intent(in) :: dir
  integer, intent(in) :: n, nsweep, nout
  open (unit=23, file=dir // '/run.meta', status='replace', form='formatted', action='write')
  write (23, '(a,i0)') 'points ', n
  write (23, '(a,i0)') 'sweeps ', nsweep
  write (23, '(a,i0)') 'dump_every ', nout
  close (23)
end subroutine write_meta

subroutine log_residual(unit, it, u, n)
  implicit none
  integer, intent(in) :: unit, it, n
  real(8), intent(in) :: u(n)
  write (unit, '(i6,1x,es14.6,1x,es14.6)') it, u(n / 2), u(n / 4)
end subroutine log_residual

subroutine relax(u, un, src, n)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: u(n), un(n)
  real(8), intent(in) :: src(n)
  integer :: i, k
  do k = 1, 20
     do i = 2, n - 1
        un(i) = 0.5d0 * (u(i - 1) + u(i + 1)) + src(i)
     end do
     do i = 2, n - 1
        u(i) = un(i)
     end do
  end do
end subroutine relax

subroutine dump_profile(dir, k, u, n)
  implicit none
  character(len=*), intent(in) :: dir
  integer, intent(in) :: k, n
  real(8), intent(in) :: u(n)
  character(len=4200) :: path
  integer :: i
  write (path, '(a,a,i3.3,a)') dir, '/profile_', k, '.txt'
  open (unit=21, file=trim(path), status='replace', form='formatted', action='write')
  do i = 1, n
     write (21, '(i8,1x,es20.12,1x,es20.12)') i, dble(i) / dble(n), u(i)
  end do
  close (21)
end subroutine dump_profile
