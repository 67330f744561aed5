! Transient firn densification and heat transport at four polar ice-sheet sites.
! Herron-Langway two-stage densification with local (Arrhenius) temperature
! dependence, implicit heat conduction with density-dependent conductivity,
! vertical advection by the accumulation-driven burial velocity and an ice-age
! tracer.  Writes a formatted run log, yearly depth-profile tables and a
! cross-site summary with a close-off depth regression.
module firn_model
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: NZ = 480
  integer, parameter :: NSITES = 4
  integer, parameter :: STEPS_PER_YEAR = 365
  integer, parameter :: LOG_EVERY = 15
  integer, parameter :: AVG_YEARS = 20
  real(dp), parameter :: DZ = 0.25_dp
  real(dp), parameter :: RHO_ICE = 917.0_dp
  real(dp), parameter :: RHO_CO = 830.0_dp
  real(dp), parameter :: RHO_CRIT = 550.0_dp
  real(dp), parameter :: RGAS = 8.314_dp
  real(dp), parameter :: SEC_YR = 3.15576e7_dp
  real(dp), parameter :: GEO_FLUX = 0.055_dp
  real(dp), parameter :: PI = 3.14159265358979_dp

  character(len=12) :: site_name(NSITES) = [character(len=12) :: &
       'summit', 'dome_c', 'wais_divide', 'law_dome']
  real(dp) :: site_tmean(NSITES) = [241.0_dp, 219.5_dp, 242.0_dp, 251.0_dp]
  real(dp) :: site_tamp(NSITES)  = [14.0_dp, 20.0_dp, 12.0_dp, 9.0_dp]
  real(dp) :: site_acc(NSITES)   = [0.24_dp, 0.028_dp, 0.22_dp, 0.68_dp]
  real(dp) :: site_rhos(NSITES)  = [320.0_dp, 340.0_dp, 360.0_dp, 400.0_dp]
  integer  :: site_years(NSITES) = [90, 90, 90, 90]

  integer(8) :: rng_state = 88172645463325252_8

contains

  function rng_uniform() result(u)
    real(dp) :: u
    rng_state = ieor(rng_state, ishft(rng_state, 13))
    rng_state = ieor(rng_state, ishft(rng_state, -7))
    rng_state = ieor(rng_state, ishft(rng_state, 17))
    u = (real(ishft(rng_state, -11), dp) + 0.5_dp) * 2.0_dp**(-53)
  end function rng_uniform

  function rng_gauss() result(g)
    real(dp) :: g, u1, u2
    u1 = rng_uniform()
    u2 = rng_uniform()
    g = sqrt(-2.0_dp * log(u1)) * cos(2.0_dp * PI * u2)
  end function rng_gauss

  pure function conductivity(rho) result(k)
    real(dp), intent(in) :: rho
    real(dp) :: k
    k = 0.021_dp + 2.5_dp * (rho / 1000.0_dp)**2
  end function conductivity

  pure function heat_capacity(t) result(c)
    real(dp), intent(in) :: t
    real(dp) :: c
    c = 152.5_dp + 7.122_dp * t
  end function heat_capacity

  pure function hl_rate(rho, t, a_we) result(r)
    real(dp), intent(in) :: rho, t, a_we
    real(dp) :: r
    if (rho < RHO_CRIT) then
       r = 11.0_dp * exp(-10160.0_dp / (RGAS * t)) * a_we * (RHO_ICE - rho)
    else
       r = 575.0_dp * exp(-21400.0_dp / (RGAS * t)) * sqrt(a_we) * (RHO_ICE - rho)
    end if
    r = max(r, 0.0_dp)
  end function hl_rate

  ! Steady-state Herron-Langway profile integrated downward from the surface.
  subroutine init_steady_profile(is, rho, temp, age)
    integer, intent(in) :: is
    real(dp), intent(out) :: rho(NZ), temp(NZ), age(NZ)
    integer, parameter :: NSUB = 40
    real(dp) :: r, rm, h, a_we, w, wm, tm
    integer :: i, j
    tm = site_tmean(is)
    a_we = site_acc(is) * RHO_ICE / 1000.0_dp
    h = DZ / NSUB
    r = site_rhos(is)
    rho(1) = r
    age(1) = 0.0_dp
    temp(1) = tm
    do i = 2, NZ
       age(i) = age(i-1)
       do j = 1, NSUB
          w = RHO_ICE * site_acc(is) / r
          rm = r + 0.5_dp * h * hl_rate(r, tm, a_we) / w
          wm = RHO_ICE * site_acc(is) / rm
          r = min(r + h * hl_rate(rm, tm, a_we) / wm, RHO_ICE - 0.5_dp)
          age(i) = age(i) + h / wm
       end do
       rho(i) = r
       temp(i) = temp(i-1) + DZ * GEO_FLUX / conductivity(rho(i))
    end do
  end subroutine init_steady_profile

  ! Surface temperature (seasonal cycle plus synoptic noise) and accumulation
  ! (AR(1) anomaly around the site mean).
  subroutine surface_forcing(is, tyear, acc_anom, ts, acc, rhos)
    integer, intent(in) :: is
    real(dp), intent(in) :: tyear
    real(dp), intent(inout) :: acc_anom
    real(dp), intent(out) :: ts, acc, rhos
    real(dp) :: phase
    phase = 2.0_dp * PI * (tyear - 0.05_dp)
    ts = site_tmean(is) + site_tamp(is) * cos(phase) + 2.5_dp * rng_gauss()
    acc_anom = 0.995_dp * acc_anom + 0.1_dp * sqrt(1.0_dp - 0.995_dp**2) * rng_gauss()
    acc = site_acc(is) * max(0.2_dp, 1.0_dp + acc_anom)
    rhos = site_rhos(is) + 25.0_dp * cos(phase) + 10.0_dp * rng_gauss()
  end subroutine surface_forcing

  subroutine solve_tridiag(n, a, b, c, d, x)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n), b(n), c(n), d(n)
    real(dp), intent(out) :: x(n)
    real(dp) :: cp(n), dp_(n), m
    integer :: i
    cp(1) = c(1) / b(1)
    dp_(1) = d(1) / b(1)
    do i = 2, n
       m = b(i) - a(i) * cp(i-1)
       cp(i) = c(i) / m
       dp_(i) = (d(i) - a(i) * dp_(i-1)) / m
    end do
    x(n) = dp_(n)
    do i = n - 1, 1, -1
       x(i) = dp_(i) - cp(i) * x(i+1)
    end do
  end subroutine solve_tridiag

  ! Implicit conduction, explicit upwind advection, Dirichlet top and
  ! geothermal flux at the base.
  subroutine step_heat(rho, temp, w, ts, dt)
    real(dp), intent(in) :: rho(NZ), w(NZ), ts, dt
    real(dp), intent(inout) :: temp(NZ)
    real(dp) :: a(NZ), b(NZ), c(NZ), d(NZ), kf(NZ), rc, fac
    integer :: i
    do i = 1, NZ - 1
       kf(i) = 0.5_dp * (conductivity(rho(i)) + conductivity(rho(i+1)))
    end do
    kf(NZ) = conductivity(rho(NZ))
    a(1) = 0.0_dp; b(1) = 1.0_dp; c(1) = 0.0_dp; d(1) = ts
    do i = 2, NZ
       rc = rho(i) * heat_capacity(temp(i))
       fac = dt * SEC_YR / (rc * DZ * DZ)
       a(i) = -fac * kf(i-1)
       d(i) = temp(i) - dt * w(i) * (temp(i) - temp(i-1)) / DZ
       if (i < NZ) then
          c(i) = -fac * kf(i)
          b(i) = 1.0_dp - a(i) - c(i)
       else
          c(i) = 0.0_dp
          b(i) = 1.0_dp - a(i)
          d(i) = d(i) + dt * SEC_YR * GEO_FLUX / (rc * DZ)
       end if
    end do
    call solve_tridiag(NZ, a, b, c, d, temp)
  end subroutine step_heat

  ! Burial velocity from mass flux, densification and ice-age advection.
  subroutine step_density_age(rho, temp, age, w, rate, acc, rhos, dt)
    real(dp), intent(inout) :: rho(NZ), age(NZ)
    real(dp), intent(in) :: temp(NZ), acc, rhos, dt
    real(dp), intent(out) :: w(NZ), rate(NZ)
    real(dp) :: a_we, rold(NZ), aold(NZ)
    integer :: i
    a_we = acc * RHO_ICE / 1000.0_dp
    rold = rho
    aold = age
    do i = 1, NZ
       w(i) = RHO_ICE * acc / rold(i)
       rate(i) = hl_rate(rold(i), temp(i), a_we)
    end do
    rho(1) = rhos
    age(1) = 0.0_dp
    do i = 2, NZ
       rho(i) = rold(i) + dt * (rate(i) - w(i) * (rold(i) - rold(i-1)) / DZ)
       rho(i) = min(rho(i), RHO_ICE - 0.1_dp)
       age(i) = aold(i) + dt * (1.0_dp - w(i) * (aold(i) - aold(i-1)) / DZ)
    end do
  end subroutine step_density_age

  ! Close-off depth, ice age at close-off and firn air content.
  subroutine diagnostics(rho, age, zco, age_co, fac)
    real(dp), intent(in) :: rho(NZ), age(NZ)
    real(dp), intent(out) :: zco, age_co, fac
    integer :: i
    real(dp) :: f
    zco = (NZ - 1) * DZ
    age_co = age(NZ)
    do i = 2, NZ
       if (rho(i) >= RHO_CO .and. rho(i-1) < RHO_CO) then
          f = (RHO_CO - rho(i-1)) / (rho(i) - rho(i-1))
          zco = (i - 2 + f) * DZ
          age_co = age(i-1) + f * (age(i) - age(i-1))
          exit
       end if
    end do
    fac = 0.0_dp
    do i = 1, NZ
       fac = fac + (RHO_ICE - rho(i)) / RHO_ICE * DZ
    end do
  end subroutine diagnostics

  subroutine write_profile_table(u, is, year, rho, temp, age, w, rate)
    integer, intent(in) :: u, is, year
    real(dp), intent(in) :: rho(NZ), temp(NZ), age(NZ), w(NZ), rate(NZ)
    integer :: i
    write(u, '(A,A,A,I5)') '# site ', trim(site_name(is)), '  year ', year
    write(u, '(A)') '#   depth_m    rho_kgm3     T_K     age_yr    w_m_yr    drho_dt     porosity'
    do i = 1, NZ
       write(u, '(F10.3,1X,F11.3,1X,F8.3,1X,F10.3,1X,F9.5,1X,ES12.4,1X,F9.5)') &
            (i - 1) * DZ, rho(i), temp(i), age(i), w(i), rate(i), 1.0_dp - rho(i) / RHO_ICE
    end do
    write(u, '(A)') ''
  end subroutine write_profile_table

  ! Time-integrates one site and writes its log and profile tables.
  subroutine run_site(is, outdir, zco_mean, zco_sd, fac_mean, dage_mean, zco_ss)
    integer, intent(in) :: is
    character(len=*), intent(in) :: outdir
    real(dp), intent(out) :: zco_mean, zco_sd, fac_mean, dage_mean, zco_ss
    real(dp) :: rho(NZ), temp(NZ), age(NZ), w(NZ), rate(NZ)
    real(dp) :: dt, tyear, ts, acc, rhos, acc_anom, zco, age_co, fac, dum
    real(dp) :: s1, s2, sf, sa
    integer :: step, nsteps, year, ulog, uprof, nav
    character(len=600) :: fname

    call init_steady_profile(is, rho, temp, age)
    call diagnostics(rho, age, zco_ss, dum, fac)
    dt = 1.0_dp / STEPS_PER_YEAR
    nsteps = site_years(is) * STEPS_PER_YEAR
    acc_anom = 0.0_dp
    s1 = 0.0_dp; s2 = 0.0_dp; sf = 0.0_dp; sa = 0.0_dp; nav = 0

    ulog = 20 + is
    uprof = 40 + is
    fname = trim(outdir) // '/firn_log_' // trim(site_name(is)) // '.txt'
    open(unit=ulog, file=trim(fname), status='replace', action='write')
    fname = trim(outdir) // '/firn_profiles_' // trim(site_name(is)) // '.txt'
    open(unit=uprof, file=trim(fname), status='replace', action='write')
    write(ulog, '(A,A)') '# firn run log for ', trim(site_name(is))
    write(ulog, '(A,F8.2,A,F7.3,A,F8.2)') '# Tmean ', site_tmean(is), ' acc ', site_acc(is), &
         ' steady close-off ', zco_ss
    write(ulog, '(A)') '#  step     year       Ts    T10m    Tbase    z_co      FAC       age_co     acc'

    do step = 1, nsteps
       tyear = (step - 1) * dt
       call surface_forcing(is, tyear, acc_anom, ts, acc, rhos)
       call step_density_age(rho, temp, age, w, rate, acc, rhos, dt)
       call step_heat(rho, temp, w, ts, dt)
       if (mod(step, LOG_EVERY) == 0) then
          call diagnostics(rho, age, zco, age_co, fac)
          write(ulog, '(I7,1X,F8.3,1X,F8.3,1X,F8.3,1X,F8.3,1X,F8.3,1X,ES11.4,1X,F10.2,1X,F7.4)') &
               step, tyear, ts, temp(41), temp(NZ), zco, fac, age_co, acc
       end if
       if (mod(step, STEPS_PER_YEAR) == 0) then
          year = step / STEPS_PER_YEAR
          call write_profile_table(uprof, is, year, rho, temp, age, w, rate)
          if (year > site_years(is) - AVG_YEARS) then
             call diagnostics(rho, age, zco, age_co, fac)
             s1 = s1 + zco; s2 = s2 + zco * zco
             sf = sf + fac; sa = sa + age_co; nav = nav + 1
          end if
       end if
    end do
    close(ulog)
    close(uprof)
    zco_mean = s1 / nav
    zco_sd = sqrt(max(0.0_dp, s2 / nav - zco_mean**2))
    fac_mean = sf / nav
    dage_mean = sa / nav
  end subroutine run_site

  ! Least-squares fit z_co = c0 + c1*(T-240) + c2*ln(acc) across sites.
  subroutine regress_closeoff(z, coef)
    real(dp), intent(in) :: z(NSITES)
    real(dp), intent(out) :: coef(3)
    real(dp) :: a(3,3), rhs(3), x(3), f
    integer :: i, j, k
    a = 0.0_dp; rhs = 0.0_dp
    do k = 1, NSITES
       x = [1.0_dp, site_tmean(k) - 240.0_dp, log(site_acc(k))]
       do i = 1, 3
          do j = 1, 3
             a(i,j) = a(i,j) + x(i) * x(j)
          end do
          rhs(i) = rhs(i) + x(i) * z(k)
       end do
    end do
    do i = 1, 3
       a(i,i) = a(i,i) + 1.0e-9_dp
    end do
    do k = 1, 2
       do i = k + 1, 3
          f = a(i,k) / a(k,k)
          a(i,k:3) = a(i,k:3) - f * a(k,k:3)
          rhs(i) = rhs(i) - f * rhs(k)
       end do
    end do
    do i = 3, 1, -1
       coef(i) = (rhs(i) - sum(a(i,i+1:3) * coef(i+1:3))) / a(i,i)
    end do
  end subroutine regress_closeoff

  subroutine write_summary(u, zm, zs, fm, dm, zss, coef)
    integer, intent(in) :: u
    real(dp), intent(in) :: zm(NSITES), zs(NSITES), fm(NSITES), dm(NSITES), zss(NSITES), coef(3)
    integer :: k
    real(dp) :: pred
    write(u, '(A)') '# firn densification summary (last 20 model years)'
    write(u, '(A)') '# site          Tmean    acc     z_co_mean  z_co_sd   z_co_steady   FAC_m   age_co_yr   z_fit'
    do k = 1, NSITES
       pred = coef(1) + coef(2) * (site_tmean(k) - 240.0_dp) + coef(3) * log(site_acc(k))
       write(u, '(A12,1X,F8.2,1X,F7.3,1X,F10.3,1X,ES10.3,1X,F11.3,1X,F8.3,1X,F10.2,1X,F9.3)') &
            site_name(k), site_tmean(k), site_acc(k), zm(k), zs(k), zss(k), fm(k), dm(k), pred
    end do
    write(u, '(A,3(1X,ES13.5))') '# regression z_co = c0 + c1*(T-240) + c2*ln(acc):', coef
  end subroutine write_summary

end module firn_model

program firn_densification_heat_tables
  use firn_model
  implicit none
  character(len=512) :: outdir
  real(dp) :: zm(NSITES), zs(NSITES), fm(NSITES), dm(NSITES), zss(NSITES), coef(3)
  integer :: is

  if (command_argument_count() /= 1) then
     write(*, '(A)') 'usage: firn_densification_heat_tables OUTDIR'
     stop 1
  end if
  call get_command_argument(1, outdir)

  do is = 1, NSITES
     call run_site(is, trim(outdir), zm(is), zs(is), fm(is), dm(is), zss(is))
     write(*, '(A,A12,A,F8.3,A,F8.3)') 'site ', site_name(is), ' close-off depth ', zm(is), &
          ' m, steady ', zss(is)
  end do
  call regress_closeoff(zm, coef)
  open(unit=30, file=trim(outdir) // '/firn_summary.txt', status='replace', action='write')
  call write_summary(30, zm, zs, fm, dm, zss, coef)
  close(30)
end program firn_densification_heat_tables
