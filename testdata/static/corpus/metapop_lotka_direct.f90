! metapop_lotka_direct.f90
!
! Predator-prey metapopulation on a ring-with-shortcuts network of habitat
! patches (Rosenzweig-MacArthur dynamics with density-dependent dispersal,
! integrated with classical RK4).  Every sampled time level is stored in an
! unformatted DIRECT-access file, one fixed-length record per (time, patch).
! The analysis phase reads the records back patch by patch (a strided
! record pattern), estimates oscillation period, amplitude and synchrony,
! and writes the per-patch results into a FORMATTED direct-access table,
! which is finally read back in reverse order to print a ranked report.
program metapop_lotka_direct
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: npatch = 200, nlinks = 4, nsample = 1600, substeps = 80
  integer, parameter :: n_transient = 540   ! samples discarded as spin-up
  real(dp), parameter :: dt = 0.005_dp
  character(len=512) :: dir
  integer :: nbr(nlinks, npatch)
  real(dp) :: state(2, npatch), r(npatch), kcap(npatch)
  real(dp) :: mean_prey(npatch), period(npatch), amp(npatch), sync(npatch)
  integer :: rec_len, s, k

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) stop 'usage: metapop_lotka_direct DIR'

  call build_network(nbr, npatch, nlinks)
  call init_patches(state, r, kcap, npatch)
  inquire(iolength=rec_len) 0.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, 0

  call simulate(trim(dir)//'/trajectory.da', rec_len)
  call analyse(trim(dir)//'/trajectory.da', rec_len)
  call write_summary_table(trim(dir)//'/patch_table.fda')
  call ranked_report(trim(dir)//'/patch_table.fda', trim(dir)//'/ranking.txt')

contains

  subroutine build_network(nb, n, nl)
    integer, intent(in) :: n, nl
    integer, intent(out) :: nb(nl, n)
    integer :: i
    do i = 1, n
       nb(1, i) = modulo(i - 2, n) + 1
       nb(2, i) = modulo(i, n) + 1
       nb(3, i) = modulo(i * 7 + 3, n) + 1     ! long-range shortcuts
       nb(4, i) = modulo(i * 13 + n / 2, n) + 1
    end do
  end subroutine build_network

  subroutine init_patches(x, growth, cap, n)
    integer, intent(in) :: n
    real(dp), intent(out) :: x(2, n), growth(n), cap(n)
    integer :: i
    do i = 1, n
       growth(i) = 1.0_dp + 0.3_dp * sin(0.37_dp * i)
       cap(i) = 2.5_dp + 0.8_dp * cos(0.11_dp * i)
       x(1, i) = 0.8_dp + 0.4_dp * sin(1.3_dp * i)
       x(2, i) = 0.3_dp + 0.2_dp * cos(0.7_dp * i)
    end do
  end subroutine init_patches

  ! Local Rosenzweig-MacArthur kinetics plus predator-density-driven dispersal.
  subroutine rhs(x, dx, n)
    integer, intent(in) :: n
    real(dp), intent(in) :: x(2, n)
    real(dp), intent(out) :: dx(2, n)
    real(dp), parameter :: a = 1.2_dp, h = 0.6_dp, e = 0.5_dp, m = 0.25_dp, d0 = 0.02_dp
    real(dp) :: f, emig(2)
    integer :: i, j
    do i = 1, n
       f = a * x(1, i) / (1.0_dp + a * h * x(1, i))
       dx(1, i) = r(i) * x(1, i) * (1.0_dp - x(1, i) / kcap(i)) - f * x(2, i)
       dx(2, i) = e * f * x(2, i) - m * x(2, i)
    end do
    do i = 1, n
       emig(1) = d0 * x(1, i)
       emig(2) = d0 * (1.0_dp + x(2, i)) * x(2, i)
       dx(:, i) = dx(:, i) - nlinks * emig
       do j = 1, nlinks
          dx(:, nbr(j, i)) = dx(:, nbr(j, i)) + emig
       end do
    end do
  end subroutine rhs

  subroutine rk4_step(x, n, h)
    integer, intent(in) :: n
    real(dp), intent(inout) :: x(2, n)
    real(dp), intent(in) :: h
    real(dp) :: k1(2, n), k2(2, n), k3(2, n), k4(2, n)
    call rhs(x, k1, n)
    call rhs(x + 0.5_dp * h * k1, k2, n)
    call rhs(x + 0.5_dp * h * k2, k3, n)
    call rhs(x + h * k3, k4, n)
    x = x + h / 6.0_dp * (k1 + 2 * k2 + 2 * k3 + k4)
  end subroutine rk4_step

  subroutine simulate(path, rl)
    character(len=*), intent(in) :: path
    integer, intent(in) :: rl
    integer :: u, isamp, j, i, flag
    real(dp) :: t
    open(newunit=u, file=path, access='direct', form='unformatted', recl=rl, &
         status='replace', action='write')
    t = 0
    do isamp = 1, nsample
       do j = 1, substeps
          call rk4_step(state, npatch, dt)
          t = t + dt
       end do
       do i = 1, npatch
          flag = 0
          if (state(2, i) < 1.0e-4_dp) flag = 1
          write(u, rec=(isamp - 1) * npatch + i) t, state(1, i), state(2, i), &
               state(1, i) + state(2, i), flag
       end do
    end do
    close(u)
  end subroutine simulate

  ! Read each patch's time series (every npatch-th record) and characterise it.
  subroutine analyse(path, rl)
    character(len=*), intent(in) :: path
    integer, intent(in) :: rl
    integer :: u, i, isamp, flag, ncross, first, last
    real(dp) :: t, prey, pred, tot, mu, lo, hi, pm
    real(dp) :: series(nsample), times(nsample), global(nsample)
    open(newunit=u, file=path, access='direct', form='unformatted', recl=rl, &
         status='old', action='read')
    global = 0
    do i = 1, npatch
       do isamp = 1, nsample
          read(u, rec=(isamp - 1) * npatch + i) t, prey, pred, tot, flag
          series(isamp) = prey
          times(isamp) = t
          global(isamp) = global(isamp) + prey / npatch
       end do
       ! discard the spin-up samples as transient
       mu = sum(series(n_transient:)) / size(series(n_transient:))
       lo = minval(series(n_transient:)); hi = maxval(series(n_transient:))
       ncross = 0; first = 0; last = 0
       do isamp = n_transient + 1, nsample
          if (series(isamp - 1) < mu .and. series(isamp) >= mu) then
             ncross = ncross + 1
             if (first == 0) first = isamp
             last = isamp
          end if
       end do
       mean_prey(i) = mu
       amp(i) = 0.5_dp * (hi - lo)
       period(i) = 0
       if (ncross > 1) period(i) = (times(last) - times(first)) / (ncross - 1)
    end do
    ! synchrony: correlation of each patch with the network mean (second pass)
    pm = sum(global(n_transient:)) / size(global(n_transient:))
    do i = 1, npatch
       do isamp = 1, nsample
          read(u, rec=(isamp - 1) * npatch + i) t, prey, pred, tot, flag
          series(isamp) = prey
       end do
       sync(i) = correlation(series(n_transient:), global(n_transient:), mean_prey(i), pm)
    end do
    close(u)
  end subroutine analyse

  real(dp) function correlation(a, b, ma, mb) result(c)
    real(dp), intent(in) :: a(:), b(:), ma, mb
    c = sum((a - ma) * (b - mb)) / sqrt(sum((a - ma)**2) * sum((b - mb)**2) + 1.0e-300_dp)
  end function correlation

  subroutine write_summary_table(path)
    character(len=*), intent(in) :: path
    integer :: u, i
    open(newunit=u, file=path, access='direct', form='formatted', recl=72, &
         status='replace', action='write')
    do i = 1, npatch
       write(u, '(i5,4es15.6,a)', rec=i) i, mean_prey(i), amp(i), period(i), sync(i), '      '
    end do
    close(u)
  end subroutine write_summary_table

  subroutine ranked_report(table, out)
    character(len=*), intent(in) :: table, out
    integer :: u, v, i, idx(npatch), id, j, tmp
    real(dp) :: mp, a, p, sy, key(npatch)
    open(newunit=u, file=table, access='direct', form='formatted', recl=72, &
         status='old', action='read')
    do i = npatch, 1, -1
       read(u, '(i5,4es15.6)', rec=i) id, mp, a, p, sy
       key(id) = a * sy
       idx(i) = i
    end do
    close(u)
    do i = 2, npatch          ! insertion sort by key, descending
       tmp = idx(i); j = i - 1
       do while (j >= 1)
          if (key(idx(j)) >= key(tmp)) exit
          idx(j + 1) = idx(j); j = j - 1
       end do
       idx(j + 1) = tmp
    end do
    open(newunit=v, file=out, status='replace', action='write')
    write(v, '(a)') '# rank patch  mean_prey  amplitude  period  synchrony'
    do i = 1, npatch
       s = idx(i)
       write(v, '(i5,i6,4f11.5)') i, s, mean_prey(s), amp(s), period(s), sync(s)
    end do
    close(v)
    k = idx(1)
    print '(a,i0,a,f8.4,a,f8.4)', 'most synchronous large-amplitude patch: ', k, &
         ' period ', period(k), ' sync ', sync(k)
  end subroutine ranked_report

end program metapop_lotka_direct
