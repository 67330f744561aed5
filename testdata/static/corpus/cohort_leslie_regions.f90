! cohort_leslie_regions.f90
!
! Regional population projections with age-structured Leslie matrices.
! A scenario namelist and one formatted input file per region (five-year
! age groups: female population, fertility, survival) are generated and
! read back.  For each region the asymptotic growth rate, stable age
! distribution and reproductive values are found by power iteration, the
! sensitivity/elasticity matrices are formed, and a deterministic plus a
! Monte Carlo stochastic projection (random vital rates, percentile bands)
! is run.  Each region gets a formatted projection table; a summary line is
! appended to a CSV built with internal writes, elasticities go to an
! unformatted sequential file.  Finally the summary and the elasticity file
! are read back to rank regions and to average the elasticities.
module demog_kinds
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nage = 21          ! 0-4, 5-9, ..., 100+
end module demog_kinds

module scenario
  use demog_kinds
  implicit none
  integer :: n_regions = 0, n_steps = 0, n_mc = 0
  real(dp) :: fert_sd = 0, surv_sd = 0, net_migration = 0
  namelist /projection/ n_regions, n_steps, n_mc, fert_sd, surv_sd, net_migration
contains
  subroutine write_scenario(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '&projection'
    write(u, '(a)') ' n_regions = 160, n_steps = 20, n_mc = 600,'
    write(u, '(a)') ' fert_sd = 0.08, surv_sd = 0.015, net_migration = 0.002'
    write(u, '(a)') '/'
    close(u)
  end subroutine write_scenario

  subroutine read_scenario(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='old', action='read')
    read(u, nml=projection)
    close(u)
  end subroutine read_scenario
end module scenario

module rng
  use demog_kinds
  implicit none
  integer(8), private :: state = 88172645463325252_8
contains
  subroutine rng_seed(s)
    integer, intent(in) :: s
    state = 88172645463325252_8 + 2654435761_8 * s
  end subroutine rng_seed

  ! Fill x with standard normal deviates (xorshift64 + Box-Muller).
  subroutine normals(x)
    real(dp), intent(out) :: x(:)
    integer :: i
    real(dp) :: u1, u2, r
    do i = 1, size(x), 2
       state = ieor(state, ishft(state, 13))
       state = ieor(state, ishft(state, -7))
       state = ieor(state, ishft(state, 17))
       u1 = (real(ishft(state, -11), dp) + 0.5_dp) / 9007199254740992.0_dp
       state = ieor(state, ishft(state, 13))
       state = ieor(state, ishft(state, -7))
       state = ieor(state, ishft(state, 17))
       u2 = (real(ishft(state, -11), dp) + 0.5_dp) / 9007199254740992.0_dp
       r = sqrt(-2.0_dp * log(u1))
       x(i) = r * cos(6.283185307179586_dp * u2)
       if (i < size(x)) x(i + 1) = r * sin(6.283185307179586_dp * u2)
    end do
  end subroutine normals
end module rng

module region_io
  use demog_kinds
  use rng
  implicit none
  type :: region_t
     character(len=24) :: name
     real(dp) :: pop(nage), fert(nage), surv(nage)
  end type region_t
contains
  subroutine write_region_file(path, k)
    character(len=*), intent(in) :: path
    integer, intent(in) :: k
    integer :: u, a
    real(dp) :: z(4), tfr, lifexp, age, p, f, s, young
    call rng_seed(1000 + k)
    call normals(z)
    tfr = 1.3_dp + 0.9_dp * abs(z(1)) + 0.4_dp * mod(k, 5)
    lifexp = 68.0_dp + 8.0_dp * tanh(z(2))
    young = 1.0_dp + 0.25_dp * z(3)
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a,i4.4)') 'REGION District-', k
    write(u, '(a,f8.3,a,f8.3)') 'TFR ', tfr, ' E0 ', lifexp
    write(u, '(a)') '  age      female   fertility    survival'
    do a = 1, nage
       age = 5.0_dp * (a - 1)
       p = 1.0e4_dp * (1.0_dp + 0.3_dp * mod(k, 7)) * exp(-age / (35.0_dp * young)) &
            * (1.0_dp + 0.1_dp * sin(0.7_dp * a + k))
       f = 0
       ! female births per woman per year; the age schedule sums to ~3.17 over 15-49
       if (age >= 15.0_dp .and. age < 50.0_dp) &
            f = tfr * 0.488_dp / (5.0_dp * 3.17_dp) * exp(-((age - 28.0_dp) / 9.0_dp)**2)
       s = exp(-5.0_dp * (0.0005_dp + 0.00003_dp * exp((age + 2.5_dp) / (lifexp / 6.0_dp))))
       if (a == 1) s = s * 0.985_dp
       if (a == nage) s = 0.35_dp
       write(u, '(i5,f12.1,f12.6,f12.6)') nint(age), p, f, s
    end do
    close(u)
  end subroutine write_region_file

  subroutine read_region_file(path, r)
    character(len=*), intent(in) :: path
    type(region_t), intent(out) :: r
    integer :: u, a, age
    character(len=80) :: line
    open(newunit=u, file=path, status='old', action='read')
    read(u, '(7x,a)') r%name
    read(u, '(a)') line
    read(u, '(a)') line
    do a = 1, nage
       read(u, '(i5,f12.1,f12.6,f12.6)') age, r%pop(a), r%fert(a), r%surv(a)
    end do
    close(u)
  end subroutine read_region_file
end module region_io

module leslie
  use demog_kinds
  use scenario
  use rng
  implicit none
contains
  subroutine build_matrix(fert, surv, L)
    real(dp), intent(in) :: fert(nage), surv(nage)
    real(dp), intent(out) :: L(nage, nage)
    integer :: a
    L = 0
    do a = 1, nage - 1
       ! births over the step from women in group a (average of a and a+1 rates)
       L(1, a) = 0.5_dp * surv(1) * (fert(a) + surv(a) * fert(a + 1)) * 5.0_dp
       L(a + 1, a) = surv(a)
    end do
    L(1, nage) = 0.5_dp * surv(1) * fert(nage) * 5.0_dp
    L(nage, nage) = surv(nage)
  end subroutine build_matrix

  subroutine dominant_eigen(L, lambda, w, v)
    real(dp), intent(in) :: L(nage, nage)
    real(dp), intent(out) :: lambda, w(nage), v(nage)
    real(dp) :: wn(nage), lam_old
    integer :: it
    w = 1.0_dp / nage
    v = 1.0_dp
    lambda = 1
    do it = 1, 5000
       lam_old = lambda
       wn = matmul(L, w)
       lambda = sum(wn)
       w = wn / lambda
       v = matmul(v, L)
       v = v / maxval(v)
       if (abs(lambda - lam_old) < 1.0e-14_dp * lambda .and. it > 50) exit
    end do
    v = v / dot_product(v, w)
  end subroutine dominant_eigen

  subroutine elasticities(L, lambda, w, v, E)
    real(dp), intent(in) :: L(nage, nage), lambda, w(nage), v(nage)
    real(dp), intent(out) :: E(nage, nage)
    integer :: i, j
    do j = 1, nage
       do i = 1, nage
          E(i, j) = L(i, j) / lambda * v(i) * w(j)
       end do
    end do
  end subroutine elasticities

  ! Monte Carlo projections; returns percentiles (5, 50, 95) of total population.
  subroutine stochastic_projection(fert, surv, pop0, pct, old_age_ratio)
    real(dp), intent(in) :: fert(nage), surv(nage), pop0(nage)
    real(dp), intent(out) :: pct(3, 0:n_steps), old_age_ratio(0:n_steps)
    real(dp), allocatable :: tot(:,:), zf(:), zs(:)
    real(dp) :: L(nage, nage), f(nage), s(nage), p(nage), ratio_acc(0:n_steps)
    integer :: m, t
    allocate(tot(n_mc, 0:n_steps), zf(n_steps), zs(n_steps * nage))
    ratio_acc = 0
    do m = 1, n_mc
       p = pop0
       tot(m, 0) = sum(p)
       ratio_acc(0) = ratio_acc(0) + sum(p(14:)) / sum(p(4:13))
       call normals(zf)
       call normals(zs)
       do t = 1, n_steps
          f = fert * exp(fert_sd * zf(t))
          s = min(0.9999_dp, surv * (1.0_dp + surv_sd * zs((t - 1) * nage + 1:t * nage)))
          call build_matrix(f, s, L)
          p = matmul(L, p) * (1.0_dp + 5.0_dp * net_migration)
          tot(m, t) = sum(p)
          ratio_acc(t) = ratio_acc(t) + sum(p(14:)) / sum(p(4:13))
       end do
    end do
    do t = 0, n_steps
       call sort(tot(:, t))
       pct(1, t) = tot(max(1, nint(0.05_dp * n_mc)), t)
       pct(2, t) = tot(max(1, nint(0.50_dp * n_mc)), t)
       pct(3, t) = tot(max(1, nint(0.95_dp * n_mc)), t)
    end do
    old_age_ratio = ratio_acc / n_mc
  end subroutine stochastic_projection

  subroutine sort(x)
    real(dp), intent(inout) :: x(:)
    integer :: i, j
    real(dp) :: t
    do i = 2, size(x)
       t = x(i)
       j = i - 1
       do while (j >= 1)
          if (x(j) <= t) exit
          x(j + 1) = x(j)
          j = j - 1
       end do
       x(j + 1) = t
    end do
  end subroutine sort
end module leslie

program cohort_leslie_regions
  use demog_kinds
  use scenario
  use region_io
  use leslie
  implicit none
  character(len=1024) :: dir
  character(len=1100) :: path
  character(len=200) :: csvline
  type(region_t) :: r
  real(dp) :: L(nage, nage), E(nage, nage), Esum(nage, nage), w(nage), v(nage), lambda
  real(dp), allocatable :: pct(:,:), oar(:), det(:,:), lam_all(:)
  character(len=24), allocatable :: names(:)
  integer :: k, t, u, ue, us, nread, ios, best
  real(dp) :: x1, x2

  if (command_argument_count() /= 1) stop 'usage: cohort_leslie_regions DIR'
  call get_command_argument(1, dir)
  call write_scenario(trim(dir) // '/scenario.nml')
  call read_scenario(trim(dir) // '/scenario.nml')
  do k = 1, n_regions
     write(path, '(a,a,i4.4,a)') trim(dir), '/region_', k, '.dat'
     call write_region_file(trim(path), k)
  end do

  allocate(pct(3, 0:n_steps), oar(0:n_steps), det(nage, 0:n_steps))
  open(newunit=us, file=trim(dir) // '/summary.csv', status='replace', action='write')
  write(us, '(a)') 'region,lambda,r_annual,pop0,median_2120,p05_2120,p95_2120,old_age_ratio_2120'
  close(us)
  open(newunit=ue, file=trim(dir) // '/elasticity.bin', form='unformatted', access='sequential', &
       status='replace', action='write')
  do k = 1, n_regions
     write(path, '(a,a,i4.4,a)') trim(dir), '/region_', k, '.dat'
     call read_region_file(trim(path), r)
     call build_matrix(r%fert, r%surv, L)
     call dominant_eigen(L, lambda, w, v)
     call elasticities(L, lambda, w, v, E)
     write(ue) k, lambda, E
     det(:, 0) = r%pop
     do t = 1, n_steps
        det(:, t) = matmul(L, det(:, t - 1))
     end do
     call rng_seed(77 * k)
     call stochastic_projection(r%fert, r%surv, r%pop, pct, oar)

     write(path, '(a,a,i4.4,a)') trim(dir), '/projection_', k, '.txt'
     open(newunit=u, file=trim(path), status='replace', action='write')
     write(u, '(a,a,a,f9.6)') '# ', trim(r%name), '  lambda(5y)=', lambda
     write(u, '(a)') '# year   deterministic        p05          median         p95    old-age ratio'
     do t = 0, n_steps
        write(u, '(i6,4f14.1,f12.4)') 2020 + 5 * t, sum(det(:, t)), pct(1, t), pct(2, t), pct(3, t), oar(t)
     end do
     write(u, '(a)') '# stable age distribution and reproductive value'
     do t = 1, nage
        write(u, '(a,i3,2f12.6)') '#', 5 * (t - 1), w(t), v(t)
     end do
     close(u)

     write(csvline, '(a,",",f10.6,",",f10.6,",",f12.1,3(",",f14.1),",",f8.4)') trim(r%name), lambda, &
          log(lambda) / 5.0_dp, sum(r%pop), pct(2, n_steps), pct(1, n_steps), pct(3, n_steps), oar(n_steps)
     open(newunit=us, file=trim(dir) // '/summary.csv', status='old', position='append', action='write')
     write(us, '(a)') trim(csvline)
     close(us)
  end do
  close(ue)

  ! ---- read back: rank by growth, mean elasticity
  allocate(lam_all(n_regions), names(n_regions))
  open(newunit=us, file=trim(dir) // '/summary.csv', status='old', action='read')
  read(us, '(a)') csvline
  nread = 0
  do
     read(us, '(a)', iostat=ios) csvline
     if (ios /= 0) exit
     nread = nread + 1
     names(nread) = csvline(1:index(csvline, ',') - 1)
     csvline = csvline(index(csvline, ',') + 1:)
     read(csvline, *) lam_all(nread)
  end do
  close(us)
  open(newunit=u, file=trim(dir) // '/ranking.txt', status='replace', action='write')
  do k = 1, nread
     best = maxloc(lam_all(1:nread), 1)
     write(u, '(i4,2x,a24,f10.6)') k, names(best), lam_all(best)
     lam_all(best) = -1
  end do
  close(u)

  Esum = 0
  open(newunit=ue, file=trim(dir) // '/elasticity.bin', form='unformatted', access='sequential', &
       status='old', action='read')
  do k = 1, n_regions
     read(ue) t, lambda, E
     Esum = Esum + E
  end do
  close(ue)
  Esum = Esum / n_regions
  open(newunit=u, file=trim(dir) // '/mean_elasticity.txt', status='replace', action='write')
  x1 = sum(Esum(1, :))
  x2 = 0
  do k = 1, nage - 1
     x2 = x2 + Esum(k + 1, k)
  end do
  write(u, '(a,f8.5,a,f8.5)') 'fertility share ', x1, '  survival share ', x2 + Esum(nage, nage)
  do k = 1, nage
     write(u, '(21f7.4)') Esum(k, :)
  end do
  close(u)
  print '(a,i0,a)', 'projected ', n_regions, ' regions'
end program cohort_leslie_regions
