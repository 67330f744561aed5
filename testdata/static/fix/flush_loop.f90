! Progress written with a FLUSH after every record.
! Usage: flush_loop_f90 DIR
program flush_loop
  implicit none
  integer, parameter :: nsteps = 5000
  character(len=4096) :: dir
  integer :: i
  real(kind=8) :: x
  call get_command_argument(1, dir)
  open(unit=10, file=trim(dir)//'/progress.txt', status='replace', action='write')
  x = 1.0d0
  do i = 1, nsteps
    x = 0.5d0 * (x + 2.0d0 / x)
    write(10, '(I8,1X,F16.12)') i, x
    flush(10)
  end do
  close(10)
end program flush_loop
