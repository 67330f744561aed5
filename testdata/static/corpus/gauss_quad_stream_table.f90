! gauss_quad_stream_table.f90
!
! Builds a binary table of Gauss-Legendre quadrature rules (nodes and weights
! from Newton iteration on the Legendre three-term recurrence) for orders
! 1..NMAX and stores it in a single ACCESS='STREAM' file: a header, the
! variable-length rules one after another, and a trailing directory of byte
! positions.  The table is then reopened, the directory is located from the
! header, and rules of many orders are fetched with POS= reads in a
! scattered order to integrate a family of test functions on sub-intervals
! (composite quadrature).  Convergence is written as a formatted table and
! a formatted CSV of all nodes of selected orders is exported.
module quad_table
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: i8 = selected_int_kind(18)
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  character(len=8), parameter :: magic = 'GLQTAB01'

contains

  ! P_n(x) and its derivative by the three-term recurrence.
  subroutine legendre(n, x, p, dp_dx)
    integer, intent(in) :: n
    real(dp), intent(in) :: x
    real(dp), intent(out) :: p, dp_dx
    real(dp) :: p0, p1
    integer :: k
    p0 = 1.0_dp; p1 = x
    if (n == 0) then
       p = 1.0_dp; dp_dx = 0.0_dp; return
    end if
    do k = 2, n
       p = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
       p0 = p1; p1 = p
    end do
    p = p1
    dp_dx = n * (x * p1 - p0) / (x * x - 1.0_dp)
  end subroutine legendre

  subroutine gauss_legendre(n, x, w)
    integer, intent(in) :: n
    real(dp), intent(out) :: x(n), w(n)
    real(dp) :: z, p, d, dz
    integer :: i, it
    if (n == 1) then
       x(1) = 0; w(1) = 2; return
    end if
    do i = 1, (n + 1) / 2
       z = cos(pi * (i - 0.25_dp) / (n + 0.5_dp))
       do it = 1, 100
          call legendre(n, z, p, d)
          dz = p / d
          z = z - dz
          if (abs(dz) < 1.0e-15_dp) exit
       end do
       call legendre(n, z, p, d)
       x(i) = -z; x(n + 1 - i) = z
       w(i) = 2.0_dp / ((1.0_dp - z * z) * d * d)
       w(n + 1 - i) = w(i)
    end do
  end subroutine gauss_legendre

  subroutine write_table(path, nmax)
    character(len=*), intent(in) :: path
    integer, intent(in) :: nmax
    integer :: u, n
    integer(i8) :: dirpos
    integer(i8), allocatable :: pos(:)
    real(dp), allocatable :: x(:), w(:)
    allocate(pos(nmax))
    open(newunit=u, file=path, access='stream', form='unformatted', status='replace', action='write')
    write(u) magic, nmax, 0_i8          ! directory position patched later
    do n = 1, nmax
       allocate(x(n), w(n))
       call gauss_legendre(n, x, w)
       inquire(unit=u, pos=pos(n))
       write(u) n, x, w, sum(w)
       deallocate(x, w)
    end do
    inquire(unit=u, pos=dirpos)
    write(u) pos
    write(u, pos=9+4) dirpos
    close(u)
  end subroutine write_table

  subroutine open_table(path, u, nmax, pos)
    character(len=*), intent(in) :: path
    integer, intent(out) :: u, nmax
    integer(i8), allocatable, intent(out) :: pos(:)
    character(len=8) :: tag
    integer(i8) :: dirpos
    open(newunit=u, file=path, access='stream', form='unformatted', status='old', action='read')
    read(u) tag, nmax, dirpos
    if (tag /= magic) error stop 'bad quadrature table'
    allocate(pos(nmax))
    read(u, pos=dirpos) pos
  end subroutine open_table

  subroutine fetch_rule(u, pos, n, x, w)
    integer, intent(in) :: u, n
    integer(i8), intent(in) :: pos(:)
    real(dp), intent(out) :: x(n), w(n)
    integer :: nn
    real(dp) :: wsum
    read(u, pos=pos(n)) nn, x, w, wsum
    if (nn /= n .or. abs(wsum - 2.0_dp) > 1.0e-10_dp) error stop 'corrupt rule'
  end subroutine fetch_rule

  real(dp) function test_f(k, t) result(f)
    integer, intent(in) :: k
    real(dp), intent(in) :: t
    select case (mod(k, 4))
    case (0); f = exp(-k * 0.1_dp * t) * cos(3.0_dp * t)
    case (1); f = 1.0_dp / (1.0_dp + 25.0_dp * (t - 0.3_dp)**2)
    case (2); f = sqrt(abs(t) + 1.0e-3_dp)
    case default; f = sin(k * t)**2
    end select
  end function test_f

  ! Composite rule: nsub panels on [a,b], each with the n-point rule.
  real(dp) function composite(k, a, b, nsub, n, x, w) result(s)
    integer, intent(in) :: k, nsub, n
    real(dp), intent(in) :: a, b, x(n), w(n)
    real(dp) :: h, c
    integer :: p, i
    h = (b - a) / nsub
    s = 0
    do p = 1, nsub
       c = a + (p - 0.5_dp) * h
       do i = 1, n
          s = s + w(i) * test_f(k, c + 0.5_dp * h * x(i))
       end do
    end do
    s = s * 0.5_dp * h
  end function composite

end module quad_table

program gauss_quad_stream_table
  use quad_table
  implicit none
  integer, parameter :: nmax = 640, nfun = 12
  character(len=512) :: dir, path
  integer :: u, nt, uo, uc, j, n, k, i
  integer(i8), allocatable :: pos(:)
  real(dp), allocatable :: x(:), w(:)
  real(dp) :: ref(nfun), val, worst

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) stop 'usage: gauss_quad_stream_table DIR'
  path = trim(dir) // '/gauss_legendre.glq'
  call write_table(trim(path), nmax)
  call open_table(trim(path), u, nt, pos)

  ! reference values: highest order rule with many panels
  allocate(x(nt), w(nt))
  call fetch_rule(u, pos, 60, x(1:60), w(1:60))
  do k = 1, nfun
     ref(k) = composite(k, -1.0_dp, 2.0_dp, 64, 60, x(1:60), w(1:60))
  end do

  open(newunit=uo, file=trim(dir)//'/convergence.txt', status='replace', action='write')
  write(uo, '(a)') '#  order  panels  fun        value                 abs_error'
  worst = 0
  do j = 1, 700
     n = 1 + mod(j * 337, nmax)              ! scattered access pattern
     call fetch_rule(u, pos, n, x(1:n), w(1:n))
     do k = 1, nfun
        val = composite(k, -1.0_dp, 2.0_dp, 1 + mod(j, 4), n, x(1:n), w(1:n))
        write(uo, '(i8,i8,i5,es24.15,es14.4)') n, 1 + mod(j, 4), k, val, abs(val - ref(k))
        if (n >= 40) worst = max(worst, abs(val - ref(k)))
     end do
  end do
  close(uo)

  open(newunit=uc, file=trim(dir)//'/nodes_selected.csv', status='replace', action='write')
  write(uc, '(a)') 'order,index,node,weight'
  do n = 50, nt, 50
     call fetch_rule(u, pos, n, x(1:n), w(1:n))
     do i = 1, n
        write(uc, '(i0,a,i0,a,es23.16,a,es23.16)') n, ',', i, ',', x(i), ',', w(i)
     end do
  end do
  close(uc)
  close(u)
  print '(a,i0,a,es10.3)', 'rules stored: ', nt, '  worst error (n>=40): ', worst
end program gauss_quad_stream_table
