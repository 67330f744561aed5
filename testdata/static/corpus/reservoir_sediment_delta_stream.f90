! reservoir_sediment_delta_stream.f90
!
! Sedimentation of a valley reservoir behind a dam over 18 months.  An hourly
! inflow hydrograph (baseflow, snowmelt pulse, storms) with a sediment rating
! curve for three grain classes (clay, silt, fine sand) is generated first
! and stored in a direct-access file, one record per hour.  Each day the
! depth-averaged plan-view suspended-sediment field is advected by the
! through-flow, spread laterally and settles; deposits raise the bed and
! consolidate.  Every DUMP_EVERY days the concentration fields and bed
! elevation are appended to an unformatted sequential file, and every
! SURVEY_EVERY days a bathymetric survey is written range line by range line
! into a fixed slot of an ACCESS='STREAM' file with POS=.  Afterwards the sequential dumps are
! re-read (skipping the unneeded records) for trap efficiency, the survey
! file is read by position for capacity loss, elevation-capacity curves and
! delta-front advance, and a formatted report is written.
!
! Usage: reservoir_sediment_delta_stream OUTDIR
module reservoir_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0)
  integer, parameter :: NX = 240, NY = 60, NCLS = 3
  integer, parameter :: NDAY = 540, NSUB = 2
  integer, parameter :: DUMP_EVERY = 5, SURVEY_EVERY = 30
  integer, parameter :: NSURVEY = NDAY / SURVEY_EVERY
  real(dp), parameter :: DXY = 40.0_dp          ! m
  real(dp), parameter :: POOL = 100.0_dp        ! normal pool elevation, m
  real(dp), parameter :: WS(NCLS) = [2.0e-6_dp, 1.2e-4_dp, 6.0e-3_dp]   ! settling velocity m/s
  real(dp), parameter :: RHO_DEP(NCLS) = [500.0_dp, 1100.0_dp, 1450.0_dp] ! initial dry density kg/m3
  integer, parameter :: HDR_BYTES = 64
  integer, parameter :: NLEV = 96                ! capacity-curve levels, 0.5 m apart below pool

  real(dp) :: bed(NX, NY), bed0(NX, NY), conc(NX, NY, NCLS), age(NX, NY)
  real(dp) :: u(NX, NY), vfac(NX, NY)
  real(dp) :: q_in, c_in(NCLS)
  real(dp) :: mass_in(NCLS) = 0, mass_dep(NCLS) = 0, mass_out(NCLS) = 0
  integer(8) :: seed = 1234567_8
  character(len=512) :: outdir
contains

  real(dp) function urand()
    seed = mod(seed * 48271_8, 2147483647_8)
    urand = real(seed, dp) / 2147483647.0_dp
  end function urand

  subroutine check_io(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
      write(0, '(3a,i0)') 'reservoir: I/O error in ', what, ', iostat=', ios
      error stop 2
    end if
  end subroutine check_io

  ! Hourly inflow (m3/s) and inflow concentrations (kg/m3) into a direct-access file,
  ! one record per hour (record number = 24*(day-1) + hour).
  subroutine make_hydrology()
    integer :: u_h, ios, d, rl, hr
    real(dp) :: base, melt, storm, q, cs, t, diurnal
    real(sp) :: rec(1 + NCLS)
    inquire(iolength=rl) rec
    open(newunit=u_h, file=trim(outdir)//'/inflow_daily.da', access='direct', recl=rl, form='unformatted', &
         status='replace', action='write', iostat=ios)
    call check_io(ios, 'open inflow_daily.da')
    storm = 0.0_dp
    do d = 1, NDAY
      do hr = 1, 24
        t = d - 1 + (hr - 0.5_dp) / 24.0_dp
        base = 18.0_dp + 6.0_dp * sin(2.0_dp * 3.14159265_dp * (t - 60) / 365.0_dp)
        diurnal = 1.0_dp + 0.25_dp * sin(2.0_dp * 3.14159265_dp * (hr - 15) / 24.0_dp)   ! melt peaks late afternoon
        melt = 140.0_dp * exp(-((mod(t, 365.0_dp) - 150.0_dp) / 25.0_dp)**2) * diurnal
        if (urand() < 0.035_dp / 24.0_dp) storm = storm + 150.0_dp + 400.0_dp * urand()
        storm = storm * 0.72_dp**(1.0_dp / 24.0_dp)
        q = base + melt + storm
        cs = 2.5e-4_dp * q**1.4_dp                ! sediment rating curve, kg/m3
        rec(1) = real(q, sp)
        rec(2) = real(0.55_dp * cs, sp)
        rec(3) = real(0.35_dp * cs, sp)
        rec(4) = real(0.10_dp * cs * min(3.0_dp, q / 60.0_dp), sp)
        write(u_h, rec=24 * (d - 1) + hr, iostat=ios) rec
        call check_io(ios, 'write inflow record')
      end do
    end do
    close(u_h, iostat=ios)
    call check_io(ios, 'close inflow_daily.da')
  end subroutine make_hydrology

  ! Daily means of discharge and sediment load (load-weighted concentration) from 24 hourly records.
  subroutine read_inflow_day(u_h, d)
    integer, intent(in) :: u_h, d
    real(sp) :: rec(1 + NCLS)
    real(dp) :: qs, load(NCLS)
    integer :: ios, hr
    qs = 0.0_dp
    load = 0.0_dp
    do hr = 1, 24
      read(u_h, rec=24 * (d - 1) + hr, iostat=ios) rec
      call check_io(ios, 'read inflow record')
      qs = qs + rec(1)
      load = load + real(rec(1), dp) * rec(2:)
    end do
    q_in = qs / 24.0_dp
    c_in = load / qs
  end subroutine read_inflow_day

  ! V-shaped valley sloping towards the dam, with a meandering thalweg.
  subroutine init_bathymetry()
    integer :: i, j
    real(dp) :: x, y, thal, floor
    do j = 1, NY
      do i = 1, NX
        x = (i - 0.5_dp) * DXY
        y = (j - 0.5_dp) * DXY
        thal = 0.5_dp * NY * DXY + 250.0_dp * sin(x / 1400.0_dp)
        floor = 96.0_dp - 0.0045_dp * x
        bed(i, j) = floor + 0.055_dp * abs(y - thal) + 0.3_dp * urand()
        bed(i, j) = min(bed(i, j), POOL + 5.0_dp)
      end do
    end do
    bed0 = bed
    conc = 0.0_dp
    age = 0.0_dp
  end subroutine init_bathymetry

  ! Through-flow velocity: discharge shared across the wet section in proportion to depth^(5/3).
  subroutine flow_field()
    integer :: i, j
    real(dp) :: h, s, a
    do i = 1, NX
      s = 0.0_dp
      a = 0.0_dp
      do j = 1, NY
        h = max(0.0_dp, POOL - bed(i, j))
        s = s + h**(5.0_dp / 3.0_dp) * DXY
        a = a + h * DXY
      end do
      do j = 1, NY
        h = max(0.0_dp, POOL - bed(i, j))
        if (h > 0.05_dp .and. s > 0.0_dp) then
          u(i, j) = q_in * h**(2.0_dp / 3.0_dp) / s
        else
          u(i, j) = 0.0_dp
        end if
        vfac(i, j) = merge(1.0_dp, 0.0_dp, h > 0.05_dp)
      end do
    end do
  end subroutine flow_field

  ! One day in NSUB quasi-steady sub-steps: for each grain class, march down-reservoir solving
  !   q (c - c_up)/dx = -ws c + d/dy (K h dc/dy)
  ! as a tridiagonal system across the section at every station; deposits ws*c*dt raise the bed.
  subroutine transport_day()
    real(dp) :: dt, a(NY), b(NY), c(NY), r(NY), cp(NY), dpv(NY), h(NY), q(NY), kl(NY), m, dep
    real(dp) :: kw, ke, flux(NY), lost, qwet
    integer :: i, j, k, s
    dt = 86400.0_dp / NSUB
    do s = 1, NSUB
      if (s > 1) call flow_field()
      do k = 1, NCLS
        do i = 1, NX
          do j = 1, NY
            h(j) = max(0.0_dp, POOL - bed(i, j))
            q(j) = u(i, j) * h(j)
            kl(j) = 0.05_dp * (0.1_dp + u(i, j)) * h(j) * vfac(i, j)   ! lateral mixing, K*h
          end do
          ! incoming sediment flux per unit width; flux arriving over cells that are dry
          ! here is handed to the wet cells in proportion to their discharge
          if (i == 1) then
            flux = q * c_in(k)
            mass_in(k) = mass_in(k) + sum(flux) * DXY * dt
          end if
          lost = 0.0_dp
          qwet = 0.0_dp
          do j = 1, NY
            if (vfac(i, j) == 0.0_dp) then
              lost = lost + flux(j)
              flux(j) = 0.0_dp
            else
              qwet = qwet + q(j)
            end if
          end do
          if (qwet > 0.0_dp) flux = flux + lost * q / qwet
          do j = 1, NY
            if (vfac(i, j) == 0.0_dp) then
              a(j) = 0.0_dp; c(j) = 0.0_dp; b(j) = 1.0_dp; r(j) = 0.0_dp
              cycle
            end if
            kw = 0.0_dp; ke = 0.0_dp
            if (j > 1) kw = 0.5_dp * (kl(j) + kl(j - 1)) * vfac(i, j - 1) / (DXY * DXY)
            if (j < NY) ke = 0.5_dp * (kl(j) + kl(j + 1)) * vfac(i, j + 1) / (DXY * DXY)
            a(j) = -kw
            c(j) = -ke
            b(j) = q(j) / DXY + WS(k) + kw + ke
            r(j) = flux(j) / DXY
          end do
          ! Thomas algorithm
          cp(1) = c(1) / b(1)
          dpv(1) = r(1) / b(1)
          do j = 2, NY
            m = b(j) - a(j) * cp(j - 1)
            cp(j) = c(j) / m
            dpv(j) = (r(j) - a(j) * dpv(j - 1)) / m
          end do
          conc(i, NY, k) = dpv(NY)
          do j = NY - 1, 1, -1
            conc(i, j, k) = dpv(j) - cp(j) * conc(i, j + 1, k)
          end do
          do j = 1, NY
            if (vfac(i, j) == 0.0_dp) cycle
            dep = WS(k) * conc(i, j, k) * dt                      ! kg/m2 over the sub-step
            bed(i, j) = bed(i, j) + dep / RHO_DEP(k)
            mass_dep(k) = mass_dep(k) + dep * DXY * DXY
          end do
          if (i == NX) mass_out(k) = mass_out(k) + sum(q * conc(i, :, k)) * DXY * dt
          flux = q * conc(i, :, k)
        end do
      end do
    end do
  end subroutine transport_day

  ! Self-weight consolidation of fresh deposits: bed settles towards its compacted level.
  subroutine consolidate_bed()
    integer :: i, j
    real(dp) :: fresh
    do j = 1, NY
      do i = 1, NX
        fresh = bed(i, j) - bed0(i, j)
        if (fresh > 0.0_dp) then
          age(i, j) = age(i, j) + 1.0_dp
          bed(i, j) = bed(i, j) - fresh * 0.0008_dp / (1.0_dp + 0.01_dp * age(i, j))
        end if
      end do
    end do
  end subroutine consolidate_bed

  ! Unformatted sequential dump: header record, one record per class, one bed record.
  subroutine dump_state(u_s, d)
    integer, intent(in) :: u_s, d
    integer :: ios, k
    write(u_s, iostat=ios) d, q_in, c_in, mass_in, mass_dep, mass_out
    call check_io(ios, 'write dump header')
    do k = 1, NCLS
      write(u_s, iostat=ios) real(conc(:, :, k), sp)
      call check_io(ios, 'write concentration record')
    end do
    write(u_s, iostat=ios) bed
    call check_io(ios, 'write bed record')
  end subroutine dump_state

  ! Bathymetric survey into a fixed slot of the stream file (header at POS=1).  The survey
  ! boat runs one range line across the reservoir per station, working upstream from the
  ! dam; each line of NY soundings is written at its own position in the slot.
  subroutine write_survey(u_b, isurv, d)
    integer, intent(in) :: u_b, isurv, d
    integer :: ios, i
    integer(8) :: pos, base
    real(dp) :: line(NY)
    base = HDR_BYTES + 1_8 + int(isurv - 1, 8) * (8_8 + 8_8 * NX * NY)
    write(u_b, pos=base, iostat=ios) int(d, 4), real(q_in, sp)
    call check_io(ios, 'write survey header')
    do i = NX, 1, -1
      line = bed(i, :) + 0.02_dp * (urand() - 0.5_dp)        ! echo-sounder bias per line
      pos = base + 8_8 + 8_8 * int(i - 1, 8) * NY
      write(u_b, pos=pos, iostat=ios) line
      call check_io(ios, 'write survey range line')
    end do
  end subroutine write_survey

  ! Re-read the sequential dumps: per-dump trap efficiency and settled fraction near the dam.
  subroutine analyse_dumps(ndump, te, mean_c_dam)
    integer, intent(out) :: ndump
    real(dp), intent(out) :: te(:), mean_c_dam(:)
    integer :: u_s, ios, d, k
    real(dp) :: q, ci(NCLS), mi(NCLS), md(NCLS), mo(NCLS)
    real(sp), allocatable :: c(:, :)
    allocate(c(NX, NY))
    open(newunit=u_s, file=trim(outdir)//'/reservoir_state.seq', form='unformatted', access='sequential', &
         status='old', action='read', iostat=ios)
    call check_io(ios, 'open reservoir_state.seq for reading')
    ndump = 0
    do
      read(u_s, iostat=ios) d, q, ci, mi, md, mo
      if (ios < 0) exit
      call check_io(ios, 'read dump header')
      ndump = ndump + 1
      te(ndump) = 1.0_dp - sum(mo) / max(sum(mi), 1.0_dp)
      read(u_s, iostat=ios) c                   ! clay concentration near the dam
      call check_io(ios, 'read clay')
      mean_c_dam(ndump) = sum(real(c(NX - 10:NX, :), dp)) / (11.0_dp * NY)
      do k = 2, NCLS
        read(u_s, iostat=ios)                   ! skip silt and sand records
        call check_io(ios, 'skip silt/sand')
      end do
      read(u_s, iostat=ios)                     ! skip bed record
      call check_io(ios, 'skip bed')
    end do
    close(u_s, iostat=ios)
    call check_io(ios, 'close reservoir_state.seq')
  end subroutine analyse_dumps

  ! Read surveys by position: storage below pool, and delta-front position along the thalweg.
  subroutine analyse_surveys(cap, front, sday, curve)
    real(dp), intent(out) :: cap(NSURVEY), front(NSURVEY), curve(NLEV, NSURVEY)
    integer, intent(out) :: sday(NSURVEY)
    integer :: lev
    real(dp) :: zl
    integer :: u_b, ios, s, i, j
    integer(4) :: d4
    real(sp) :: q4
    real(dp), allocatable :: b(:, :), lines(:, :)
    integer(8) :: pos
    real(dp) :: dz, best
    allocate(b(NX, NY), lines(NY, NX))
    open(newunit=u_b, file=trim(outdir)//'/bathymetry_surveys.bin', access='stream', form='unformatted', &
         status='old', action='read', iostat=ios)
    call check_io(ios, 'open bathymetry_surveys.bin for reading')
    do s = NSURVEY, 1, -1                          ! newest first, as a surveyor would compare
      pos = HDR_BYTES + 1_8 + int(s - 1, 8) * (8_8 + 8_8 * NX * NY)
      read(u_b, pos=pos, iostat=ios) d4, q4
      call check_io(ios, 'read survey header')
      read(u_b, iostat=ios) lines
      call check_io(ios, 'read survey range lines')
      b = transpose(lines)
      sday(s) = d4
      cap(s) = sum(max(0.0_dp, POOL - b)) * DXY * DXY
      front(s) = 0.0_dp
      best = 0.0_dp
      do i = 2, NX
        dz = 0.0_dp
        do j = 1, NY
          dz = max(dz, b(i, j) - bed0(i, j))
        end do
        if (dz > 0.05_dp) best = (i - 0.5_dp) * DXY
      end do
      front(s) = best
      ! elevation-capacity curve: storage below each level in 0.5 m steps
      do lev = 1, NLEV
        zl = POOL - (NLEV - lev) * 0.5_dp
        curve(lev, s) = sum(max(0.0_dp, zl - b)) * DXY * DXY
      end do
    end do
    close(u_b, iostat=ios)
    call check_io(ios, 'close bathymetry_surveys.bin')
  end subroutine analyse_surveys

  subroutine write_report(ndump, te, cdam, cap, front, sday, curve)
    integer, intent(in) :: ndump, sday(NSURVEY)
    real(dp), intent(in) :: te(:), cdam(:), cap(NSURVEY), front(NSURVEY), curve(NLEV, NSURVEY)
    integer :: u_r, ios, s, n, lev
    real(dp) :: cap0
    cap0 = sum(max(0.0_dp, POOL - bed0)) * DXY * DXY
    open(newunit=u_r, file=trim(outdir)//'/sedimentation_report.txt', status='replace', action='write', iostat=ios)
    call check_io(ios, 'open report')
    write(u_r, '(a,es12.5,a)', iostat=ios) 'initial capacity ', cap0, ' m3'
    call check_io(ios, 'write report')
    write(u_r, '(a,3es12.4)', iostat=ios) 'mass in  (kg) clay/silt/sand ', mass_in
    call check_io(ios, 'write report line')
    write(u_r, '(a,3es12.4)', iostat=ios) 'deposited(kg) clay/silt/sand ', mass_dep
    call check_io(ios, 'write report line')
    write(u_r, '(a,3es12.4)', iostat=ios) 'passed   (kg) clay/silt/sand ', mass_out
    call check_io(ios, 'write report line')
    write(u_r, '(a)', iostat=ios) ' survey  day   capacity_m3   loss_%   delta_front_m'
    call check_io(ios, 'write report line')
    do s = 1, NSURVEY
      write(u_r, '(i7,i6,es14.6,f9.4,f12.1)', iostat=ios) s, sday(s), cap(s), 100.0_dp * (1 - cap(s) / cap0), front(s)
      call check_io(ios, 'write survey row')
    end do
    write(u_r, '(a)', iostat=ios) ' dump  trap_eff  clay_near_dam_kg_m3'
    call check_io(ios, 'write report line')
    do n = 1, ndump, 6
      write(u_r, '(i5,f10.5,es14.5)', iostat=ios) n, te(n), cdam(n)
      call check_io(ios, 'write dump row')
    end do
    write(u_r, '(a)', iostat=ios) ' elevation-capacity curves (Mm3), one column per survey'
    call check_io(ios, 'write report line')
    do lev = 1, NLEV
      write(u_r, '(f7.1,18f9.4)', iostat=ios) POOL - (NLEV - lev) * 0.5_dp, curve(lev, :) / 1.0e6_dp
      call check_io(ios, 'write capacity curve')
    end do
    close(u_r, iostat=ios)
    call check_io(ios, 'close report')
  end subroutine write_report
end module reservoir_mod

program reservoir_sediment_delta_stream
  use reservoir_mod
  implicit none
  integer :: u_h, u_s, u_b, ios, d, isurv, ndump, sday(NSURVEY), rl
  real(dp) :: te(NDAY), cdam(NDAY), cap(NSURVEY), front(NSURVEY), curve(NLEV, NSURVEY)
  character(len=HDR_BYTES) :: hdr
  real(sp) :: rec(1 + NCLS)

  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: reservoir_sediment_delta_stream OUTDIR'
    error stop 1
  end if
  call get_command_argument(1, outdir)

  call make_hydrology()
  call init_bathymetry()
  inquire(iolength=rl) rec
  open(newunit=u_h, file=trim(outdir)//'/inflow_daily.da', access='direct', recl=rl, form='unformatted', &
       status='old', action='read', iostat=ios)
  call check_io(ios, 'open inflow_daily.da for reading')
  open(newunit=u_s, file=trim(outdir)//'/reservoir_state.seq', form='unformatted', access='sequential', &
       status='replace', action='write', iostat=ios)
  call check_io(ios, 'open reservoir_state.seq')
  open(newunit=u_b, file=trim(outdir)//'/bathymetry_surveys.bin', access='stream', form='unformatted', &
       status='replace', action='write', iostat=ios)
  call check_io(ios, 'open bathymetry_surveys.bin')
  write(hdr, '(a,i4,a,i4,a,i3,a,f6.1)') 'RSVSURV1 nx=', NX, ' ny=', NY, ' n=', NSURVEY, ' dx=', DXY
  write(u_b, pos=1, iostat=ios) hdr
  call check_io(ios, 'write survey file header')

  isurv = 0
  do d = 1, NDAY
    call read_inflow_day(u_h, d)
    call flow_field()
    call transport_day()
    call consolidate_bed()
    if (mod(d, DUMP_EVERY) == 0) call dump_state(u_s, d)
    if (mod(d, SURVEY_EVERY) == 0) then
      isurv = isurv + 1
      call write_survey(u_b, isurv, d)
    end if
  end do
  close(u_h, iostat=ios)
  call check_io(ios, 'close inflow_daily.da')
  close(u_s, iostat=ios)
  call check_io(ios, 'close reservoir_state.seq')
  close(u_b, iostat=ios)
  call check_io(ios, 'close bathymetry_surveys.bin')

  call analyse_dumps(ndump, te, cdam)
  call analyse_surveys(cap, front, sday, curve)
  call write_report(ndump, te, cdam, cap, front, sday, curve)
  write(*, '(a,i0,a,i0,a,f7.3,a,f8.4,a,f8.1,a)') 'reservoir: ', NDAY, ' days, ', ndump, ' dumps, trap efficiency ', &
       te(ndump), ', capacity loss ', 100.0_dp * (1.0_dp - cap(NSURVEY) / (sum(max(0.0_dp, POOL - bed0)) * DXY * DXY)), &
       ' %, delta front at ', front(NSURVEY), ' m'
end program reservoir_sediment_delta_stream
