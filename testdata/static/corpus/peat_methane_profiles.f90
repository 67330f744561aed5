! peat_methane_profiles.f90
! One-dimensional peatland column model: heat conduction from a seasonal
! surface temperature, water-table driven oxic/anoxic zones, diffusion of
! O2 and CH4, Q10-scaled methanogenesis, Michaelis-Menten methanotrophy,
! ebullition and plant-mediated transport.  Formatted depth profiles are
! written every NOUT steps, a daily flux table is written each day, and at
! the end the profile file is re-read to build a seasonal depth climatology.
module peat_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nz = 256            ! layers
  real(dp), parameter :: dz = 0.00625_dp    ! m  (1.6 m column)
  integer, parameter :: ndays = 365
  integer, parameter :: steps_per_day = 48
  integer, parameter :: nout = 24           ! profile every 12 h
  real(dp), parameter :: dt = 86400.0_dp / steps_per_day
  real(dp), parameter :: pi = 3.14159265358979_dp
  real(dp) :: temp(nz), o2(nz), ch4(nz), doc(nz), porosity(nz), roots(nz)
  real(dp) :: wtd                            ! water table depth (m, positive down)
  real(dp) :: flux_diff, flux_ebul, flux_plant, prod_tot, oxid_tot
  integer(8) :: seed = 20240611_8
contains

  real(dp) function urand()
    seed = mod(seed * 16807_8, 2147483647_8)
    urand = real(seed, dp) / 2147483647.0_dp
  end function urand

  subroutine init_column()
    integer :: k
    real(dp) :: z
    do k = 1, nz
      z = (k - 0.5_dp) * dz
      porosity(k) = 0.95_dp - 0.12_dp * z / (nz * dz)
      roots(k) = exp(-z / 0.25_dp)
      temp(k) = 4.0_dp + 2.0_dp * exp(-z / 0.5_dp)
      o2(k) = 0.25_dp * exp(-z / 0.05_dp)
      ch4(k) = 0.05_dp * (1.0_dp - exp(-z / 0.3_dp))
      doc(k) = 2.0_dp + 1.5_dp * exp(-z / 0.4_dp)
    end do
    wtd = 0.15_dp
  end subroutine init_column

  subroutine update_hydrology(day, frac)
    integer, intent(in) :: day
    real(dp), intent(in) :: frac
    real(dp) :: rain
    ! seasonal drawdown with stochastic rain pulses
    wtd = wtd + 0.0009_dp * (1.0_dp + sin(2.0_dp * pi * (day + frac - 100.0_dp) / 365.0_dp)) / steps_per_day
    rain = urand()
    if (rain > 0.985_dp) wtd = wtd - 0.02_dp * urand()
    wtd = max(0.0_dp, min(0.6_dp, wtd))
  end subroutine update_hydrology

  subroutine solve_tridiag(n, a, b, c, r, x)
    ! Thomas algorithm for a(i) x(i-1) + b(i) x(i) + c(i) x(i+1) = r(i)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n), b(n), c(n), r(n)
    real(dp), intent(out) :: x(n)
    real(dp) :: cp(n), rp(n), m
    integer :: i
    cp(1) = c(1) / b(1)
    rp(1) = r(1) / b(1)
    do i = 2, n
      m = b(i) - a(i) * cp(i-1)
      cp(i) = c(i) / m
      rp(i) = (r(i) - a(i) * rp(i-1)) / m
    end do
    x(n) = rp(n)
    do i = n - 1, 1, -1
      x(i) = rp(i) - cp(i) * x(i+1)
    end do
  end subroutine solve_tridiag

  subroutine implicit_diffusion(d, u, utop, flux)
    ! backward-Euler diffusion with Dirichlet top (half cell) and no-flux bottom
    real(dp), intent(in) :: d(nz), utop
    real(dp), intent(inout) :: u(nz)
    real(dp), intent(out) :: flux
    real(dp) :: a(nz), b(nz), c(nz), r(nz), lam, dm, dp1
    integer :: k
    lam = dt / dz**2
    do k = 1, nz
      if (k > 1) then
        dm = 0.5_dp * (d(k) + d(k-1))
      else
        dm = 2.0_dp * d(1)
      end if
      if (k < nz) then
        dp1 = 0.5_dp * (d(k) + d(k+1))
      else
        dp1 = 0.0_dp
      end if
      a(k) = -lam * dm
      c(k) = -lam * dp1
      b(k) = 1.0_dp + lam * (dm + dp1)
      r(k) = u(k)
    end do
    r(1) = r(1) + lam * 2.0_dp * d(1) * utop
    a(1) = 0.0_dp
    call solve_tridiag(nz, a, b, c, r, u)
    u = max(u, 0.0_dp)
    flux = 2.0_dp * d(1) * (u(1) - utop) / dz * dt
  end subroutine implicit_diffusion

  subroutine heat_conduction(day, frac)
    integer, intent(in) :: day
    real(dp), intent(in) :: frac
    real(dp) :: tsurf, kap(nz), f, z
    integer :: k
    tsurf = 6.0_dp - 11.0_dp * cos(2.0_dp * pi * (day + frac - 15.0_dp) / 365.0_dp) &
          + 4.0_dp * sin(2.0_dp * pi * frac)
    do k = 1, nz
      z = (k - 0.5_dp) * dz
      if (z < wtd) then
        kap(k) = 0.8e-7_dp
      else
        kap(k) = 1.3e-7_dp
      end if
    end do
    ! temperature may go negative: shift to keep the clamp in implicit_diffusion harmless
    temp = temp + 40.0_dp
    call implicit_diffusion(kap, temp, tsurf + 40.0_dp, f)
    temp = temp - 40.0_dp
  end subroutine heat_conduction

  subroutine diffuse_gases()
    ! air-filled layers above the water table diffuse ~1e3 times faster
    real(dp) :: d(nz), z, fo
    integer :: k
    do k = 1, nz
      z = (k - 0.5_dp) * dz
      if (z < wtd) then
        d(k) = 2.0e-6_dp * porosity(k)**1.33_dp
      else
        d(k) = 2.0e-9_dp * porosity(k)**1.33_dp
      end if
    end do
    call implicit_diffusion(d, o2, 0.27_dp, fo)
    call implicit_diffusion(d, ch4, 0.0001_dp, flux_diff)
  end subroutine diffuse_gases

  subroutine biogeochemistry()
    integer :: k
    real(dp) :: z, q10p, q10o, prod, oxid, resp, inhib
    prod_tot = 0.0_dp
    oxid_tot = 0.0_dp
    do k = 1, nz
      z = (k - 0.5_dp) * dz
      q10p = 3.5_dp ** ((temp(k) - 10.0_dp) / 10.0_dp)
      q10o = 2.0_dp ** ((temp(k) - 10.0_dp) / 10.0_dp)
      inhib = 1.0_dp / (1.0_dp + o2(k) / 0.002_dp)
      prod = 0.0_dp
      if (z >= wtd) prod = 2.0e-7_dp * q10p * doc(k) / (doc(k) + 1.0_dp) * inhib
      oxid = 5.0e-6_dp * q10o * ch4(k) / (ch4(k) + 0.05_dp) * o2(k) / (o2(k) + 0.02_dp)
      resp = 1.0e-7_dp * q10o * roots(k) * o2(k) / (o2(k) + 0.01_dp)
      oxid = min(oxid, ch4(k) / dt, 0.5_dp * o2(k) / dt)
      ch4(k) = ch4(k) + dt * (prod - oxid)
      o2(k) = max(0.0_dp, o2(k) - dt * (2.0_dp * oxid + resp))
      doc(k) = doc(k) + dt * (3.0e-8_dp * roots(k) * q10o - 0.5_dp * prod)
      doc(k) = max(doc(k), 0.0_dp)
      prod_tot = prod_tot + prod * dz * dt
      oxid_tot = oxid_tot + oxid * dz * dt
    end do
  end subroutine biogeochemistry

  subroutine ebullition_and_plants()
    integer :: k
    real(dp) :: csat, excess, z, pt
    flux_ebul = 0.0_dp
    flux_plant = 0.0_dp
    do k = 1, nz
      z = (k - 0.5_dp) * dz
      csat = 1.4_dp * exp(-0.03_dp * temp(k)) * (1.0_dp + 0.1_dp * max(z - wtd, 0.0_dp))
      if (ch4(k) > csat) then
        excess = ch4(k) - csat
        ch4(k) = csat
        if (z > wtd) flux_ebul = flux_ebul + excess * dz
      end if
      pt = 4.0e-6_dp * roots(k) * ch4(k) * dt
      ch4(k) = ch4(k) - pt
      flux_plant = flux_plant + pt * dz
      o2(k) = o2(k) + 0.3_dp * pt
    end do
  end subroutine ebullition_and_plants

  subroutine write_profile(u, day, step)
    integer, intent(in) :: u, day, step
    integer :: k, ios
    write(u, '(a,i4,a,i3,a,f7.4)', iostat=ios) '# day ', day, ' step ', step, ' wtd ', wtd
    if (ios /= 0) stop 'write error on profiles.txt'
    do k = 1, nz
      write(u, '(f7.4,1x,f8.3,4(1x,es13.5e2),1x,f6.3)', iostat=ios) (k - 0.5_dp) * dz, temp(k), &
           o2(k), ch4(k), doc(k), roots(k), porosity(k)
      if (ios /= 0) stop 'write error on profiles.txt'
    end do
  end subroutine write_profile

  subroutine write_flux_row(u, day, fd, fe, fp, pr, ox)
    integer, intent(in) :: u, day
    real(dp), intent(in) :: fd, fe, fp, pr, ox
    integer :: ios
    write(u, '(i4,1x,f7.4,5(1x,es13.5e2),1x,f8.3)', iostat=ios) day, wtd, fd, fe, fp, pr, ox, temp(20)
    if (ios /= 0) stop 'write error on fluxes.txt'
  end subroutine write_flux_row

  subroutine seasonal_climatology(dir)
    character(len=*), intent(in) :: dir
    integer :: u, v, ios, day, step, k, season, n(4)
    real(dp) :: w, z, t, a, c, d, r, p
    real(dp) :: sumc(nz, 4), sumt(nz, 4)
    character(len=8) :: tag, tag2
    sumc = 0.0_dp
    sumt = 0.0_dp
    n = 0
    open(newunit=u, file=dir // '/profiles.txt', status='old', action='read', iostat=ios)
    if (ios /= 0) stop 'cannot reopen profiles.txt'
    do
      read(u, '(a1,a5,i4,a6,i3,a5,f7.4)', iostat=ios) tag, tag2, day, tag2, step, tag2, w
      if (ios < 0) exit
      if (ios > 0) stop 'read error on profiles.txt header'
      season = 1 + mod((day + 30) / 91, 4)
      n(season) = n(season) + 1
      do k = 1, nz
        read(u, '(f7.4,1x,f8.3,4(1x,es13.5e2),1x,f6.3)', iostat=ios) z, t, a, c, d, r, p
        if (ios /= 0) stop 'read error on profiles.txt'
        sumc(k, season) = sumc(k, season) + c
        sumt(k, season) = sumt(k, season) + t
      end do
    end do
    close(u)
    open(newunit=v, file=dir // '/climatology.txt', status='replace', action='write', iostat=ios)
    if (ios /= 0) stop 'cannot open climatology.txt'
    write(v, '(a)') '#  depth   T_DJF    T_MAM    T_JJA    T_SON    CH4_DJF      CH4_MAM      CH4_JJA      CH4_SON'
    do k = 1, nz
      write(v, '(f7.4,4(1x,f8.3),4(1x,es12.4))', iostat=ios) (k - 0.5_dp) * dz, &
           (sumt(k, season) / max(n(season), 1), season = 1, 4), &
           (sumc(k, season) / max(n(season), 1), season = 1, 4)
      if (ios /= 0) stop 'write error on climatology.txt'
    end do
    close(v)
    print '(a,4i5)', 'profiles per season:', n
  end subroutine seasonal_climatology
end module peat_mod

program peat_methane_profiles
  use peat_mod
  implicit none
  character(len=512) :: dir
  integer :: up, uf, ios, day, s, nprof
  real(dp) :: fd, fe, fp, pr, ox, total_emit
  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) then
    print *, 'usage: peat_methane_profiles DIR'
    stop 2
  end if
  call init_column()
  open(newunit=up, file=trim(dir) // '/profiles.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) stop 'cannot open profiles.txt'
  open(newunit=uf, file=trim(dir) // '/fluxes.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) stop 'cannot open fluxes.txt'
  write(uf, '(a)') '# day   wtd   diffusive    ebullition   plant        production   oxidation    T_10cm'
  nprof = 0
  total_emit = 0.0_dp
  do day = 1, ndays
    fd = 0; fe = 0; fp = 0; pr = 0; ox = 0
    do s = 1, steps_per_day
      call update_hydrology(day, real(s, dp) / steps_per_day)
      call heat_conduction(day, real(s, dp) / steps_per_day)
      call diffuse_gases()
      call biogeochemistry()
      call ebullition_and_plants()
      fd = fd + flux_diff; fe = fe + flux_ebul; fp = fp + flux_plant
      pr = pr + prod_tot; ox = ox + oxid_tot
      if (mod(s, nout) == 0) then
        call write_profile(up, day, s)
        nprof = nprof + 1
      end if
    end do
    call write_flux_row(uf, day, fd, fe, fp, pr, ox)
    total_emit = total_emit + fd + fe + fp
  end do
  close(up)
  close(uf)
  call seasonal_climatology(trim(dir))
  print '(a,i6,a,es12.4)', 'profiles written:', nprof, '  annual CH4 emission:', total_emit
end program peat_methane_profiles
