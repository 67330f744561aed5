! Irrigation-district scheduling with the FAO-56 method.
! A weather generator writes a year of daily weather for each climate zone to
! an ACCESS='STREAM' file; ET0 (Penman-Monteith) is computed zone by zone by
! positioning into that file with POS= and written to a second stream file.
! Every field (crop, soil, sowing date) is simulated with a layered soil-water
! balance; the management-allowed depletion (MAD) is optimised per field for
! water productivity, then the chosen schedule is rerun and its daily series is
! stored as one record per field in an unformatted direct-access file, with
! soil-moisture profiles of monitoring fields in an unformatted sequential
! file.  Finally the direct-access file is read back for weekly district
! demand and a formatted report.
module irrig_mod
  implicit none
  integer, parameter :: sp = kind(1.0), dp = kind(1.0d0)
  integer, parameter :: nzone = 24, nday = 365, nfield = 2400, nlay = 8, nmad = 16
  integer, parameter :: nmon = 120, nvar = 4
  real(dp), parameter :: lay_dz = 0.15_dp          ! m per layer
  integer :: fzone(nfield), fcrop(nfield), fsoil(nfield), fsow(nfield)
  real(dp) :: et0(nday, nzone), rain(nday, nzone)
  real(dp) :: best_mad(nfield)
  ! crop table: Kc ini/mid/end, stage lengths, max root depth, Ky, potential yield t/ha
  real(dp), parameter :: kc_ini(4) = [0.30_dp, 0.40_dp, 0.35_dp, 0.40_dp]
  real(dp), parameter :: kc_mid(4) = [1.20_dp, 1.15_dp, 1.15_dp, 0.95_dp]
  real(dp), parameter :: kc_end(4) = [0.60_dp, 0.30_dp, 0.70_dp, 0.90_dp]
  integer, parameter :: len_ini(4) = [25, 20, 30, 10], len_dev(4) = [40, 30, 50, 30]
  integer, parameter :: len_mid(4) = [45, 50, 55, 120], len_late(4) = [30, 30, 45, 40]
  real(dp), parameter :: zr_max(4) = [1.0_dp, 1.05_dp, 1.1_dp, 1.2_dp]
  real(dp), parameter :: ky(4) = [1.25_dp, 1.05_dp, 0.85_dp, 1.1_dp]
  real(dp), parameter :: ymax(4) = [12.0_dp, 7.5_dp, 5.0_dp, 18.0_dp]
  real(dp), parameter :: fc(3) = [0.30_dp, 0.22_dp, 0.36_dp], wp(3) = [0.14_dp, 0.08_dp, 0.20_dp]
  real(dp), parameter :: ksat(3) = [0.25_dp, 0.8_dp, 0.08_dp]   ! m/day
contains

  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    write(0, '(a)') 'irrigation: '//trim(msg)
    error stop 1
  end subroutine fail

  real(dp) function urand(s)
    integer(8), intent(inout) :: s
    ! Park-Miller minimal standard generator (no integer overflow in 64 bits)
    s = mod(s * 48271_8, 2147483647_8)
    urand = real(s, dp) / 2147483647.0_dp
  end function urand

  subroutine generate_weather(path)
    character(len=*), intent(in) :: path
    integer :: u, ios, z, d
    integer(8) :: s
    real(sp) :: w(6, nday)
    real(dp) :: lat, tmean, amp, p_wet, wet, r
    s = 97531_8
    open(newunit=u, file=path, access='stream', form='unformatted', status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('cannot create '//path)
    write(u, iostat=ios) nzone, nday
    if (ios /= 0) call fail('write error '//path)
    do z = 1, nzone
      lat = 30.0_dp + 0.4_dp * z
      tmean = 19.0_dp - 0.3_dp * z; amp = 9.0_dp + 0.1_dp * z
      p_wet = 0.12_dp + 0.008_dp * z
      wet = 0.0_dp
      do d = 1, nday
        w(1, d) = real(tmean + amp * sin(2.0_dp * 3.14159_dp * (d - 105) / 365.0_dp) + 6.0_dp + 2.0_dp * (urand(s) - 0.5_dp), sp)
        w(2, d) = real(w(1, d) - 11.0_dp - 3.0_dp * urand(s), sp)
        w(3, d) = real(45.0_dp + 30.0_dp * urand(s), sp)              ! RH mean %
        w(4, d) = real(1.0_dp + 3.0_dp * urand(s), sp)                ! wind at 2 m
        w(5, d) = real((14.0_dp + 12.0_dp * sin(2.0_dp * 3.14159_dp * (d - 80) / 365.0_dp)) &
                  * (0.75_dp + 0.25_dp * urand(s)) * (1.0_dp - 0.004_dp * lat), sp)   ! Rs MJ/m2/d
        r = urand(s)
        if ((wet > 0.5_dp .and. r < p_wet + 0.35_dp) .or. (wet < 0.5_dp .and. r < p_wet)) then
          wet = 1.0_dp
          w(6, d) = real(-8.0_dp * log(max(urand(s), 1.0e-9_dp)), sp)
        else
          wet = 0.0_dp
          w(6, d) = 0.0_sp
        end if
      end do
      write(u, iostat=ios) w
      if (ios /= 0) call fail('write error '//path)
    end do
    close(u)
  end subroutine generate_weather

  subroutine compute_et0(wpath, epath)
    character(len=*), intent(in) :: wpath, epath
    integer :: u, v, ios, z, d, nz, nd
    integer(8) :: pos
    real(sp) :: w(6, nday)
    real(dp) :: tmax, tmin, tm, rh, u2, rs, es, ea, delta, gam, rns, rnl, rn, ra, dr, dec, ws, phi, rso
    open(newunit=u, file=wpath, access='stream', form='unformatted', status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('cannot open '//wpath)
    open(newunit=v, file=epath, access='stream', form='unformatted', status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('cannot create '//epath)
    read(u, pos=1, iostat=ios) nz, nd
    if (ios /= 0 .or. nz /= nzone .or. nd /= nday) call fail('bad weather header')
    ! process zones in reverse order to exercise positioned access
    do z = nzone, 1, -1
      pos = 9_8 + int(z - 1, 8) * 6_8 * nday * 4_8
      read(u, pos=pos, iostat=ios) w
      if (ios /= 0) call fail('weather read error')
      phi = (30.0_dp + 0.4_dp * z) * 3.14159265_dp / 180.0_dp
      do d = 1, nday
        tmax = w(1, d); tmin = w(2, d); rh = w(3, d); u2 = w(4, d); rs = w(5, d)
        tm = 0.5_dp * (tmax + tmin)
        es = 0.5_dp * (0.6108_dp * exp(17.27_dp * tmax / (tmax + 237.3_dp)) + 0.6108_dp * exp(17.27_dp * tmin / (tmin + 237.3_dp)))
        ea = es * rh / 100.0_dp
        delta = 4098.0_dp * 0.6108_dp * exp(17.27_dp * tm / (tm + 237.3_dp)) / (tm + 237.3_dp)**2
        gam = 0.0665_dp
        dr = 1.0_dp + 0.033_dp * cos(2.0_dp * 3.14159265_dp * d / 365.0_dp)
        dec = 0.409_dp * sin(2.0_dp * 3.14159265_dp * d / 365.0_dp - 1.39_dp)
        ws = acos(-tan(phi) * tan(dec))
        ra = 24.0_dp * 60.0_dp / 3.14159265_dp * 0.082_dp * dr * (ws * sin(phi) * sin(dec) + cos(phi) * cos(dec) * sin(ws))
        rso = 0.75_dp * ra
        rns = 0.77_dp * rs
        rnl = 4.903e-9_dp * 0.5_dp * ((tmax + 273.16_dp)**4 + (tmin + 273.16_dp)**4) * (0.34_dp - 0.14_dp * sqrt(ea)) &
              * (1.35_dp * min(rs / rso, 1.0_dp) - 0.35_dp)
        rn = rns - rnl
        et0(d, z) = max(0.0_dp, (0.408_dp * delta * rn + gam * 900.0_dp / (tm + 273.0_dp) * u2 * (es - ea)) &
                    / (delta + gam * (1.0_dp + 0.34_dp * u2)))
        rain(d, z) = w(6, d)
      end do
      write(v, iostat=ios) z, real(et0(:, z), sp)
      if (ios /= 0) call fail('write error '//epath)
    end do
    close(u); close(v)
  end subroutine compute_et0

  subroutine setup_fields()
    integer :: f
    integer(8) :: s
    s = 13579_8
    do f = 1, nfield
      fzone(f) = 1 + int(urand(s) * nzone)
      fcrop(f) = 1 + int(urand(s) * 4)
      fsoil(f) = 1 + int(urand(s) * 3)
      fsow(f) = 60 + int(urand(s) * 70)
    end do
  end subroutine setup_fields

  real(dp) function crop_kc(c, dap)
    integer, intent(in) :: c, dap
    integer :: e1, e2, e3
    e1 = len_ini(c); e2 = e1 + len_dev(c); e3 = e2 + len_mid(c)
    if (dap <= e1) then
      crop_kc = kc_ini(c)
    else if (dap <= e2) then
      crop_kc = kc_ini(c) + (kc_mid(c) - kc_ini(c)) * real(dap - e1, dp) / len_dev(c)
    else if (dap <= e3) then
      crop_kc = kc_mid(c)
    else
      crop_kc = kc_mid(c) + (kc_end(c) - kc_mid(c)) * min(1.0_dp, real(dap - e3, dp) / len_late(c))
    end if
  end function crop_kc

  ! Layered soil-water balance for one field and one MAD; optional daily output.
  subroutine simulate_field(f, mad, irr_tot, eta_tot, etc_tot, drain_tot, yld, series, prof)
    integer, intent(in) :: f
    real(dp), intent(in) :: mad
    real(dp), intent(out) :: irr_tot, eta_tot, etc_tot, drain_tot, yld
    real(sp), intent(out), optional :: series(nvar, nday)
    real(dp), intent(out), optional :: prof(nlay, nday)
    integer :: d, dap, c, so, z, l, season
    real(dp) :: th(nlay), wgt(nlay), kc, etc, zr, taw, raw, dep, ks, eta, irr, infl, cap, excess, drain, take, need, frac
    c = fcrop(f); so = fsoil(f); z = fzone(f)
    season = len_ini(c) + len_dev(c) + len_mid(c) + len_late(c)
    th = fc(so)
    irr_tot = 0; eta_tot = 0; etc_tot = 0; drain_tot = 0
    if (present(series)) series = 0.0_sp
    do d = 1, nday
      dap = d - fsow(f)
      irr = 0.0_dp; eta = 0.0_dp; drain = 0.0_dp; etc = 0.0_dp; dep = 0.0_dp
      if (dap >= 0 .and. dap <= season) then
        kc = crop_kc(c, dap)
        etc = kc * et0(d, z)
        zr = 0.15_dp + (zr_max(c) - 0.15_dp) * min(1.0_dp, real(dap, dp) / (len_ini(c) + len_dev(c)))
        taw = 0.0_dp; dep = 0.0_dp
        do l = 1, nlay
          frac = max(0.0_dp, min(1.0_dp, (zr - (l - 1) * lay_dz) / lay_dz))
          taw = taw + frac * (fc(so) - wp(so)) * lay_dz * 1000.0_dp
          dep = dep + frac * (fc(so) - th(l)) * lay_dz * 1000.0_dp
        end do
        raw = mad * taw
        if (dep > raw .and. rain(d, z) < 5.0_dp) then
          irr = dep                    ! refill root zone to field capacity
        end if
        ks = 1.0_dp
        if (dep > raw) ks = max(0.0_dp, (taw - dep) / max((1.0_dp - mad) * taw, 1.0e-9_dp))
        need = ks * etc
        ! root water uptake weighted towards upper layers
        do l = 1, nlay
          wgt(l) = max(0.0_dp, min(1.0_dp, (zr - (l - 1) * lay_dz) / lay_dz)) * (1.6_dp - 0.15_dp * l)
        end do
        wgt = wgt / sum(wgt)
        do l = 1, nlay
          if (wgt(l) <= 0.0_dp) exit
          take = min(need * wgt(l), max(0.0_dp, (th(l) - wp(so)) * lay_dz * 1000.0_dp))
          th(l) = th(l) - take / (lay_dz * 1000.0_dp)
          eta = eta + take
        end do
      else
        th(1) = th(1) - min(0.25_dp * et0(d, z), max(0.0_dp, (th(1) - wp(so)) * lay_dz * 1000.0_dp)) / (lay_dz * 1000.0_dp)
      end if
      ! infiltration cascade with drainage limited by ksat
      infl = rain(d, z) + irr
      do l = 1, nlay
        cap = (fc(so) - th(l)) * lay_dz * 1000.0_dp
        if (infl <= cap) then
          th(l) = th(l) + infl / (lay_dz * 1000.0_dp); infl = 0.0_dp
        else
          th(l) = fc(so); infl = infl - cap
        end if
      end do
      excess = min(infl, ksat(so) * 1000.0_dp)
      drain = excess
      irr_tot = irr_tot + irr; eta_tot = eta_tot + eta; etc_tot = etc_tot + etc; drain_tot = drain_tot + drain
      if (present(series)) series(:, d) = real([dep, irr, eta, drain], sp)
      if (present(prof)) prof(:, d) = th
    end do
    yld = ymax(c) * max(0.0_dp, 1.0_dp - ky(c) * (1.0_dp - eta_tot / max(etc_tot, 1.0e-9_dp)))
  end subroutine simulate_field

  subroutine optimise_mad()
    integer :: f, m
    real(dp) :: mad, irr, eta, etc, dr, yld, wpi, best
    do f = 1, nfield
      best = -1.0_dp
      do m = 1, nmad
        mad = 0.2_dp + 0.03_dp * (m - 1)
        call simulate_field(f, mad, irr, eta, etc, dr, yld)
        ! water productivity of irrigation: yield value minus water and pumping cost
        wpi = 250.0_dp * yld - 0.6_dp * irr - 25.0_dp * real(count_events(irr), dp)
        if (wpi > best) then
          best = wpi; best_mad(f) = mad
        end if
      end do
    end do
  contains
    integer function count_events(x)
      real(dp), intent(in) :: x
      count_events = int(x / 60.0_dp)
    end function count_events
  end subroutine optimise_mad

  subroutine run_schedule(dapath, prpath, tot_irr, tot_yld)
    character(len=*), intent(in) :: dapath, prpath
    real(dp), intent(out) :: tot_irr, tot_yld
    integer :: u, p, ios, f, d, rl, m
    real(sp) :: series(nvar, nday)
    real(dp) :: prof(nlay, nday), irr, eta, etc, dr, yld
    real(dp), allocatable :: mprof(:, :, :)
    allocate(mprof(nlay, nmon, nday))
    inquire(iolength=rl) series
    open(newunit=u, file=dapath, access='direct', form='unformatted', recl=rl, status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('cannot create '//dapath)
    tot_irr = 0; tot_yld = 0; m = 0
    do f = 1, nfield
      if (mod(f, nfield / nmon) == 0 .and. m < nmon) then
        m = m + 1
        call simulate_field(f, best_mad(f), irr, eta, etc, dr, yld, series, prof)
        mprof(:, m, :) = prof
      else
        call simulate_field(f, best_mad(f), irr, eta, etc, dr, yld, series)
      end if
      write(u, rec=f, iostat=ios) series
      if (ios /= 0) call fail('direct write error')
      tot_irr = tot_irr + irr; tot_yld = tot_yld + yld
    end do
    close(u)
    open(newunit=p, file=prpath, form='unformatted', access='sequential', status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('cannot create '//prpath)
    write(p, iostat=ios) nlay, nmon, nday
    do d = 1, nday
      write(p, iostat=ios) d, mprof(:, :, d)
      if (ios /= 0) call fail('profile write error')
    end do
    close(p)
  end subroutine run_schedule

  subroutine district_report(dapath, prpath, rpath)
    character(len=*), intent(in) :: dapath, prpath, rpath
    integer :: u, p, r, ios, f, d, w, rl, a, b, c, dd, nstressed
    real(sp) :: series(nvar, nday)
    real(dp) :: weekly(53, 4), peak, crop_irr(4), crop_n(4), mp(nlay, nmon), wet_top, wet_bot
    inquire(iolength=rl) series
    open(newunit=u, file=dapath, access='direct', form='unformatted', recl=rl, status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('cannot open '//dapath)
    weekly = 0; crop_irr = 0; crop_n = 0; nstressed = 0
    ! fields read in reverse order of record number
    do f = nfield, 1, -1
      read(u, rec=f, iostat=ios) series
      if (ios /= 0) call fail('direct read error')
      do d = 1, nday
        w = min(53, 1 + (d - 1) / 7)
        weekly(w, 1) = weekly(w, 1) + series(2, d)
        weekly(w, 2) = weekly(w, 2) + series(3, d)
        weekly(w, 3) = weekly(w, 3) + series(4, d)
      end do
      crop_irr(fcrop(f)) = crop_irr(fcrop(f)) + sum(series(2, :))
      crop_n(fcrop(f)) = crop_n(fcrop(f)) + 1
      if (maxval(series(1, :)) > 120.0) nstressed = nstressed + 1
    end do
    close(u)
    open(newunit=p, file=prpath, form='unformatted', access='sequential', status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('cannot open '//prpath)
    read(p, iostat=ios) a, b, c
    if (ios /= 0 .or. a /= nlay .or. b /= nmon .or. c /= nday) call fail('bad profile header')
    wet_top = 0; wet_bot = 0
    do d = 1, nday
      read(p, iostat=ios) dd, mp
      if (ios /= 0 .or. dd /= d) call fail('profile read error')
      wet_top = wet_top + sum(mp(1, :)) / (nmon * nday)
      wet_bot = wet_bot + sum(mp(nlay, :)) / (nmon * nday)
    end do
    close(p)
    open(newunit=r, file=rpath, status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('cannot create '//rpath)
    write(r, '(a)') 'Irrigation district weekly demand (mm summed over fields)'
    write(r, '(a)') 'week   irrigation        ETa      drainage'
    peak = 0
    do w = 1, 53
      write(r, '(i4,3f13.1)') w, weekly(w, 1), weekly(w, 2), weekly(w, 3)
      peak = max(peak, weekly(w, 1))
    end do
    write(r, '(a,f12.1)') 'peak weekly irrigation (mm): ', peak
    do c = 1, 4
      write(r, '(a,i1,a,f10.1,a)') 'crop ', c, ' mean seasonal irrigation ', crop_irr(c) / max(crop_n(c), 1.0_dp), ' mm'
    end do
    write(r, '(a,i0)') 'fields with depletion above 120 mm at some time: ', nstressed
    write(r, '(a,2f8.4)') 'mean volumetric water content top/bottom layer (monitoring fields): ', wet_top, wet_bot
    close(r)
  end subroutine district_report
end module irrig_mod

program irrigation_schedule
  use irrig_mod
  implicit none
  character(len=400) :: dir
  real(dp) :: tot_irr, tot_yld
  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: irrigation_schedule_stream DIR'
    error stop 2
  end if
  call get_command_argument(1, dir)
  call generate_weather(trim(dir)//'/weather.stream')
  call compute_et0(trim(dir)//'/weather.stream', trim(dir)//'/et0.stream')
  call setup_fields()
  call optimise_mad()
  call run_schedule(trim(dir)//'/field_series.da', trim(dir)//'/monitor_profiles.seq', tot_irr, tot_yld)
  call district_report(trim(dir)//'/field_series.da', trim(dir)//'/monitor_profiles.seq', trim(dir)//'/district_report.txt')
  write(*, '(a,i0,a,f6.3)') 'irrigation: ', nfield, ' fields scheduled, mean MAD ', sum(best_mad) / nfield
  write(*, '(a,f10.1,a,f8.2,a)') 'irrigation: mean seasonal irrigation ', tot_irr / nfield, ' mm, mean yield ', &
       tot_yld / nfield, ' t/ha'
end program irrigation_schedule
