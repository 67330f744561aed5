! Jacobi smoother for a 2-D Poisson problem; after each block of sweeps the
! whole grid is dumped to an unformatted sequential file one column per
! record (one WRITE per column), a formatted summary line is written, and at
! the end the last dump is read back column by column and compared.
module smoother_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: n = 640
  integer, parameter :: ndump = 10, sweeps_per_dump = 150
contains

  subroutine setup_problem(u, f)
    real(dp), intent(out) :: u(0:n+1, 0:n+1), f(n, n)
    integer :: i, j
    real(dp) :: x, y, h
    h = 1.0_dp / (n + 1)
    u = 0.0_dp
    do j = 1, n
      y = j*h
      do i = 1, n
        x = i*h
        f(i, j) = 8.0_dp*exp(-40.0_dp*((x-0.3_dp)**2 + (y-0.6_dp)**2)) &
                - 5.0_dp*exp(-60.0_dp*((x-0.7_dp)**2 + (y-0.35_dp)**2))
      end do
    end do
    do i = 0, n+1
      u(i, 0) = sin(3.14159265358979_dp * i * h)
    end do
  end subroutine setup_problem

  subroutine jacobi_sweeps(u, unew, f, nsweep, resid)
    real(dp), intent(inout) :: u(0:n+1, 0:n+1), unew(0:n+1, 0:n+1)
    real(dp), intent(in) :: f(n, n)
    integer, intent(in) :: nsweep
    real(dp), intent(out) :: resid
    integer :: i, j, s
    real(dp) :: h2, r
    h2 = (1.0_dp / (n + 1))**2
    unew = u
    do s = 1, nsweep
      do j = 1, n
        do i = 1, n
          unew(i, j) = 0.25_dp*(u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1) + h2*f(i, j))
        end do
      end do
      u(1:n, 1:n) = unew(1:n, 1:n)
    end do
    resid = 0.0_dp
    do j = 1, n
      do i = 1, n
        r = (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1) - 4.0_dp*u(i, j))/h2 + f(i, j)
        resid = resid + r*r
      end do
    end do
    resid = sqrt(resid / (real(n, dp)**2))
  end subroutine jacobi_sweeps

  subroutine dump_columns(unit, u, idump)
    integer, intent(in) :: unit, idump
    real(dp), intent(in) :: u(0:n+1, 0:n+1)
    integer :: j
    write(unit) idump, n
    do j = 0, n+1
      write(unit) u(:, j)
    end do
  end subroutine dump_columns

  subroutine write_summary_line(unit, idump, isweep, u, resid)
    integer, intent(in) :: unit, idump, isweep
    real(dp), intent(in) :: u(0:n+1, 0:n+1), resid
    write(unit, '(I4,I7,4ES18.9)') idump, isweep, resid, minval(u), maxval(u), &
         sum(u(1:n, 1:n)) / real(n, dp)**2
  end subroutine write_summary_line

  subroutine verify_last_dump(path, u, ok)
    character(len=*), intent(in) :: path
    real(dp), intent(in) :: u(0:n+1, 0:n+1)
    logical, intent(out) :: ok
    real(dp) :: col(0:n+1)
    integer :: unit, d, j, id, nn
    ok = .true.
    open(newunit=unit, file=path, form='unformatted', access='sequential', status='old', action='read')
    do d = 1, ndump - 1
      read(unit) id, nn
      if (id /= d .or. nn /= n) ok = .false.
      do j = 0, n+1
        read(unit)
      end do
    end do
    read(unit) id, nn
    if (id /= ndump) ok = .false.
    do j = 0, n+1
      read(unit) col
      if (any(col /= u(:, j))) ok = .false.
    end do
    close(unit)
  end subroutine verify_last_dump
end module smoother_mod

program jacobi_colrec
  use smoother_mod
  implicit none
  real(dp), allocatable :: u(:,:), unew(:,:), f(:,:)
  character(len=400) :: dir
  integer :: ud, us, d
  real(dp) :: resid, prev
  logical :: ok

  if (command_argument_count() < 1) error stop 'usage: jacobi_colrec DIR'
  call get_command_argument(1, dir)
  allocate(u(0:n+1, 0:n+1), unew(0:n+1, 0:n+1), f(n, n))
  call setup_problem(u, f)
  open(newunit=ud, file=trim(dir)//'/dumps.bin', form='unformatted', access='sequential', &
       status='replace', action='write')
  open(newunit=us, file=trim(dir)//'/summary.txt', status='replace', action='write')
  write(us, '(A)') '# dump  sweep          residual               min               max              mean'
  prev = huge(1.0_dp)
  do d = 1, ndump
    call jacobi_sweeps(u, unew, f, sweeps_per_dump, resid)
    call dump_columns(ud, u, d)
    call write_summary_line(us, d, d*sweeps_per_dump, u, resid)
    if (resid > prev) error stop 'residual increased'
    prev = resid
  end do
  close(ud)
  close(us)
  call verify_last_dump(trim(dir)//'/dumps.bin', u, ok)
  if (.not. ok) error stop 'dump verification failed'
  print '(A,ES14.6)', 'final residual ', resid
end program jacobi_colrec
