! salt_pan_brine_direct.f90
!
! Solar saltworks season model.  Several trains of evaporation ponds
! (concentrators feeding crystallisers) are simulated hourly; each pond is a
! column of brine layers with solar absorption (Beer's law), evaporative and
! long-wave surface losses, ground conduction, convective overturning when
! the surface brine becomes denser than the brine below, conservative
! re-gridding after evaporation, and halite deposition at saturation.
! Brine is pumped down a train when a pond reaches its target salinity and
! crystallisers are harvested when the salt crust is thick enough.
!
! I/O (unformatted):
!   met_hourly.da    direct access, one record per hour, generated first and
!                    then read back record by record during the run;
!   pond_state.da    direct access, one record per pond per day (full
!                    column), record = (day-1)*NPOND + pond;
!   surface_hourly.da direct access, one small record per pond-hour;
!   harvest_log.bin  ACCESS='STREAM' event records appended, with the event
!                    count patched into the header with POS=;
!   season_report.txt formatted summary built by re-reading pond_state.da
!                    pond by pond (strided record access) and the stream log.
!
! usage: salt_pan_brine_direct OUTDIR

module saltworks
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: NTRAIN = 6, NPERTRAIN = 8, NPOND = NTRAIN * NPERTRAIN
  integer, parameter :: NLAY = 24
  integer, parameter :: NDAY = 150, NHOUR = 24 * NDAY
  integer, parameter :: NSUB = 4                  ! minimum diffusion sub-steps per hour
  real(dp), parameter :: SAT = 310.0_dp           ! halite saturation, g/L
  real(dp), parameter :: SEA = 36.0_dp
  real(dp), parameter :: PI = 3.14159265358979323846_dp

  type met_t
    real(dp) :: sw, tair, rh, wind, rain
  end type met_t

  real(dp) :: T(NLAY, NPOND), S(NLAY, NPOND), depth(NPOND), crust(NPOND)
  real(dp) :: evap_day(NPOND), harvested(NPOND), area(NPOND), target(NPOND), expo(NPOND)
  integer  :: nharvest, ntransfer
  integer(8) :: seed = 77123456789_8
  character(len=512) :: outdir
  integer :: umet, ustate, usurf, uharv
  integer(8) :: harv_pos

contains

  subroutine fail(msg, ios)
    character(len=*), intent(in) :: msg
    integer, intent(in) :: ios
    write(0, '(a,a,a,i0)') 'salt_pan_brine_direct: ', trim(msg), ' iostat=', ios
    stop 2
  end subroutine fail

  real(dp) function urand()
    seed = seed * 6364136223846793005_8 + 1442695040888963407_8
    urand = real(ishft(seed, -11), dp) / 9007199254740992.0_dp
  end function urand

  function fpath(name) result(p)
    character(len=*), intent(in) :: name
    character(len=600) :: p
    p = trim(outdir) // '/' // name
  end function fpath

  subroutine generate_met()
    ! hourly weather for a Mediterranean summer, written as direct-access records
    type(met_t) :: m
    integer :: h, ios, rl
    real(dp) :: doy, hr, cloud, front
    inquire(iolength=rl) m%sw, m%tair, m%rh, m%wind, m%rain
    open(newunit=umet, file=fpath('met_hourly.da'), access='direct', recl=rl, form='unformatted', &
         status='replace', action='readwrite', iostat=ios)
    if (ios /= 0) call fail('open met_hourly.da', ios)
    cloud = 0.1_dp
    front = 0.0_dp
    do h = 1, NHOUR
      doy = 120.0_dp + (h - 1) / 24
      hr = mod(h - 1, 24)
      if (mod(h - 1, 24) == 0) then
        cloud = min(max(0.7_dp * cloud + 0.3_dp * urand() ** 3, 0.0_dp), 1.0_dp)
        front = merge(1.0_dp, 0.0_dp, urand() < 0.05_dp)
      end if
      m%sw = max(0.0_dp, 1000.0_dp * sin(PI * (hr - 5.5_dp) / 14.0_dp)) * (1.0_dp - 0.7_dp * cloud) * &
             (0.85_dp + 0.15_dp * sin(PI * (doy - 80.0_dp) / 365.0_dp))
      m%tair = 22.0_dp + 6.0_dp * sin(PI * (doy - 110.0_dp) / 180.0_dp) + 5.0_dp * sin(2*PI*(hr - 9.0_dp)/24.0_dp)
      m%rh = min(0.95_dp, 0.55_dp - 0.15_dp * sin(2*PI*(hr - 9.0_dp)/24.0_dp) + 0.3_dp * cloud)
      m%wind = 2.0_dp + 4.0_dp * urand() * (1.0_dp + front) + 2.0_dp * sin(2*PI*(hr - 14.0_dp)/24.0_dp) ** 2
      m%rain = 0.0_dp
      if (front > 0.5_dp .and. urand() < 0.3_dp) m%rain = 3.0_dp * urand()
      write(umet, rec=h, iostat=ios) m%sw, m%tair, m%rh, m%wind, m%rain
      if (ios /= 0) call fail('write met record', ios)
    end do
  end subroutine generate_met

  subroutine read_met(h, m)
    integer, intent(in) :: h
    type(met_t), intent(out) :: m
    integer :: ios
    read(umet, rec=h, iostat=ios) m%sw, m%tair, m%rh, m%wind, m%rain
    if (ios /= 0) call fail('read met record', ios)
  end subroutine read_met

  subroutine init_ponds()
    integer :: p, k, j
    do p = 1, NPOND
      k = mod(p - 1, NPERTRAIN) + 1
      area(p) = merge(2.0e4_dp, 8.0e4_dp, k > 5) * (0.8_dp + 0.4_dp * urand())   ! m^2
      expo(p) = 0.75_dp + 0.1_dp * ((p - 1) / NPERTRAIN) + 0.1_dp * urand()    ! wind exposure
      depth(p) = merge(0.25_dp, 0.60_dp, k > 5)
      target(p) = SEA + (SAT - SEA) * real(k, dp) / 5.5_dp           ! transfer threshold
      do j = 1, NLAY
        T(j, p) = 20.0_dp
        S(j, p) = min(SEA * (1.0_dp + 0.9_dp * (k - 1)), SAT - 5.0_dp)
      end do
      crust(p) = 0.0_dp
      harvested(p) = 0.0_dp
    end do
    nharvest = 0
    ntransfer = 0
  end subroutine init_ponds

  real(dp) function density(tt, ss)
    real(dp), intent(in) :: tt, ss
    density = 1000.0_dp * (1.0_dp + 0.00070_dp * ss - 0.00025_dp * (tt - 20.0_dp))
  end function density

  real(dp) function evaporation(m, tsurf, ssurf)
    ! Dalton-type bulk formula with salinity-reduced water activity, m/h
    type(met_t), intent(in) :: m
    real(dp), intent(in) :: tsurf, ssurf
    real(dp) :: es, ea, aw
    es = 0.6108_dp * exp(17.27_dp * tsurf / (tsurf + 237.3_dp))
    ea = m%rh * 0.6108_dp * exp(17.27_dp * m%tair / (m%tair + 237.3_dp))
    aw = max(0.70_dp, 1.0_dp - 0.00095_dp * ssurf)
    evaporation = max(0.0_dp, (0.25_dp + 0.17_dp * m%wind) * (aw * es - ea)) * 1.0e-3 / 24.0_dp * 3.0_dp
  end function evaporation

  subroutine regrid(p, dztop)
    ! conservative remap of salt and heat after the top layer changed thickness
    integer, intent(in) :: p
    real(dp), intent(in) :: dztop
    real(dp) :: zo(0:NLAY), zn(0:NLAY), so(NLAY), to(NLAY), dzn, ov, ss, ts
    integer :: j, i
    dzn = depth(p) / NLAY
    zo(0) = 0.0_dp
    do j = 1, NLAY - 1
      zo(j) = zo(j-1) + (depth(p) - dztop) / (NLAY - 1)
    end do
    zo(NLAY) = depth(p)
    do j = 0, NLAY
      zn(j) = j * dzn
    end do
    so = S(:, p); to = T(:, p)
    i = 1
    do j = 1, NLAY
      ss = 0.0_dp; ts = 0.0_dp
      do i = 1, NLAY
        ov = min(zn(j), zo(i)) - max(zn(j-1), zo(i-1))
        if (ov > 0.0_dp) then
          ss = ss + ov * so(i)
          ts = ts + ov * to(i)
        end if
      end do
      S(j, p) = ss / dzn
      T(j, p) = ts / dzn
    end do
  end subroutine regrid

  subroutine implicit_diffusion(c, r)
    ! solve (I - r L) c_new = c with zero-flux ends (Thomas algorithm)
    real(dp), intent(inout) :: c(NLAY)
    real(dp), intent(in) :: r
    real(dp) :: cp(NLAY), dd(NLAY), b, m
    integer :: j
    b = 1.0_dp + r
    cp(1) = -r / b
    dd(1) = c(1) / b
    do j = 2, NLAY
      b = 1.0_dp + merge(r, 2.0_dp * r, j == NLAY)
      m = b + r * cp(j-1)
      cp(j) = -r / m
      dd(j) = (c(j) + r * dd(j-1)) / m
    end do
    c(NLAY) = dd(NLAY)
    do j = NLAY - 1, 1, -1
      c(j) = dd(j) - cp(j) * c(j+1)
    end do
  end subroutine implicit_diffusion

  subroutine step_pond(p, m, e)
    ! one hour for one pond column (layer 1 = bottom, NLAY = surface)
    integer, intent(in) :: p
    type(met_t), intent(in) :: m
    real(dp), intent(out) :: e
    real(dp), parameter :: KT = 1.4e-7_dp, KS = 1.5e-9_dp, RHOC = 4.0e6_dp
    real(dp) :: dz, kext, q(NLAY), tn(NLAY), sn(NLAY), dts, flux, dztop, excess, z, rt, rs
    integer :: j, it
    dz = depth(p) / NLAY
    kext = 1.5_dp + 0.012_dp * S(NLAY, p)                       ! brine gets murkier
    do j = 1, NLAY
      z = (NLAY - j + 0.5_dp) * dz
      q(j) = 0.9_dp * m%sw * kext * exp(-kext * z) * dz          ! W/m^2 absorbed in layer
    end do
    dts = 3600.0_dp / NSUB
    rt = KT * dts / (dz * dz)
    rs = KS * dts / (dz * dz)
    do it = 1, NSUB
      ! sources: absorbed sunlight, surface long-wave and sensible loss, ground conduction
      do j = 1, NLAY
        flux = q(j)
        if (j == NLAY) flux = flux - 5.67e-8_dp * 0.97_dp * ((T(j,p) + 273.15_dp)**4 - (m%tair + 263.0_dp)**4) &
                                   - 3.6_dp * m%wind * expo(p) * (T(j,p) - m%tair)
        if (j == 1) flux = flux - 3.0_dp * (T(1,p) - 18.0_dp)
        tn(j) = T(j, p) + dts * flux / (RHOC * dz)
        sn(j) = S(j, p)
      end do
      ! molecular diffusion of heat and salt, backward Euler
      call implicit_diffusion(tn, rt)
      call implicit_diffusion(sn, rs)
      ! convective adjustment: mix any layer pair with dense brine on top
      do j = NLAY - 1, 1, -1
        if (density(tn(j+1), sn(j+1)) > density(tn(j), sn(j))) then
          tn(j) = 0.5_dp * (tn(j) + tn(j+1)); tn(j+1) = tn(j)
          sn(j) = 0.5_dp * (sn(j) + sn(j+1)); sn(j+1) = sn(j)
        end if
      end do
      T(:, p) = tn
      S(:, p) = sn
    end do
    ! evaporation and rain act on the surface layer, then re-grid
    e = evaporation(m, T(NLAY, p), S(NLAY, p)) * expo(p)
    dztop = dz - e + m%rain * 1.0e-3_dp
    S(NLAY, p) = S(NLAY, p) * dz / dztop
    depth(p) = depth(p) - e + m%rain * 1.0e-3_dp
    call regrid(p, dztop)
    ! halite deposition where supersaturated (crust density 2.16 t/m^3, 50 % porosity)
    do j = 1, NLAY
      if (S(j, p) > SAT) then
        excess = (S(j, p) - SAT) * depth(p) / NLAY                ! kg/m^2
        crust(p) = crust(p) + excess / 1080.0_dp
        S(j, p) = SAT
      end if
    end do
  end subroutine step_pond

  subroutine transfer_brine()
    ! pump brine one pond down the train when its mean salinity reaches target
    integer :: tr, k, p, q, j
    real(dp) :: smean, vol, sin_mean, frac
    do tr = 1, NTRAIN
      do k = NPERTRAIN, 1, -1
        p = (tr - 1) * NPERTRAIN + k
        smean = sum(S(:, p)) / NLAY
        if (k < NPERTRAIN .and. smean >= target(p) .and. depth(p) > 0.15_dp) then
          q = p + 1
          vol = min(0.3_dp * depth(p) * area(p), max(0.0_dp, (0.45_dp - depth(q)) * area(q)))
          if (vol <= 0.0_dp) cycle
          sin_mean = smean
          frac = vol / area(q) / (depth(q) + vol / area(q))
          do j = 1, NLAY
            S(j, q) = (1.0_dp - frac) * S(j, q) + frac * sin_mean
          end do
          depth(q) = depth(q) + vol / area(q)
          depth(p) = depth(p) - vol / area(p)
          ntransfer = ntransfer + 1
        end if
        if (k == 1 .and. depth(p) < 0.5_dp) then                   ! sea-water intake
          frac = (0.6_dp - depth(p)) / 0.6_dp
          S(:, p) = (1.0_dp - frac) * S(:, p) + frac * SEA
          depth(p) = 0.6_dp
        end if
      end do
    end do
  end subroutine transfer_brine

  subroutine open_outputs()
    integer :: ios, rl, rls
    integer(4) :: zero
    inquire(iolength=rl) T(:, 1), S(:, 1), depth(1), crust(1), evap_day(1), harvested(1)
    open(newunit=ustate, file=fpath('pond_state.da'), access='direct', recl=rl, form='unformatted', &
         status='replace', action='readwrite', iostat=ios)
    if (ios /= 0) call fail('open pond_state.da', ios)
    inquire(iolength=rls) T(1, 1), S(1, 1), depth(1)
    open(newunit=usurf, file=fpath('surface_hourly.da'), access='direct', recl=rls, form='unformatted', &
         status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('open surface_hourly.da', ios)
    open(newunit=uharv, file=fpath('harvest_log.bin'), access='stream', form='unformatted', &
         status='replace', action='readwrite', iostat=ios)
    if (ios /= 0) call fail('open harvest_log.bin', ios)
    zero = 0
    write(uharv, iostat=ios) 'SALTHARV', zero
    if (ios /= 0) call fail('write harvest header', ios)
    inquire(unit=uharv, pos=harv_pos)
  end subroutine open_outputs

  subroutine harvest(day)
    integer, intent(in) :: day
    integer :: p, ios
    real(dp) :: tonnes
    do p = 1, NPOND
      if (mod(p - 1, NPERTRAIN) + 1 > 5 .and. crust(p) > 0.04_dp) then
        tonnes = crust(p) * area(p) * 1.08_dp
        harvested(p) = harvested(p) + tonnes
        nharvest = nharvest + 1
        write(uharv, pos=harv_pos, iostat=ios) int(day, 4), int(p, 4), tonnes, crust(p), sum(S(:, p)) / NLAY
        if (ios /= 0) call fail('write harvest event', ios)
        inquire(unit=uharv, pos=harv_pos)
        crust(p) = 0.01_dp                                         ! leave a floor of salt
      end if
    end do
  end subroutine harvest

  subroutine write_day_state(day)
    integer, intent(in) :: day
    integer :: p, ios
    do p = 1, NPOND
      write(ustate, rec=(day - 1) * NPOND + p, iostat=ios) T(:, p), S(:, p), depth(p), crust(p), &
           evap_day(p), harvested(p)
      if (ios /= 0) call fail('write pond state', ios)
    end do
  end subroutine write_day_state

  subroutine run_season()
    type(met_t) :: m
    integer :: h, p, day, ios
    real(dp) :: e
    do h = 1, NHOUR
      day = (h - 1) / 24 + 1
      if (mod(h - 1, 24) == 0) evap_day = 0.0_dp
      call read_met(h, m)
      do p = 1, NPOND
        call step_pond(p, m, e)
        evap_day(p) = evap_day(p) + e
        write(usurf, rec=(h - 1) * NPOND + p, iostat=ios) T(NLAY, p), S(NLAY, p), e
        if (ios /= 0) call fail('write surface record', ios)
      end do
      if (mod(h, 24) == 0) then
        call transfer_brine()
        call harvest(day)
        call write_day_state(day)
      end if
    end do
  end subroutine run_season

  subroutine season_report()
    ! re-read the state file pond-major (stride NPOND records) and the harvest log
    real(dp) :: tt(NLAY), ss(NLAY), dd, cc, ee, hh, smax, emean, strat, stratmax
    integer :: p, day, ios, ur, nev, dsat, pp, dday, i
    integer(4) :: n4, d4, p4
    real(dp) :: ton, cr, sm, tot
    character(len=8) :: magic
    open(newunit=ur, file=fpath('season_report.txt'), status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('open season_report.txt', ios)
    write(ur, '(a)') '# pond train stage  mean_evap_mm/d  max_surfS_g/L  first_sat_day  max_strat_g/L  harvested_t'
    tot = 0.0_dp
    do p = 1, NPOND
      emean = 0.0_dp; smax = 0.0_dp; dsat = -1; stratmax = 0.0_dp
      do day = 1, NDAY
        read(ustate, rec=(day - 1) * NPOND + p, iostat=ios) tt, ss, dd, cc, ee, hh
        if (ios /= 0) call fail('read pond state', ios)
        emean = emean + ee * 1000.0_dp / NDAY
        smax = max(smax, ss(NLAY))
        strat = ss(1) - ss(NLAY)
        stratmax = max(stratmax, strat)
        if (dsat < 0 .and. maxval(ss) >= SAT - 1.0e-9_dp) dsat = day
      end do
      tot = tot + hh
      write(ur, '(i5,i6,i6,f16.3,f15.2,i15,f15.3,f13.1)', iostat=ios) p, (p - 1) / NPERTRAIN + 1, &
           mod(p - 1, NPERTRAIN) + 1, emean, smax, dsat, stratmax, hh
      if (ios /= 0) call fail('write report row', ios)
    end do
    ! re-read the harvest stream and patch the event count into its header
    read(uharv, pos=1, iostat=ios) magic, n4
    if (ios /= 0 .or. magic /= 'SALTHARV') call fail('bad harvest header', ios)
    nev = 0
    write(ur, '(a)') '# harvest events: day pond tonnes crust_m mean_S'
    do i = 1, nharvest
      read(uharv, iostat=ios) d4, p4, ton, cr, sm
      if (ios /= 0) call fail('read harvest event', ios)
      pp = p4; dday = d4
      nev = nev + 1
      write(ur, '(2i6,f12.1,f9.4,f9.2)') dday, pp, ton, cr, sm
    end do
    n4 = int(nev, 4)
    write(uharv, pos=9, iostat=ios) n4
    if (ios /= 0) call fail('patch harvest count', ios)
    close(ur, iostat=ios)
    if (ios /= 0) call fail('close report', ios)
    write(*, '(a,i0,a,i0,a,i0,a)') 'saltworks: ', NPOND, ' ponds x ', NLAY, ' layers, ', NDAY, ' days hourly'
    write(*, '(a,i0,a,i0,a,f10.1,a)') '  transfers ', ntransfer, ', harvests ', nev, ', salt ', tot, ' t'
  end subroutine season_report

end module saltworks

program salt_pan_brine_direct
  use saltworks
  implicit none
  integer :: ios
  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: salt_pan_brine_direct OUTDIR'
    stop 1
  end if
  call get_command_argument(1, outdir)
  call generate_met()
  call init_ponds()
  call open_outputs()
  call run_season()
  call season_report()
  close(umet, iostat=ios)
  close(ustate, iostat=ios)
  close(usurf, iostat=ios)
  close(uharv, iostat=ios)
  if (ios /= 0) call fail('close files', ios)
end program salt_pan_brine_direct
