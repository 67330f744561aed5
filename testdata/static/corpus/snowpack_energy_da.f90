! snowpack_energy_da.f90
! Multi-site seasonal snowpack energy-balance model for an alpine
! monitoring network.
!
!  * one NAMELIST deck per station is written and read back (site metadata
!    and snow parameters);
!  * hourly meteorological forcing for all stations is synthesised and stored
!    in a FORMATTED DIRECT-access file (fixed-length text records, record
!    number = (station-1)*nhour + hour);
!  * each station's snowpack (up to 25 layers: implicit heat conduction,
!    Newton-iterated surface energy balance, compaction, melt, refreeze and
!    bucket percolation) is run through the season reading one forcing
!    record per hour and writing one formatted direct-access output record
!    per hour;
!  * a season summary is written per station with a NAMELIST WRITE;
!  * the output file is re-read hour-major across stations to build a
!    network melt-onset and runoff table.
module snow_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nsite = 16
  integer, parameter :: nhour = 4380            ! 1 Oct - 1 Apr
  integer, parameter :: maxl = 25
  integer, parameter :: frec = 96               ! forcing record length
  integer, parameter :: orec = 132              ! output record length
  real(dp), parameter :: sigma = 5.670374e-8_dp, lf = 3.34e5_dp, ls = 2.834e6_dp
  real(dp), parameter :: rho_w = 1000.0_dp, rho_i = 917.0_dp, ci = 2100.0_dp, cpa = 1005.0_dp
  real(dp), parameter :: pi = 3.14159265358979_dp

  type site_t
    character(len=24) :: name
    real(dp) :: elev, lat, albedo_new, z0, wind_factor, t_offset
  end type site_t

  type pack_t
    integer :: n
    real(dp) :: dz(maxl), rho(maxl), t(maxl), lw(maxl), age
    real(dp) :: albedo, runoff, melt, subl
  end type pack_t

  integer(8) :: seed = 7312_8
contains

  real(dp) function urand()
    seed = mod(seed * 48271_8, 2147483647_8)
    urand = real(seed, dp) / 2147483647.0_dp
  end function urand

  real(dp) function gauss()
    gauss = sqrt(-2.0_dp * log(max(urand(), 1.0e-12_dp))) * cos(2.0_dp * pi * urand())
  end function gauss

  subroutine write_site_namelists(dir)
    character(len=*), intent(in) :: dir
    character(len=24) :: name
    real(dp) :: elev, lat, albedo_new, z0, wind_factor, t_offset
    namelist /station/ name, elev, lat, albedo_new, z0, wind_factor, t_offset
    integer :: k, u, ios
    character(len=256) :: fn
    do k = 1, nsite
      write(name, '(a,i2.2)') 'AWS_ALP_', k
      elev = 1400.0_dp + 110.0_dp * k + 50.0_dp * urand()
      lat = 46.0_dp + 0.05_dp * k
      albedo_new = 0.86_dp + 0.04_dp * urand()
      z0 = 0.001_dp + 0.002_dp * urand()
      wind_factor = 0.7_dp + 0.8_dp * urand()
      t_offset = -0.0065_dp * (elev - 1400.0_dp)
      write(fn, '(a,"/station_",i2.2,".nml")') dir, k
      open(newunit=u, file=trim(fn), status='replace', action='write', iostat=ios)
      if (ios /= 0) error stop 'cannot create station namelist'
      write(u, nml=station, iostat=ios)
      if (ios /= 0) error stop 'namelist write failed'
      close(u)
    end do
  end subroutine write_site_namelists

  subroutine read_site_namelist(dir, k, s)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: k
    type(site_t), intent(out) :: s
    character(len=24) :: name
    real(dp) :: elev, lat, albedo_new, z0, wind_factor, t_offset
    namelist /station/ name, elev, lat, albedo_new, z0, wind_factor, t_offset
    integer :: u, ios
    character(len=256) :: fn
    write(fn, '(a,"/station_",i2.2,".nml")') dir, k
    open(newunit=u, file=trim(fn), status='old', action='read', iostat=ios)
    if (ios /= 0) error stop 'cannot open station namelist'
    read(u, nml=station, iostat=ios)
    if (ios /= 0) error stop 'namelist read failed'
    close(u)
    s = site_t(name, elev, lat, albedo_new, z0, wind_factor, t_offset)
  end subroutine read_site_namelist

  subroutine generate_forcing(u, sites)
    integer, intent(in) :: u
    type(site_t), intent(in) :: sites(nsite)
    real(dp) :: synoptic(nhour), storm(nhour), tair, rh, wind, sw, lw, pr, doy, hod, decl, cosz, cloud
    integer :: h, k, ios
    real(dp) :: ar
    ! regional weather shared by all stations: AR(1) synoptic anomaly and storm sequence
    ar = 0.0_dp
    storm = 0.0_dp
    do h = 1, nhour
      ar = 0.995_dp * ar + 0.35_dp * gauss()
      synoptic(h) = ar
      if (h > 1) then
        if (storm(h-1) > 0.5_dp) then
          if (urand() < 0.92_dp) storm(h) = 1.0_dp
          cycle
        end if
      end if
      if (urand() < 0.012_dp) storm(h) = 1.0_dp
    end do
    do k = 1, nsite
      do h = 1, nhour
        doy = 274.0_dp + (h - 1) / 24.0_dp
        hod = mod(h - 1, 24)
        decl = 23.44_dp * pi / 180.0_dp * sin(2.0_dp * pi * (doy - 81.0_dp) / 365.0_dp)
        cosz = sin(sites(k)%lat * pi / 180) * sin(decl) + cos(sites(k)%lat * pi / 180) * cos(decl) * &
               cos(pi * (hod - 12.0_dp) / 12.0_dp)
        cloud = min(1.0_dp, 0.3_dp + 0.6_dp * storm(h) + 0.1_dp * abs(gauss()))
        tair = 3.0_dp - 9.0_dp * sin(pi * min(h, 3600) / 3600.0_dp) + 0.004_dp * max(h - 3600, 0) &
               + sites(k)%t_offset + synoptic(h) + 3.0_dp * cos(pi * (hod - 14.0_dp) / 12.0_dp) * (1.0_dp - cloud)
        rh = min(100.0_dp, 65.0_dp + 30.0_dp * cloud + 5.0_dp * gauss())
        wind = sites(k)%wind_factor * (2.0_dp + 4.0_dp * storm(h) + abs(gauss()))
        sw = max(0.0_dp, 1360.0_dp * 0.75_dp * cosz * (1.0_dp - 0.7_dp * cloud))
        lw = (0.72_dp + 0.22_dp * cloud) * sigma * (tair + 273.15_dp)**4
        pr = 0.0_dp
        if (storm(h) > 0.5_dp) pr = max(0.0_dp, 1.2_dp * (1.0_dp + 0.0004_dp * (sites(k)%elev - 1400.0_dp)) &
                                              * (0.5_dp + gauss()))
        write(u, '(i2,1x,i5,1x,f8.3,1x,f6.2,1x,f6.2,1x,f8.2,1x,f8.2,1x,f7.3,1x,f5.3)', rec=(k-1)*nhour+h, &
             iostat=ios) k, h, tair, rh, wind, sw, lw, pr, cloud
        if (ios /= 0) error stop 'write error on forcing.da'
      end do
    end do
  end subroutine generate_forcing

  subroutine add_snowfall(p, swe_mm, tair)
    type(pack_t), intent(inout) :: p
    real(dp), intent(in) :: swe_mm, tair
    real(dp) :: rho_new, dz_new
    integer :: k
    rho_new = 67.9_dp + 51.3_dp * exp(max(min(tair, 2.0_dp), -15.0_dp) / 2.6_dp)
    dz_new = swe_mm / rho_new
    if (p%n > 0) then
      if (p%dz(1) < 0.02_dp) then        ! merge into the thin top layer
        p%rho(1) = (p%rho(1) * p%dz(1) + rho_new * dz_new) / (p%dz(1) + dz_new)
        p%dz(1) = p%dz(1) + dz_new
        p%t(1) = min(p%t(1), 273.15_dp)
        return
      end if
    end if
    if (p%n == maxl) then                ! merge the two deepest layers to make room
      p%rho(maxl-1) = (p%rho(maxl-1) * p%dz(maxl-1) + p%rho(maxl) * p%dz(maxl)) / (p%dz(maxl-1) + p%dz(maxl))
      p%t(maxl-1) = 0.5_dp * (p%t(maxl-1) + p%t(maxl))
      p%lw(maxl-1) = p%lw(maxl-1) + p%lw(maxl)
      p%dz(maxl-1) = p%dz(maxl-1) + p%dz(maxl)
      p%n = maxl - 1
    end if
    do k = p%n, 1, -1
      p%dz(k+1) = p%dz(k); p%rho(k+1) = p%rho(k); p%t(k+1) = p%t(k); p%lw(k+1) = p%lw(k)
    end do
    p%n = p%n + 1
    p%dz(1) = dz_new; p%rho(1) = rho_new; p%t(1) = min(tair + 273.15_dp, 273.15_dp); p%lw(1) = 0.0_dp
    p%age = 0.0_dp
  end subroutine add_snowfall

  ! Newton iteration for the surface temperature; returns melt energy (W m-2)
  subroutine surface_balance(p, s, tair, rh, wind, sw, lw, ts, qmelt, qsub)
    type(pack_t), intent(inout) :: p
    type(site_t), intent(in) :: s
    real(dp), intent(in) :: tair, rh, wind, sw, lw
    real(dp), intent(out) :: ts, qmelt, qsub
    real(dp) :: ch, rhoa, ta, ea, es, f, df, qh, qe, ql, kcond, qg, swn
    integer :: it
    ta = tair + 273.15_dp
    rhoa = 1.2_dp * exp(-s%elev / 8000.0_dp)
    ch = (0.4_dp / log(2.0_dp / s%z0))**2 * max(wind, 0.5_dp)
    ea = rh / 100.0_dp * 611.0_dp * exp(22.46_dp * tair / (272.62_dp + tair))
    kcond = 2.22_dp * (p%rho(1) / rho_i)**1.88_dp
    p%albedo = 0.55_dp + (s%albedo_new - 0.55_dp) * exp(-p%age / 120.0_dp)
    swn = (1.0_dp - p%albedo) * sw
    ts = min(p%t(1), 273.15_dp)
    do it = 1, 8
      es = 611.0_dp * exp(22.46_dp * (ts - 273.15_dp) / (272.62_dp + ts - 273.15_dp))
      qh = rhoa * cpa * ch * (ta - ts)
      qe = rhoa * ls * ch * 0.622_dp * (ea - es) / 70000.0_dp
      ql = 0.98_dp * (lw - sigma * ts**4)
      qg = kcond * (p%t(1) - ts) / (0.5_dp * p%dz(1))
      f = swn + ql + qh + qe + qg
      df = -4.0_dp * 0.98_dp * sigma * ts**3 - rhoa * cpa * ch - kcond / (0.5_dp * p%dz(1)) &
           - rhoa * ls * ch * 0.622_dp / 70000.0_dp * es * 22.46_dp * 272.62_dp / (272.62_dp + ts - 273.15_dp)**2
      ts = ts - f / df
      if (abs(f / df) < 1.0e-4_dp) exit
    end do
    qmelt = 0.0_dp
    if (ts > 273.15_dp) then
      ts = 273.15_dp
      es = 611.0_dp
      qh = rhoa * cpa * ch * (ta - ts)
      qe = rhoa * ls * ch * 0.622_dp * (ea - es) / 70000.0_dp
      ql = 0.98_dp * (lw - sigma * ts**4)
      qg = kcond * (p%t(1) - ts) / (0.5_dp * p%dz(1))
      qmelt = max(0.0_dp, swn + ql + qh + qe + qg)
    end if
    qsub = -qe / ls
  end subroutine surface_balance

  subroutine conduct_heat(p, ts)
    type(pack_t), intent(inout) :: p
    real(dp), intent(in) :: ts
    real(dp) :: a(maxl), b(maxl), c(maxl), r(maxl), kk(maxl), cap(maxl), kf, m
    integer :: k, n
    n = p%n
    if (n < 1) return
    do k = 1, n
      kk(k) = 2.22_dp * (p%rho(k) / rho_i)**1.88_dp
      cap(k) = p%rho(k) * ci * p%dz(k) / 3600.0_dp
    end do
    do k = 1, n
      a(k) = 0.0_dp; c(k) = 0.0_dp
      b(k) = cap(k)
      r(k) = cap(k) * p%t(k)
      if (k == 1) then
        kf = kk(1) / (0.5_dp * p%dz(1))
        b(k) = b(k) + kf
        r(k) = r(k) + kf * ts
      else
        kf = 2.0_dp / (p%dz(k-1) / kk(k-1) + p%dz(k) / kk(k))
        a(k) = -kf; b(k) = b(k) + kf
      end if
      if (k < n) then
        kf = 2.0_dp / (p%dz(k) / kk(k) + p%dz(k+1) / kk(k+1))
        c(k) = -kf; b(k) = b(k) + kf
      else
        kf = 0.3_dp / (0.5_dp * p%dz(k) + 0.5_dp)           ! ground at 0 C below 0.5 m soil
        b(k) = b(k) + kf
        r(k) = r(k) + kf * 273.15_dp
      end if
    end do
    do k = 2, n
      m = a(k) / b(k-1)
      b(k) = b(k) - m * c(k-1)
      r(k) = r(k) - m * r(k-1)
    end do
    p%t(n) = r(n) / b(n)
    do k = n - 1, 1, -1
      p%t(k) = (r(k) - c(k) * p%t(k+1)) / b(k)
    end do
  end subroutine conduct_heat

  subroutine melt_compact_percolate(p, qmelt, rain)
    type(pack_t), intent(inout) :: p
    real(dp), intent(in) :: qmelt, rain
    real(dp) :: melt_kg, mass, dm, cold, refreeze, hold, excess, sigma_ov, eta, rnew
    integer :: k, j
    melt_kg = qmelt * 3600.0_dp / lf
    p%melt = p%melt + melt_kg
    ! surface melt removes ice from the top layers and becomes liquid water
    k = 1
    do while (melt_kg > 0.0_dp .and. k <= p%n)
      mass = p%rho(k) * p%dz(k)
      dm = min(mass, melt_kg)
      p%dz(k) = p%dz(k) * (1.0_dp - dm / mass)
      p%lw(k) = p%lw(k) + dm
      melt_kg = melt_kg - dm
      k = k + 1
    end do
    if (p%n > 0) p%lw(1) = p%lw(1) + rain
    ! warm layers above 0 C melt, cold layers refreeze liquid water
    do k = 1, p%n
      if (p%t(k) > 273.15_dp) then
        dm = min(p%rho(k) * p%dz(k), (p%t(k) - 273.15_dp) * p%rho(k) * p%dz(k) * ci / lf)
        p%lw(k) = p%lw(k) + dm
        p%dz(k) = max(p%dz(k) - dm / p%rho(k), 0.0_dp)
        p%t(k) = 273.15_dp
      else if (p%lw(k) > 0.0_dp .and. p%dz(k) > 1.0e-4_dp) then
        cold = (273.15_dp - p%t(k)) * p%rho(k) * p%dz(k) * ci / lf
        refreeze = min(cold, p%lw(k))
        p%lw(k) = p%lw(k) - refreeze
        p%rho(k) = min(rho_i, p%rho(k) + refreeze / p%dz(k))
        p%t(k) = p%t(k) + refreeze * lf / (p%rho(k) * p%dz(k) * ci)
      end if
      ! bucket percolation: 5 % of pore volume can be held
      hold = 0.05_dp * (1.0_dp - p%rho(k) / rho_i) * p%dz(k) * rho_w
      excess = max(0.0_dp, p%lw(k) - hold)
      p%lw(k) = p%lw(k) - excess
      if (k < p%n) then
        p%lw(k+1) = p%lw(k+1) + excess
      else
        p%runoff = p%runoff + excess
      end if
    end do
    ! overburden compaction (viscous, temperature and density dependent)
    sigma_ov = 0.0_dp
    do k = 1, p%n
      sigma_ov = sigma_ov + 0.5_dp * p%rho(k) * p%dz(k) * 9.81_dp
      eta = 3.7e7_dp * exp(0.081_dp * (273.15_dp - p%t(k)) + 0.018_dp * p%rho(k))
      rnew = min(rho_i, p%rho(k) * (1.0_dp + 3600.0_dp * sigma_ov / eta))
      p%dz(k) = max(p%dz(k), 0.0_dp) * p%rho(k) / rnew      ! mass-conserving thinning
      p%rho(k) = rnew
      sigma_ov = sigma_ov + 0.5_dp * p%rho(k) * p%dz(k) * 9.81_dp
    end do
    ! remove vanished layers
    j = 0
    do k = 1, p%n
      if (p%dz(k) * p%rho(k) > 0.05_dp) then
        j = j + 1
        p%dz(j) = p%dz(k); p%rho(j) = p%rho(k); p%t(j) = p%t(k); p%lw(j) = p%lw(k)
      else
        p%runoff = p%runoff + p%lw(k) + p%dz(k) * p%rho(k)
      end if
    end do
    p%n = j
    p%age = p%age + 1.0_dp
  end subroutine melt_compact_percolate
end module snow_mod

program snowpack_energy_da
  use snow_mod
  implicit none
  character(len=512) :: dir
  type(site_t) :: sites(nsite)
  type(pack_t) :: p
  integer :: uf, uo, k, h, ios, kk, hh
  real(dp) :: tair, rh, wind, sw, lw, pr, cloud, ts, qmelt, qsub, swe, depth, peak_swe, lwc
  real(dp) :: peak_depth, season_melt, season_runoff, season_subl
  integer :: peak_hour, first_snow_hour
  character(len=24) :: name
  namelist /season/ name, peak_swe, peak_depth, peak_hour, first_snow_hour, season_melt, season_runoff, &
                    season_subl
  character(len=256) :: fn

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) then
    print *, 'usage: snowpack_energy_da DIR'
    stop 2
  end if
  call write_site_namelists(trim(dir))
  do k = 1, nsite
    call read_site_namelist(trim(dir), k, sites(k))
  end do

  open(newunit=uf, file=trim(dir)//'/forcing.da', access='direct', form='formatted', recl=frec, &
       status='replace', action='readwrite', iostat=ios)
  if (ios /= 0) error stop 'cannot open forcing.da'
  call generate_forcing(uf, sites)
  open(newunit=uo, file=trim(dir)//'/snowpack_hourly.da', access='direct', form='formatted', recl=orec, &
       status='replace', action='readwrite', iostat=ios)
  if (ios /= 0) error stop 'cannot open snowpack_hourly.da'

  do k = 1, nsite
    p%n = 0; p%age = 0; p%albedo = 0.85_dp; p%runoff = 0; p%melt = 0; p%subl = 0
    peak_swe = 0; peak_depth = 0; peak_hour = 0; first_snow_hour = -1
    do h = 1, nhour
      read(uf, '(i2,1x,i5,1x,f8.3,1x,f6.2,1x,f6.2,1x,f8.2,1x,f8.2,1x,f7.3,1x,f5.3)', rec=(k-1)*nhour+h, &
           iostat=ios) kk, hh, tair, rh, wind, sw, lw, pr, cloud
      if (ios /= 0 .or. kk /= k .or. hh /= h) error stop 'read error on forcing.da'
      if (pr > 0.0_dp .and. tair < 1.0_dp) then
        call add_snowfall(p, pr, tair)
        if (first_snow_hour < 0) first_snow_hour = h
      end if
      ts = min(tair + 273.15_dp, 273.15_dp); qmelt = 0; qsub = 0
      if (p%n > 0) then
        call surface_balance(p, sites(k), tair, rh, wind, sw, lw, ts, qmelt, qsub)
        call conduct_heat(p, ts)
        call melt_compact_percolate(p, qmelt, merge(pr, 0.0_dp, tair >= 1.0_dp))
        p%subl = p%subl + qsub * 3600.0_dp
      end if
      swe = sum(p%rho(1:p%n) * p%dz(1:p%n)) + sum(p%lw(1:p%n))
      depth = sum(p%dz(1:p%n))
      lwc = sum(p%lw(1:p%n))
      if (swe > peak_swe) then
        peak_swe = swe; peak_depth = depth; peak_hour = h
      end if
      write(uo, '(i2,1x,i5,1x,i2,1x,f8.2,1x,f7.3,1x,f8.3,1x,f7.2,1x,f8.2,1x,f8.3,1x,f9.2,1x,f5.3,1x,f7.2)', &
           rec=(k-1)*nhour+h, iostat=ios) k, h, p%n, swe, depth, ts - 273.15_dp, qmelt, p%melt, lwc, p%runoff, &
           p%albedo, merge(sum(p%rho(1:p%n) * p%dz(1:p%n)) / max(depth, 1.0e-6_dp), 0.0_dp, p%n > 0)
      if (ios /= 0) error stop 'write error on snowpack_hourly.da'
    end do
    name = sites(k)%name
    season_melt = p%melt; season_runoff = p%runoff; season_subl = p%subl
    write(fn, '(a,"/season_",i2.2,".nml")') trim(dir), k
    open(newunit=kk, file=trim(fn), status='replace', action='write', iostat=ios)
    if (ios /= 0) error stop 'cannot create season namelist'
    write(kk, nml=season, iostat=ios)
    if (ios /= 0) error stop 'season namelist write failed'
    close(kk)
  end do
  close(uf)
  call melt_onset_table()
  close(uo)

contains

  ! hour-major pass over the output file: network snow-covered fraction,
  ! melt onset (first of 3 consecutive days with runoff growth) per station
  subroutine melt_onset_table()
    integer :: u, s, hr, n, ios2, kk2, hh2
    real(dp) :: v(9), prev_runoff(nsite), covered, mean_swe
    integer :: run_days(nsite), onset(nsite)
    prev_runoff = 0; run_days = 0; onset = -1
    open(newunit=u, file=trim(dir)//'/network_daily.txt', status='replace', action='write', iostat=ios2)
    if (ios2 /= 0) error stop 'cannot open network_daily.txt'
    write(u, '(a)') '# day  covered_frac  mean_swe_mm  stations_melting'
    do hr = 24, nhour, 24
      covered = 0; mean_swe = 0
      do s = 1, nsite
        read(uo, '(i2,1x,i5,1x,i2,1x,f8.2,1x,f7.3,1x,f8.3,1x,f7.2,1x,f8.2,1x,f8.3,1x,f9.2,1x,f5.3,1x,f7.2)', &
             rec=(s-1)*nhour+hr, iostat=ios2) kk2, hh2, n, v(1:9)
        if (ios2 /= 0 .or. kk2 /= s .or. hh2 /= hr) error stop 'read error on snowpack_hourly.da'
        if (v(1) > 5.0_dp) covered = covered + 1
        mean_swe = mean_swe + v(1)
        if (v(7) > prev_runoff(s) + 0.5_dp) then
          run_days(s) = run_days(s) + 1
          if (run_days(s) == 3 .and. onset(s) < 0) onset(s) = hr / 24 - 2
        else
          run_days(s) = 0
        end if
        prev_runoff(s) = v(7)
      end do
      write(u, '(i5,f12.3,f13.2,i10)', iostat=ios2) hr / 24, covered / nsite, mean_swe / nsite, &
           count(run_days > 0)
      if (ios2 /= 0) error stop 'write error on network_daily.txt'
    end do
    write(u, '(a)') '# station  melt_onset_day'
    do s = 1, nsite
      write(u, '(a,a24,i6)') '# ', sites(s)%name, onset(s)
    end do
    close(u)
    print '(a,i3,a,i5,a)', 'stations:', nsite, '  hours:', nhour, '  melt onset days:'
    print '(16i4)', onset
  end subroutine melt_onset_table
end program snowpack_energy_da
