! kiln_firing_wall_profiles.f90
!
! Transient heat conduction through the layered wall of an electric pottery
! kiln (hot-face firebrick, insulating brick, mineral board, steel shell)
! during a stoneware glaze firing, coupled to a lumped model of the ware load
! (spherically symmetric pots with a moisture/combustion heat sink).  The
! firing schedule is generated with a small deterministic perturbation of a
! standard cone-6 programme.  Every NOUT steps a formatted wall and ware
! profile table is written; a per-step controller log is written as well,
! together with the programmed set-point curve and the wall construction table.
! At the end the profile file is re-read to build the peak-temperature
! envelope of the wall and a formatted summary is written.
!
! Usage: kiln_firing_wall_profiles OUTDIR
module kiln_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: NW = 720          ! wall nodes
  integer, parameter :: NWARE = 20        ! radial nodes through shelf+pot wall
  integer, parameter :: NPOT = 12         ! ware pieces at different shelf positions
  integer, parameter :: NSEG = 7          ! firing schedule segments
  integer, parameter :: NSTEP = 14400     ! time steps
  integer, parameter :: NOUT = 48         ! profile output interval
  real(dp), parameter :: DT = 4.0_dp      ! s
  real(dp), parameter :: LWALL = 0.2286_dp
  real(dp), parameter :: SIGMA = 5.670374e-8_dp

  real(dp) :: seg_rate(NSEG), seg_target(NSEG), seg_hold(NSEG)
  real(dp) :: x(NW), dx, rho(NW), cp(NW), k0(NW), kslope(NW)
  real(dp) :: tw(NW), tw_old(NW)
  real(dp) :: tware(NWARE, NPOT), water(NPOT), carbon(NPOT), potpos(NPOT)
  real(dp) :: tset, tchamber, power_frac, heatwork, heatwork_pot(NPOT)
  integer, parameter :: MAXBLK = NSTEP / NOUT
  real(dp) :: blk_time(MAXBLK), blk_hot(MAXBLK), blk_shell(MAXBLK), blk_q(MAXBLK)
  integer :: seg_now
  real(dp) :: seg_clock
  integer(8) :: lcg_state = 20240611_8   ! seed
  character(len=512) :: outdir
contains

  real(dp) function urand()
    ! Park-Miller minimal standard generator (fits in 64-bit integers without overflow)
    lcg_state = mod(lcg_state * 48271_8, 2147483647_8)
    urand = real(lcg_state, dp) / 2147483647.0_dp
  end function urand

  subroutine check_io(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
      write(0, '(a,a,a,i0)') 'I/O error in ', trim(what), ': iostat=', ios
      error stop 2
    end if
  end subroutine check_io

  subroutine build_schedule()
    ! Cone-6 slow glaze programme with small random perturbations, written as a table.
    real(dp) :: base_rate(NSEG), base_target(NSEG), base_hold(NSEG)
    integer :: i, u, ios
    base_rate   = [ 60._dp, 100._dp, 150._dp, 200._dp, 60._dp, -250._dp, -80._dp ]
    base_target = [ 120._dp, 600._dp, 1100._dp, 1170._dp, 1222._dp, 1000._dp, 760._dp ]
    base_hold   = [ 1800._dp, 0._dp, 0._dp, 0._dp, 600._dp, 0._dp, 0._dp ]
    do i = 1, NSEG
      seg_rate(i) = base_rate(i) * (1.0_dp + 0.05_dp * (urand() - 0.5_dp))
      seg_target(i) = base_target(i) + 4.0_dp * (urand() - 0.5_dp)
      seg_hold(i) = base_hold(i)
    end do
    open(newunit=u, file=trim(outdir)//'/schedule.txt', status='replace', action='write', iostat=ios)
    call check_io(ios, 'open schedule.txt')
    write(u, '(a)', iostat=ios) '# seg   rate_C_per_h   target_C   hold_s'
    call check_io(ios, 'write schedule header')
    do i = 1, NSEG
      write(u, '(i5,3f12.2)', iostat=ios) i, seg_rate(i), seg_target(i), seg_hold(i)
      call check_io(ios, 'write schedule')
    end do
    close(u, iostat=ios)
    call check_io(ios, 'close schedule.txt')
    call write_programme_curve()
  end subroutine build_schedule

  ! Dry run of the ramp/hold programme: the set-point curve the controller will follow.
  subroutine write_programme_curve()
    integer :: u, ios, istep, iseg
    real(dp) :: sp_, ramp, clock
    open(newunit=u, file=trim(outdir)//'/programme_curve.txt', status='replace', action='write', iostat=ios)
    call check_io(ios, 'open programme_curve.txt')
    sp_ = 20.0_dp
    iseg = 1
    clock = 0.0_dp
    do istep = 1, NSTEP
      if (iseg <= NSEG) then
        ramp = seg_rate(iseg) * DT / 3600.0_dp
        if ((ramp > 0 .and. sp_ < seg_target(iseg)) .or. (ramp < 0 .and. sp_ > seg_target(iseg))) then
          sp_ = sp_ + ramp
          if ((ramp > 0 .and. sp_ > seg_target(iseg)) .or. (ramp < 0 .and. sp_ < seg_target(iseg))) sp_ = seg_target(iseg)
        else
          clock = clock + DT
          if (clock >= seg_hold(iseg)) then
            iseg = iseg + 1
            clock = 0.0_dp
          end if
        end if
      end if
      write(u, '(i7,f10.2,i3,f10.3)', iostat=ios) istep, istep * DT / 60.0_dp, min(iseg, NSEG + 1), sp_
      call check_io(ios, 'write programme curve')
    end do
    close(u, iostat=ios)
    call check_io(ios, 'close programme_curve.txt')
  end subroutine write_programme_curve

  subroutine init_wall_and_load()
    ! Layered wall properties and initial state of the ware.
    integer :: i, p, u, ios
    real(dp) :: xi, rsum
    dx = LWALL / real(NW - 1, dp)
    do i = 1, NW
      x(i) = real(i - 1, dp) * dx
      xi = x(i)
      if (xi < 0.0635_dp) then          ! K23 insulating firebrick hot face
        rho(i) = 770._dp; cp(i) = 1000._dp; k0(i) = 0.14_dp; kslope(i) = 1.6e-4_dp
      else if (xi < 0.1905_dp) then     ! dense backup brick
        rho(i) = 1900._dp; cp(i) = 880._dp; k0(i) = 0.80_dp; kslope(i) = 2.0e-4_dp
      else if (xi < 0.2222_dp) then     ! ceramic fibre board
        rho(i) = 256._dp; cp(i) = 1050._dp; k0(i) = 0.05_dp; kslope(i) = 1.2e-4_dp
      else                              ! steel jacket
        rho(i) = 7850._dp; cp(i) = 490._dp; k0(i) = 45._dp; kslope(i) = 0._dp
      end if
    end do
    tw = 20.0_dp
    do p = 1, NPOT
      tware(:, p) = 20.0_dp
      water(p) = 0.02_dp + 0.01_dp * urand()
      carbon(p) = 0.004_dp + 0.002_dp * urand()
      potpos(p) = 0.85_dp + 0.3_dp * urand()       ! local radiation view factor
    end do
    tset = 20.0_dp; tchamber = 20.0_dp; power_frac = 0.0_dp; heatwork = 0.0_dp
    heatwork_pot = 0.0_dp
    seg_now = 1; seg_clock = 0.0_dp
    ! construction table: node properties and thermal diffusivity / resistance from the hot face
    open(newunit=u, file=trim(outdir)//'/wall_construction.txt', status='replace', action='write', iostat=ios)
    call check_io(ios, 'open wall_construction.txt')
    rsum = 0.0_dp
    do i = 1, NW
      rsum = rsum + dx / k0(i)
      write(u, '(i5,f9.5,f8.1,f8.1,f9.4,es12.4,es12.4)', iostat=ios) i, x(i), rho(i), cp(i), k0(i), &
           k0(i) / (rho(i) * cp(i)), rsum
      call check_io(ios, 'write wall construction')
    end do
    close(u, iostat=ios)
    call check_io(ios, 'close wall_construction.txt')
  end subroutine init_wall_and_load


  subroutine step_wall()
    ! Crank-Nicolson with lagged temperature-dependent conductivity, Thomas solve.
    real(dp) :: a(NW), b(NW), c(NW), d(NW), kf(NW), cprime(NW), dprime(NW)
    real(dp) :: r, m, hface, tk
    integer :: i, it
    tw_old = tw
    do it = 1, 2
      do i = 1, NW - 1
        kf(i) = k0(i) + kslope(i) * 0.5_dp * (tw(i) + tw(i + 1))
      end do
      kf(NW) = kf(NW - 1)
      ! hot face: convection + radiation linearised around chamber temperature
      tk = tchamber + 273.15_dp
      hface = 15.0_dp + 4.0_dp * 0.8_dp * SIGMA * tk**3
      do i = 2, NW - 1
        r = DT / (rho(i) * cp(i) * dx * dx)
        a(i) = -0.5_dp * r * kf(i - 1)
        c(i) = -0.5_dp * r * kf(i)
        b(i) = 1.0_dp - a(i) - c(i)
        d(i) = tw_old(i) + 0.5_dp * r * (kf(i - 1) * (tw_old(i - 1) - tw_old(i)) + kf(i) * (tw_old(i + 1) - tw_old(i)))
      end do
      r = DT / (rho(1) * cp(1) * dx * dx)
      a(1) = 0.0_dp
      c(1) = -r * kf(1)
      b(1) = 1.0_dp + r * kf(1) + 2.0_dp * DT * hface / (rho(1) * cp(1) * dx)
      d(1) = tw_old(1) + 2.0_dp * DT * hface * tchamber / (rho(1) * cp(1) * dx)
      r = DT / (rho(NW) * cp(NW) * dx * dx)
      a(NW) = -r * kf(NW - 1)
      c(NW) = 0.0_dp
      b(NW) = 1.0_dp + r * kf(NW - 1) + 2.0_dp * DT * 10.0_dp / (rho(NW) * cp(NW) * dx)
      d(NW) = tw_old(NW) + 2.0_dp * DT * 10.0_dp * 20.0_dp / (rho(NW) * cp(NW) * dx)
      cprime(1) = c(1) / b(1)
      dprime(1) = d(1) / b(1)
      do i = 2, NW
        m = b(i) - a(i) * cprime(i - 1)
        cprime(i) = c(i) / m
        dprime(i) = (d(i) - a(i) * dprime(i - 1)) / m
      end do
      tw(NW) = dprime(NW)
      do i = NW - 1, 1, -1
        tw(i) = dprime(i) - cprime(i) * tw(i + 1)
      end do
    end do
  end subroutine step_wall

  subroutine step_ware_and_chamber()
    ! Ramp/hold set-point logic and PI element power, explicit radial conduction in each
    ! shelf/pot wall with dehydration and burn-out sinks, and the lumped chamber energy
    ! balance driven by element power, wall loss and heat taken up by the load.
    real(dp), parameter :: kw = 1.1_dp, rhow = 2000._dp, cpw = 950._dp, thick = 0.012_dp
    real(dp), save :: integ = 0.0_dp
    real(dp) :: err, ramp
    real(dp) :: dr, alpha, tnew(NWARE), qin, sink, ti, qwall, qware, tk_c, tk_s
    integer :: p, j, sub
    integer, parameter :: NSUB = 16
    if (seg_now > NSEG) then
      tset = 20.0_dp
      power_frac = 0.0_dp
    else
      ramp = seg_rate(seg_now) * DT / 3600.0_dp
      if ((ramp > 0 .and. tset < seg_target(seg_now)) .or. (ramp < 0 .and. tset > seg_target(seg_now))) then
        tset = tset + ramp
        if ((ramp > 0 .and. tset > seg_target(seg_now)) .or. (ramp < 0 .and. tset < seg_target(seg_now))) &
             tset = seg_target(seg_now)
      else
        seg_clock = seg_clock + DT
        if (seg_clock >= seg_hold(seg_now)) then
          seg_now = seg_now + 1
          seg_clock = 0.0_dp
        end if
      end if
      err = tset - tchamber
      integ = max(-2000._dp, min(2000._dp, integ + err * DT))
      power_frac = max(0.0_dp, min(1.0_dp, 0.02_dp * err + 2.0e-5_dp * integ))
    end if
    dr = thick / real(NWARE - 1, dp)
    alpha = kw / (rhow * cpw)
    qware = 0.0_dp
    tk_c = tchamber + 273.15_dp
    do p = 1, NPOT
      do sub = 1, NSUB
        tk_s = tware(1, p) + 273.15_dp
        qin = potpos(p) * 0.85_dp * SIGMA * (tk_c**4 - tk_s**4) + 12.0_dp * (tchamber - tware(1, p))
        do j = 2, NWARE - 1
          ti = tware(j, p)
          sink = 0.0_dp
          if (ti > 100._dp .and. ti < 250._dp .and. water(p) > 0) sink = 4.0e4_dp * water(p)
          if (ti > 350._dp .and. ti < 800._dp .and. carbon(p) > 0) sink = sink + 1.5e4_dp * carbon(p)
          tnew(j) = ti + (DT / NSUB) * (alpha * (tware(j + 1, p) - 2 * ti + tware(j - 1, p)) / (dr * dr) &
                    - sink / (rhow * cpw))
        end do
        tnew(1) = tware(1, p) + (DT / NSUB) * (2 * alpha * (tware(2, p) - tware(1, p)) / (dr * dr) &
                  + 2 * qin / (rhow * cpw * dr))
        tnew(NWARE) = tware(NWARE, p) + (DT / NSUB) * 2 * alpha * (tware(NWARE - 1, p) - tware(NWARE, p)) / (dr * dr)
        tware(:, p) = tnew
        if (tware(NWARE / 2, p) > 100._dp) water(p) = max(0.0_dp, water(p) - 2.0e-6_dp * (DT / NSUB))
        if (tware(NWARE / 2, p) > 400._dp) carbon(p) = max(0.0_dp, carbon(p) - 4.0e-7_dp * (DT / NSUB))
      end do
      qware = qware + qin * 0.35_dp
    end do
    qwall = 2.6_dp * (15.0_dp + 4.0_dp * 0.8_dp * SIGMA * tk_c**3) * (tchamber - tw(1))
    tchamber = tchamber + DT * (power_frac * 11500.0_dp - qwall - qware) / 3.2e4_dp
  end subroutine step_ware_and_chamber

  subroutine accumulate_heatwork()
    ! Arrhenius-weighted time-temperature integral (a crude pyrometric cone equivalent),
    ! volume-averaged through each shelf/pot wall, normalised to an hour at 1222 C.
    real(dp), parameter :: ea_over_r = 42000.0_dp
    integer :: p, j
    real(dp) :: s, sp_, w, ref
    ref = exp(-ea_over_r / (1222.0_dp + 273.15_dp)) * 3600.0_dp
    s = 0.0_dp
    do p = 1, NPOT
      sp_ = 0.0_dp
      do j = 1, NWARE
        w = merge(0.5_dp, 1.0_dp, j == 1 .or. j == NWARE)
        sp_ = sp_ + w * exp(-ea_over_r / (tware(j, p) + 273.15_dp))
      end do
      sp_ = sp_ / real(NWARE - 1, dp)
      heatwork_pot(p) = heatwork_pot(p) + DT * sp_ / ref
      s = s + sp_
    end do
    heatwork = heatwork + DT * s / (real(NPOT, dp) * ref)
  end subroutine accumulate_heatwork

  subroutine write_log_line(u, istep)
    integer, intent(in) :: u, istep
    integer :: ios
    write(u, '(i7,f10.1,i3,4f10.2,f8.4,es13.5)', iostat=ios) istep, istep * DT / 60.0_dp, seg_now, tset, &
         tchamber, tw(1), tw(NW), power_frac, heatwork
    call check_io(ios, 'write firing log')
  end subroutine write_log_line

  subroutine write_profiles(u, istep)
    ! One block per output step: wall table then ware tables.
    integer, intent(in) :: u, istep
    integer :: i, j, ios
    real(dp) :: q
    q = 0.0_dp
    write(u, '(a,i7,a,f12.1,a,f9.2)', iostat=ios) '# step ', istep, ' t_s ', istep * DT, ' chamber ', tchamber
    call check_io(ios, 'write profile header')
    do i = 1, NW
      if (i < NW) then
        q = -(k0(i) + kslope(i) * 0.5_dp * (tw(i) + tw(i + 1))) * (tw(i + 1) - tw(i)) / dx
      end if
      write(u, '(a,i5,f10.5,f10.3,es13.5)', iostat=ios) 'W', i, x(i), tw(i), q
      call check_io(ios, 'write wall profile')
    end do
    do j = 1, NWARE
      write(u, '(a,i5,12f9.2)', iostat=ios) 'P', j, tware(j, :)
      call check_io(ios, 'write ware profile')
    end do
  end subroutine write_profiles

  subroutine reread_envelope(nblocks, tmax, tmaxstep, qshell_mean)
    ! Parse the profile file back and build the peak-temperature envelope.
    integer, intent(out) :: nblocks
    real(dp), intent(out) :: tmax(NW), qshell_mean
    integer, intent(out) :: tmaxstep(NW)
    character(len=256) :: line
    integer :: u, ios, i, istep, nq
    real(dp) :: xx, tt, qq, tsec
    tmax = -1.0e30_dp; tmaxstep = 0; nblocks = 0; qshell_mean = 0.0_dp; nq = 0
    istep = 0
    open(newunit=u, file=trim(outdir)//'/wall_profiles.txt', status='old', action='read', iostat=ios)
    call check_io(ios, 'open wall_profiles.txt for reading')
    do
      read(u, '(a)', iostat=ios) line
      if (ios < 0) exit
      call check_io(ios, 'read profile line')
      if (line(1:1) == '#') then
        read(line(8:14), *, iostat=ios) istep
        call check_io(ios, 'parse step')
        read(line(20:31), *, iostat=ios) tsec
        call check_io(ios, 'parse time')
        nblocks = nblocks + 1
        if (nblocks <= MAXBLK) blk_time(nblocks) = tsec
      else if (line(1:1) == 'W') then
        read(line(2:), *, iostat=ios) i, xx, tt, qq
        call check_io(ios, 'parse wall row')
        if (tt > tmax(i)) then
          tmax(i) = tt
          tmaxstep(i) = istep
        end if
        if (i == NW - 1) then
          qshell_mean = qshell_mean + qq
          nq = nq + 1
          if (nblocks >= 1 .and. nblocks <= MAXBLK) blk_q(nblocks) = qq
        end if
        if (nblocks >= 1 .and. nblocks <= MAXBLK) then
          if (i == 1) blk_hot(nblocks) = tt
          if (i == NW) blk_shell(nblocks) = tt
        end if
      end if
    end do
    close(u, iostat=ios)
    call check_io(ios, 'close wall_profiles.txt')
    if (nq > 0) qshell_mean = qshell_mean / nq
  end subroutine reread_envelope

  subroutine write_summary(nblocks, tmax, tmaxstep, qshell_mean)
    integer, intent(in) :: nblocks, tmaxstep(NW)
    real(dp), intent(in) :: tmax(NW), qshell_mean
    integer :: u, ios, i
    real(dp) :: lag
    open(newunit=u, file=trim(outdir)//'/envelope_summary.txt', status='replace', action='write', iostat=ios)
    call check_io(ios, 'open envelope_summary.txt')
    write(u, '(a,i0)', iostat=ios) '# profile blocks read: ', nblocks
    call check_io(ios, 'write summary')
    write(u, '(a,es12.4)', iostat=ios) '# mean shell heat flux W/m2: ', qshell_mean
    call check_io(ios, 'write report line')
    write(u, '(a,es12.4)', iostat=ios) '# heat work integral: ', heatwork
    call check_io(ios, 'write report line')
    write(u, '(a,12f7.3)', iostat=ios) '# heat work per pot (h at 1222 C): ', heatwork_pot
    call check_io(ios, 'write report line')
    write(u, '(a)', iostat=ios) '#  node     x_m   Tmax_C  t_peak_h  lag_h'
    call check_io(ios, 'write report line')
    do i = 1, NW
      lag = (tmaxstep(i) - tmaxstep(1)) * DT / 3600.0_dp
      write(u, '(i7,f9.4,f9.2,2f9.3)', iostat=ios) i, x(i), tmax(i), tmaxstep(i) * DT / 3600.0_dp, lag
      call check_io(ios, 'write summary row')
    end do
    write(u, '(a)', iostat=ios) '#  block    t_h   hotface_C   shell_C   q_shell_W_m2'
    call check_io(ios, 'write report line')
    do i = 1, min(nblocks, MAXBLK)
      write(u, '(i7,f9.3,2f11.3,es14.5)', iostat=ios) i, blk_time(i) / 3600.0_dp, blk_hot(i), blk_shell(i), blk_q(i)
      call check_io(ios, 'write block row')
    end do
    close(u, iostat=ios)
    call check_io(ios, 'close envelope_summary.txt')
  end subroutine write_summary
end module kiln_mod

program kiln_firing_wall_profiles
  use kiln_mod
  implicit none
  integer :: ulog, uprof, ios, istep, nblocks, tmaxstep(NW)
  real(dp) :: tmax(NW), qshell

  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: kiln_firing_wall_profiles OUTDIR'
    error stop 1
  end if
  call get_command_argument(1, outdir)

  call build_schedule()
  call init_wall_and_load()
  open(newunit=ulog, file=trim(outdir)//'/firing_log.txt', status='replace', action='write', iostat=ios)
  call check_io(ios, 'open firing_log.txt')
  open(newunit=uprof, file=trim(outdir)//'/wall_profiles.txt', status='replace', action='write', iostat=ios)
  call check_io(ios, 'open wall_profiles.txt')
  write(ulog, '(a)', iostat=ios) '#  step     t_min seg      tset  tchamber   hotface     shell   power     heatwork'
  call check_io(ios, 'write log header')

  do istep = 1, NSTEP
    call step_ware_and_chamber()
    call step_wall()
    call accumulate_heatwork()
    call write_log_line(ulog, istep)
    if (mod(istep, NOUT) == 0) call write_profiles(uprof, istep)
  end do
  close(uprof, iostat=ios)
  call check_io(ios, 'close wall_profiles.txt')
  close(ulog, iostat=ios)
  call check_io(ios, 'close firing_log.txt')

  call reread_envelope(nblocks, tmax, tmaxstep, qshell)
  call write_summary(nblocks, tmax, tmaxstep, qshell)
  write(*, '(a,i0,a,f8.2,a,f8.2,a,es11.4)') 'kiln: ', nblocks, ' profiles, peak hot face ', maxval(tmax), &
       ' C, peak shell ', tmax(NW), ' C, heatwork ', heatwork
end program kiln_firing_wall_profiles
