! ooc_cholesky_da: Gaussian-process regression with an out-of-core tiled
! Cholesky factorization.  The lower triangle of the covariance matrix is
! kept tile by tile in a direct-access unformatted file; the factorization,
! the triangular solves and the residual check stream tiles through memory.
! Predictions on a regular grid are written as a formatted table.
module tile_store
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nb = 256, nt = 12, ntot = nb * nt
  real(dp), parameter :: ell = 0.12_dp, sig_f = 1.0_dp, sig_n = 0.05_dp

  type tile_file
     integer :: unit = -1
     integer :: nreads = 0, nwrites = 0
  end type tile_file

contains

  subroutine tile_read(tf, i, j, a)
    type(tile_file), intent(inout) :: tf
    integer, intent(in) :: i, j
    real(dp), intent(out) :: a(nb, nb)
    read(tf%unit, rec=i * (i - 1) / 2 + j) a
    tf%nreads = tf%nreads + 1
  end subroutine tile_read

  subroutine tile_write(tf, i, j, a)
    type(tile_file), intent(inout) :: tf
    integer, intent(in) :: i, j
    real(dp), intent(in) :: a(nb, nb)
    write(tf%unit, rec=i * (i - 1) / 2 + j) a
    tf%nwrites = tf%nwrites + 1
  end subroutine tile_write

  subroutine kernel_tile(x, i, j, a)
    real(dp), intent(in) :: x(2, ntot)
    integer, intent(in) :: i, j
    real(dp), intent(out) :: a(nb, nb)
    integer :: p, q, gp, gq
    real(dp) :: d2
    do q = 1, nb
       gq = (j - 1) * nb + q
       do p = 1, nb
          gp = (i - 1) * nb + p
          d2 = (x(1, gp) - x(1, gq))**2 + (x(2, gp) - x(2, gq))**2
          a(p, q) = sig_f**2 * exp(-0.5_dp * d2 / ell**2)
          if (gp == gq) a(p, q) = a(p, q) + sig_n**2
       end do
    end do
  end subroutine kernel_tile

  subroutine assemble(tf, fname, x)
    type(tile_file), intent(inout) :: tf
    character(len=*), intent(in) :: fname
    real(dp), intent(in) :: x(2, ntot)
    real(dp), allocatable :: a(:,:)
    integer :: i, j, reclen
    inquire(iolength=reclen) 0.0_dp
    open(newunit=tf%unit, file=fname, access='direct', form='unformatted', &
         recl=reclen * nb * nb, status='replace', action='readwrite')
    allocate(a(nb, nb))
    do j = 1, nt
       do i = j, nt
          call kernel_tile(x, i, j, a)
          call tile_write(tf, i, j, a)
       end do
    end do
  end subroutine assemble

  subroutine potrf_tile(a)
    real(dp), intent(inout) :: a(nb, nb)
    integer :: j, k
    do j = 1, nb
       do k = 1, j - 1
          a(j:nb, j) = a(j:nb, j) - a(j:nb, k) * a(j, k)
       end do
       if (a(j, j) <= 0.0_dp) error stop 'matrix not positive definite'
       a(j, j) = sqrt(a(j, j))
       a(j+1:nb, j) = a(j+1:nb, j) / a(j, j)
       a(1:j-1, j) = 0.0_dp
    end do
  end subroutine potrf_tile

  ! B <- B * L^{-T}, L lower triangular
  subroutine trsm_tile(l, b)
    real(dp), intent(in) :: l(nb, nb)
    real(dp), intent(inout) :: b(nb, nb)
    integer :: j, k
    do j = 1, nb
       do k = 1, j - 1
          b(:, j) = b(:, j) - b(:, k) * l(j, k)
       end do
       b(:, j) = b(:, j) / l(j, j)
    end do
  end subroutine trsm_tile

  ! C <- C - A * B^T
  subroutine gemm_nt_tile(a, b, c)
    real(dp), intent(in) :: a(nb, nb), b(nb, nb)
    real(dp), intent(inout) :: c(nb, nb)
    integer :: j, k
    do j = 1, nb
       do k = 1, nb
          c(:, j) = c(:, j) - a(:, k) * b(j, k)
       end do
    end do
  end subroutine gemm_nt_tile

  subroutine factorize(tf)
    type(tile_file), intent(inout) :: tf
    real(dp), allocatable, dimension(:,:) :: akk, aik, ajk, aij
    integer :: i, j, k
    allocate(akk(nb, nb), aik(nb, nb), ajk(nb, nb), aij(nb, nb))
    do k = 1, nt
       call tile_read(tf, k, k, akk)
       call potrf_tile(akk)
       call tile_write(tf, k, k, akk)
       do i = k + 1, nt
          call tile_read(tf, i, k, aik)
          call trsm_tile(akk, aik)
          call tile_write(tf, i, k, aik)
       end do
       do j = k + 1, nt
          call tile_read(tf, j, k, ajk)
          do i = j, nt
             call tile_read(tf, i, k, aik)
             call tile_read(tf, i, j, aij)
             call gemm_nt_tile(aik, ajk, aij)
             call tile_write(tf, i, j, aij)
          end do
       end do
    end do
  end subroutine factorize

  subroutine solve_factored(tf, b)
    type(tile_file), intent(inout) :: tf
    real(dp), intent(inout) :: b(ntot)
    real(dp), allocatable :: l(:,:)
    integer :: i, j, p, r0, c0
    allocate(l(nb, nb))
    do i = 1, nt
       r0 = (i - 1) * nb
       do j = 1, i - 1
          c0 = (j - 1) * nb
          call tile_read(tf, i, j, l)
          b(r0+1:r0+nb) = b(r0+1:r0+nb) - matmul(l, b(c0+1:c0+nb))
       end do
       call tile_read(tf, i, i, l)
       do p = 1, nb
          b(r0+p) = (b(r0+p) - dot_product(l(p, 1:p-1), b(r0+1:r0+p-1))) / l(p, p)
       end do
    end do
    do i = nt, 1, -1
       r0 = (i - 1) * nb
       do j = nt, i + 1, -1
          c0 = (j - 1) * nb
          call tile_read(tf, j, i, l)
          b(r0+1:r0+nb) = b(r0+1:r0+nb) - matmul(transpose(l), b(c0+1:c0+nb))
       end do
       call tile_read(tf, i, i, l)
       do p = nb, 1, -1
          b(r0+p) = (b(r0+p) - dot_product(l(p+1:nb, p), b(r0+p+1:r0+nb))) / l(p, p)
       end do
    end do
  end subroutine solve_factored

  real(dp) function residual_norm(x, alpha, y) result(rn)
    real(dp), intent(in) :: x(2, ntot), alpha(ntot), y(ntot)
    real(dp), allocatable :: a(:,:), r(:)
    integer :: i, j
    allocate(a(nb, nb), r(ntot))
    r = y
    do j = 1, nt
       do i = 1, nt
          call kernel_tile(x, i, j, a)
          r((i-1)*nb+1:i*nb) = r((i-1)*nb+1:i*nb) - matmul(a, alpha((j-1)*nb+1:j*nb))
       end do
    end do
    rn = sqrt(sum(r**2)) / sqrt(sum(y**2))
  end function residual_norm

  subroutine write_predictions(fname, x, alpha, rn)
    character(len=*), intent(in) :: fname
    real(dp), intent(in) :: x(2, ntot), alpha(ntot), rn
    integer, parameter :: ngrid = 100
    real(dp) :: gx, gy, kv, pred
    integer :: i, j, k, un
    open(newunit=un, file=fname, status='replace', action='write')
    write(un, '(a,i0,a,es12.4)') '# GP posterior mean, n = ', ntot, ', relative residual = ', rn
    write(un, '(a)') '#        x           y          mean       truth'
    do j = 1, ngrid
       gy = (j - 0.5_dp) / ngrid
       do i = 1, ngrid
          gx = (i - 0.5_dp) / ngrid
          pred = 0.0_dp
          do k = 1, ntot
             kv = sig_f**2 * exp(-0.5_dp * ((gx - x(1, k))**2 + (gy - x(2, k))**2) / ell**2)
             pred = pred + kv * alpha(k)
          end do
          write(un, '(2f12.6,2es14.6)') gx, gy, pred, sin(6.0_dp * gx) * cos(4.0_dp * gy) + 0.5_dp * gx * gy
       end do
    end do
    close(un)
  end subroutine write_predictions

end module tile_store

program ooc_cholesky_da
  use tile_store
  implicit none
  type(tile_file) :: tf
  character(len=512) :: dir
  real(dp), allocatable :: x(:,:), y(:), alpha(:)
  real(dp) :: rn, g
  integer :: k

  if (command_argument_count() /= 1) then
     write(*, '(a)') 'usage: ooc_cholesky_da scratch_dir'
     stop 2
  end if
  call get_command_argument(1, dir)
  allocate(x(2, ntot), y(ntot), alpha(ntot))
  do k = 1, ntot
     x(1, k) = modulo(0.6180339887_dp * k, 1.0_dp)
     x(2, k) = modulo(0.7548776662_dp * k + 0.5698402910_dp * k * k / ntot, 1.0_dp)
     g = modulo(0.3141592653_dp * k * k, 1.0_dp) - 0.5_dp
     y(k) = sin(6.0_dp * x(1, k)) * cos(4.0_dp * x(2, k)) + 0.5_dp * x(1, k) * x(2, k) + 0.1_dp * g
  end do

  call assemble(tf, trim(dir)//'/cov_tiles.da', x)
  call factorize(tf)
  alpha = y
  call solve_factored(tf, alpha)
  close(tf%unit)
  rn = residual_norm(x, alpha, y)

  call write_predictions(trim(dir)//'/gp_prediction.txt', x, alpha, rn)
  write(*, '(a,i0,a,i0,a,i0,a,es12.4)') 'n ', ntot, ' tile reads ', tf%nreads, ' writes ', &
       tf%nwrites, ' residual ', rn
end program ooc_cholesky_da
