! Weighted least-squares polynomial fit of a large measurement table.
! A formatted table (index, x, y, sigma) is generated from a known polynomial
! plus Gaussian noise, read back with list-directed input until end of file,
! and the coefficients are recovered with a Householder QR solve.
module polyfit_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: degree = 5
  real(dp), parameter :: xlo = -3.0_dp, xhi = 5.0_dp
  real(dp), parameter :: true_coef(0:degree) = &
       [ 1.25_dp, -0.8_dp, 2.1_dp, 0.35_dp, -0.9_dp, 0.27_dp ]
  integer(8) :: seed = 88172645463325252_8

contains

  function uniform01() result(r)
    real(dp) :: r
    seed = ieor(seed, ishft(seed, 13))
    seed = ieor(seed, ishft(seed, -7))
    seed = ieor(seed, ishft(seed, 17))
    r = (real(ishft(seed, -11), dp) + 0.5_dp) / 9007199254740992.0_dp
  end function uniform01

  function gauss() result(g)
    real(dp) :: g, u1, u2
    u1 = uniform01()
    u2 = uniform01()
    g = sqrt(-2.0_dp * log(u1)) * cos(8.0_dp * atan(1.0_dp) * u2)
  end function gauss

  pure function scaled(x) result(t)
    real(dp), intent(in) :: x
    real(dp) :: t
    t = (2.0_dp * x - (xlo + xhi)) / (xhi - xlo)
  end function scaled

  pure function poly_eval(c, t) result(p)
    real(dp), intent(in) :: c(0:degree), t
    real(dp) :: p
    integer :: k
    p = c(degree)
    do k = degree - 1, 0, -1
       p = p * t + c(k)
    end do
  end function poly_eval

  subroutine write_table(path, npts)
    character(len=*), intent(in) :: path
    integer, intent(in) :: npts
    integer :: u, i
    real(dp) :: x, sigma, y
    open(newunit=u, file=path, status='replace', action='write', form='formatted')
    write(u, '(a)') '# index x y sigma'
    do i = 1, npts
       x = xlo + (xhi - xlo) * uniform01()
       sigma = 0.02_dp + 0.03_dp * uniform01()
       y = poly_eval(true_coef, scaled(x)) + sigma * gauss()
       write(u, '(i8,1x,f14.9,1x,es19.11,1x,f10.7)') i, x, y, sigma
    end do
    close(u)
  end subroutine write_table

  subroutine read_table(path, x, y, w, n)
    character(len=*), intent(in) :: path
    real(dp), allocatable, intent(out) :: x(:), y(:), w(:)
    integer, intent(out) :: n
    real(dp), allocatable :: tmp(:)
    integer :: u, ios, idx, cap
    real(dp) :: xv, yv, sv

    cap = 1024
    allocate(x(cap), y(cap), w(cap))
    n = 0
    open(newunit=u, file=path, status='old', action='read', form='formatted')
    read(u, *)                       ! header line
    do
       read(u, *, iostat=ios) idx, xv, yv, sv
       if (is_iostat_end(ios)) exit
       if (ios /= 0) then
          write(*, *) 'bad line after record', n, ' iostat', ios
          error stop 1
       end if
       if (idx /= n + 1) error stop 'table index out of sequence'
       if (n == cap) then
          cap = 2 * cap
          allocate(tmp(cap)); tmp(1:n) = x(1:n); call move_alloc(tmp, x)
          allocate(tmp(cap)); tmp(1:n) = y(1:n); call move_alloc(tmp, y)
          allocate(tmp(cap)); tmp(1:n) = w(1:n); call move_alloc(tmp, w)
       end if
       n = n + 1
       x(n) = xv
       y(n) = yv
       w(n) = 1.0_dp / sv
    end do
    close(u)
  end subroutine read_table

  subroutine build_system(x, y, w, n, a, b)
    integer, intent(in) :: n
    real(dp), intent(in) :: x(n), y(n), w(n)
    real(dp), intent(out) :: a(n, 0:degree), b(n)
    integer :: i, k
    real(dp) :: t
    do i = 1, n
       t = scaled(x(i))
       a(i, 0) = w(i)
       do k = 1, degree
          a(i, k) = a(i, k - 1) * t
       end do
       b(i) = w(i) * y(i)
    end do
  end subroutine build_system

  subroutine householder_solve(a, b, n, c)
    ! overwrites a and b; returns the least-squares solution c
    integer, intent(in) :: n
    real(dp), intent(inout) :: a(n, 0:degree), b(n)
    real(dp), intent(out) :: c(0:degree)
    integer :: k, j, i
    real(dp) :: alpha, vnorm2, s
    real(dp), allocatable :: v(:)

    allocate(v(n))
    do k = 0, degree
       alpha = -sign(sqrt(sum(a(k+1:n, k)**2)), a(k+1, k))
       v(k+1:n) = a(k+1:n, k)
       v(k+1) = v(k+1) - alpha
       vnorm2 = sum(v(k+1:n)**2)
       do j = k, degree
          s = 2.0_dp * dot_product(v(k+1:n), a(k+1:n, j)) / vnorm2
          a(k+1:n, j) = a(k+1:n, j) - s * v(k+1:n)
       end do
       s = 2.0_dp * dot_product(v(k+1:n), b(k+1:n)) / vnorm2
       b(k+1:n) = b(k+1:n) - s * v(k+1:n)
    end do
    do k = degree, 0, -1
       s = b(k+1)
       do i = k + 1, degree
          s = s - a(k+1, i) * c(i)
       end do
       c(k) = s / a(k+1, k)
    end do
    deallocate(v)
  end subroutine householder_solve

  function chi2_per_dof(x, y, w, n, c) result(q)
    integer, intent(in) :: n
    real(dp), intent(in) :: x(n), y(n), w(n), c(0:degree)
    real(dp) :: q
    integer :: i
    q = 0.0_dp
    do i = 1, n
       q = q + (w(i) * (y(i) - poly_eval(c, scaled(x(i)))))**2
    end do
    q = q / real(n - degree - 1, dp)
  end function chi2_per_dof

end module polyfit_mod

program polyfit_table
  use polyfit_mod
  implicit none
  character(len=512) :: dir
  real(dp), allocatable :: x(:), y(:), w(:), a(:,:), b(:)
  real(dp) :: c(0:degree), chi2
  integer :: n, k
  integer, parameter :: npts = 300000

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) error stop 'usage: polyfit_table DIR'

  call write_table(trim(dir) // '/measurements.tbl', npts)
  call read_table(trim(dir) // '/measurements.tbl', x, y, w, n)
  if (n /= npts) then
     write(*, *) 'read', n, ' rows, expected', npts
     error stop 1
  end if

  allocate(a(n, 0:degree), b(n))
  call build_system(x, y, w, n, a, b)
  call householder_solve(a, b, n, c)
  chi2 = chi2_per_dof(x, y, w, n, c)

  write(*, '(a,i7,a,f8.4)') 'rows', n, '  chi2/dof', chi2
  do k = 0, degree
     write(*, '(a,i1,a,f12.7,a,f12.7)') '  c', k, ' =', c(k), '   true', true_coef(k)
  end do
  if (maxval(abs(c - true_coef)) > 5.0e-3_dp) error stop 'fitted coefficients off'
  if (chi2 < 0.9_dp .or. chi2 > 1.1_dp) error stop 'chi2 out of range'
end program polyfit_table
