#include "config.h"
#define NBUF 4096
#define USE_MPI
#define SQR(x) ((x)*(x))
module kinds
  implicit none
  integer, parameter :: sp = selected_real_kind(6), wp = selected_real_kind(15, 307)
  integer, parameter :: ik = selected_int_kind(12)
  type :: cell
    real(wp) :: x, y
  contains
    procedure :: area
  end type cell
  interface swap
    module procedure swap_r, swap_i
  end interface
  complex(wp) :: z
  complex :: zs
  double complex :: zd
  integer*8 :: big
  real*8 :: r8
  character*(*), parameter :: msg = "hi"
  character(10) :: c10
  character :: c1
  character(len=NBUF) :: buf
  logical(1) :: flag
  type(cell), dimension(10) :: cells
  real, pointer :: ptr(:) => null()
end module kinds

recursive integer(ik) function fact(n) result(f)
  use kinds
  integer, intent(in) :: n
  if (n <= 1) then; f = 1; else; f = n * fact(n-1); end if
end function

subroutine work(a, n, ierr)
  use kinds
  implicit none
  integer :: n, ierr, i, j, k
  real(sp) :: a(n)
  real :: tmp(n, n)
#ifdef USE_MPI
  call mpi_file_write_all(fh, a, n, MPI_REAL, status, ierr)
#else
  write(10) a
#endif
#if 0
  this is not fortran
#else
  ierr = 0
#endif
  i = 0; j = &
    & 5 + &
    i
  buf = 'a long &
    &string with ! bang'
  do i = 1, n; a(i) = 0; end do
  do 10, i = n, 1, -1
    if (i == 3) cycle
10 continue
  outer: do j = 1, 10
    inner: do k = 1, 10
      if (k > j) exit outer
      if (k == j) cycle inner
    end do inner
  end do outer
  do
    k = k + 1
    if (k .ge. 100) exit
  end do
  do concurrent (i = 1:n, j = 1:n, tmp(i,j) > 0)
    tmp(i, j) = 0.
  end do
  where (a > 0.) a = -a
  where (a < 0.)
    a = 0.
  elsewhere (a > 1.)
    a = 1.
  elsewhere
    a = 2.
  end where
  forall (i = 1:n) a(i) = real(i)
  if (a(1)) 10, 20, 30
  a(1:n:2) = a(n:1:-2)
  k = max(i, j, size(a, dim=1))
  k = ibset(k, 2) + z'ff' + b'101'
  read(5, *, iostat=ierr, end=99) n, (a(i), i = 1, n)
  read *, n
  read 100, n
  rewind 10
  rewind(unit=10, iostat=ierr)
  backspace (10)
  endfile 11
  end file (unit=11)
  wait (10, id=k)
  inquire(iolength=k) a, n
  write(10, rec=i, iostat=ierr, err=99) a
  write(unit=12, fmt='(3i5)', advance='no', asynchronous='yes') i, j, k
  deallocate(tmp, stat=ierr)
  call cells(1)%move(2.0)
  call obj%dump
  k = fact(3) + ext(4)
  k = fact(5)
  block
    integer :: q
    q = 1
  end block
  associate (s => a(1))
    s = 2
  end associate
  return
20 continue
30 stop 'done'
99 error stop 1
100 format(i5)
end subroutine work

subroutine after
  print *, 'still parsed'
end
