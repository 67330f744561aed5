! mg_poisson_stream: geometric multigrid (V-cycles, red-black Gauss-Seidel)
! for the 2-D Poisson equation with several source configurations.  Every
! iterate is stored in single precision as an unformatted stream file;
! afterwards all iterates are read back to measure their distance to the
! converged solution.
module multigrid
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nlev = 9
  integer, parameter :: nu_pre = 3, nu_post = 3, nu_coarse = 40

  type level_t
     integer :: n
     real(dp) :: h
     real(dp), allocatable :: u(:,:), f(:,:), r(:,:)
  end type level_t

contains

  subroutine setup_levels(lv)
    type(level_t), intent(inout) :: lv(nlev)
    integer :: l, n
    n = 2**(nlev + 1)
    do l = 1, nlev
       lv(l)%n = n
       lv(l)%h = 1.0_dp / n
       allocate(lv(l)%u(0:n, 0:n), lv(l)%f(0:n, 0:n), lv(l)%r(0:n, 0:n))
       lv(l)%u = 0.0_dp
       lv(l)%f = 0.0_dp
       lv(l)%r = 0.0_dp
       n = n / 2
    end do
  end subroutine setup_levels

  subroutine set_source(lv, icase)
    type(level_t), intent(inout) :: lv
    integer, intent(in) :: icase
    integer :: i, j
    real(dp) :: x, y, cx, cy
    cx = 0.3_dp + 0.2_dp * icase
    cy = 0.7_dp - 0.15_dp * icase
    do j = 1, lv%n - 1
       y = j * lv%h
       do i = 1, lv%n - 1
          x = i * lv%h
          lv%f(i, j) = 200.0_dp * exp(-80.0_dp * ((x - cx)**2 + (y - cy)**2)) &
               - 150.0_dp * exp(-120.0_dp * ((x - cy)**2 + (y - cx)**2)) &
               + 10.0_dp * sin(3.0_dp * icase * x) * cos(5.0_dp * y)
       end do
    end do
    lv%u = 0.0_dp
  end subroutine set_source

  subroutine smooth_rbgs(lv, nsweep)
    type(level_t), intent(inout) :: lv
    integer, intent(in) :: nsweep
    integer :: sweep, color, i, j, n
    real(dp) :: h2
    n = lv%n
    h2 = lv%h * lv%h
    do sweep = 1, nsweep
       do color = 0, 1
          do j = 1, n - 1
             do i = 1 + mod(j + color, 2), n - 1, 2
                lv%u(i, j) = 0.25_dp * (lv%u(i - 1, j) + lv%u(i + 1, j) + lv%u(i, j - 1) &
                     + lv%u(i, j + 1) + h2 * lv%f(i, j))
             end do
          end do
       end do
    end do
  end subroutine smooth_rbgs

  subroutine residual(lv, rnorm)
    type(level_t), intent(inout) :: lv
    real(dp), intent(out) :: rnorm
    integer :: i, j, n
    real(dp) :: rh2
    n = lv%n
    rh2 = 1.0_dp / (lv%h * lv%h)
    rnorm = 0.0_dp
    do j = 1, n - 1
       do i = 1, n - 1
          lv%r(i, j) = lv%f(i, j) - (4.0_dp * lv%u(i, j) - lv%u(i - 1, j) - lv%u(i + 1, j) &
               - lv%u(i, j - 1) - lv%u(i, j + 1)) * rh2
          rnorm = rnorm + lv%r(i, j)**2
       end do
    end do
    rnorm = sqrt(rnorm) * lv%h
  end subroutine residual

  subroutine restrict_fw(fine, coarse)
    type(level_t), intent(in) :: fine
    type(level_t), intent(inout) :: coarse
    integer :: i, j, fi, fj
    do j = 1, coarse%n - 1
       fj = 2 * j
       do i = 1, coarse%n - 1
          fi = 2 * i
          coarse%f(i, j) = 0.25_dp * fine%r(fi, fj) &
               + 0.125_dp * (fine%r(fi - 1, fj) + fine%r(fi + 1, fj) + fine%r(fi, fj - 1) + fine%r(fi, fj + 1)) &
               + 0.0625_dp * (fine%r(fi - 1, fj - 1) + fine%r(fi + 1, fj - 1) &
               + fine%r(fi - 1, fj + 1) + fine%r(fi + 1, fj + 1))
       end do
    end do
    coarse%u = 0.0_dp
  end subroutine restrict_fw

  subroutine prolong_add(coarse, fine)
    type(level_t), intent(in) :: coarse
    type(level_t), intent(inout) :: fine
    integer :: i, j
    do j = 0, coarse%n - 1
       do i = 0, coarse%n - 1
          fine%u(2*i, 2*j) = fine%u(2*i, 2*j) + coarse%u(i, j)
          fine%u(2*i+1, 2*j) = fine%u(2*i+1, 2*j) + 0.5_dp * (coarse%u(i, j) + coarse%u(i+1, j))
          fine%u(2*i, 2*j+1) = fine%u(2*i, 2*j+1) + 0.5_dp * (coarse%u(i, j) + coarse%u(i, j+1))
          fine%u(2*i+1, 2*j+1) = fine%u(2*i+1, 2*j+1) + 0.25_dp * (coarse%u(i, j) &
               + coarse%u(i+1, j) + coarse%u(i, j+1) + coarse%u(i+1, j+1))
       end do
    end do
    fine%u(0, :) = 0.0_dp
    fine%u(fine%n, :) = 0.0_dp
    fine%u(:, 0) = 0.0_dp
    fine%u(:, fine%n) = 0.0_dp
  end subroutine prolong_add

  recursive subroutine vcycle(lv, l)
    type(level_t), intent(inout) :: lv(nlev)
    integer, intent(in) :: l
    real(dp) :: rn
    if (l == nlev) then
       call smooth_rbgs(lv(l), nu_coarse)
       return
    end if
    call smooth_rbgs(lv(l), nu_pre)
    call residual(lv(l), rn)
    call restrict_fw(lv(l), lv(l + 1))
    call vcycle(lv, l + 1)
    call prolong_add(lv(l + 1), lv(l))
    call smooth_rbgs(lv(l), nu_post)
  end subroutine vcycle

  subroutine write_snapshot(fname, lv, icase, icyc, rnorm)
    character(len=*), intent(in) :: fname
    type(level_t), intent(in) :: lv
    integer, intent(in) :: icase, icyc
    real(dp), intent(in) :: rnorm
    integer :: un
    open(newunit=un, file=fname, access='stream', form='unformatted', status='replace', action='write')
    write(un) lv%n, icase, icyc, rnorm
    write(un) real(lv%u, kind=4)
    close(un)
  end subroutine write_snapshot

  subroutine read_snapshot(fname, n, u, rnorm)
    character(len=*), intent(in) :: fname
    integer, intent(in) :: n
    real(dp), intent(out) :: u(0:n, 0:n), rnorm
    real(4), allocatable :: buf(:,:)
    integer :: un, nfile, icase, icyc
    open(newunit=un, file=fname, access='stream', form='unformatted', status='old', action='read')
    read(un) nfile, icase, icyc, rnorm
    if (nfile /= n) error stop 'snapshot grid size mismatch'
    allocate(buf(0:n, 0:n))
    read(un) buf
    close(un)
    u = real(buf, dp)
  end subroutine read_snapshot

end module multigrid

program mg_poisson_stream
  use multigrid
  implicit none
  integer, parameter :: ncase = 4, ncycle = 10
  type(level_t) :: lv(nlev)
  character(len=512) :: dir, fname
  integer :: icase, icyc, ulog, n
  real(dp) :: rn, rn_file, rn_prev, err, emax
  real(dp), allocatable :: snap(:,:)

  if (command_argument_count() /= 1) then
     write(*, '(a)') 'usage: mg_poisson_stream scratch_dir'
     stop 2
  end if
  call get_command_argument(1, dir)
  call setup_levels(lv)
  n = lv(1)%n
  allocate(snap(0:n, 0:n))

  open(newunit=ulog, file=trim(dir)//'/convergence.txt', status='replace', action='write')
  write(ulog, '(a)') '# case cycle   residual_l2      ||u_k - u_final||_max   conv_factor'
  do icase = 1, ncase
     call set_source(lv(1), icase)
     do icyc = 1, ncycle
        call vcycle(lv, 1)
        call residual(lv(1), rn)
        write(fname, '(a,"/iterate_c",i1,"_k",i2.2,".bin")') trim(dir), icase, icyc
        call write_snapshot(trim(fname), lv(1), icase, icyc, rn)
     end do
     rn_prev = 0.0_dp
     do icyc = 1, ncycle
        write(fname, '(a,"/iterate_c",i1,"_k",i2.2,".bin")') trim(dir), icase, icyc
        call read_snapshot(trim(fname), n, snap, rn_file)
        err = maxval(abs(snap - lv(1)%u))
        if (rn_prev > 0.0_dp) then
           write(ulog, '(i5,i6,es16.6,es22.6,f12.5)') icase, icyc, rn_file, err, rn_file / rn_prev
        else
           write(ulog, '(i5,i6,es16.6,es22.6)') icase, icyc, rn_file, err
        end if
        rn_prev = rn_file
     end do
     emax = maxval(abs(lv(1)%u))
     write(*, '(a,i0,a,es12.4,a,es12.4)') 'case ', icase, ' final residual ', rn, ' max|u| ', emax
  end do
  close(ulog)
end program mg_poisson_stream
