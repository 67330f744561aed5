program solver
  implicit none
  integer, parameter :: n = 200000
  integer :: step
  real(8) :: u(n)
  u = 1.0d0
  do step = 1, 3
     call relax(u, n)
     call dump(u, n, step)
  end do
contains
  subroutine relax(a, m)
    integer, intent(in) :: m
    real(8), intent(inout) :: a(m)
    integer :: i
    do i = 2, m - 1
       a(i) = 0.5d0 * (a(i-1) + a(i+1))
    end do
  end subroutine
end program

subroutine dump(a, n, step)
  integer, intent(in) :: n, step
  real(8), intent(in) :: a(n)
  integer :: i
  character(len=32) :: name
  write(name, '(A,I0,A)') 'out_', step, '.txt'
  open(10, file=name, form='formatted')
  do i = 1, n
     write(10, '(I8,1X,ES24.16)') i, a(i)
  end do
  close(10)
end subroutine
