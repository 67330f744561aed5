! paper_machine_cd_profile_direct.f90
!
! Cross-direction (CD) basis-weight control on a paper machine.
!
! A traversing scanner measures NBIN-bin CD profiles of basis weight and
! moisture every scan; NACT headbox slice-lip actuators shape the basis
! weight through a Gaussian response matrix with spatial spreading.  The
! sheet suffers a wandering streak, a slow edge curl and random machine-
! direction variation.  Each scan a regularised least-squares controller
! (Cholesky-factored normal equations) moves the actuators.
!
! Storage (unformatted DIRECT access, fixed record lengths):
!   scan_profiles.da   record = scan: header + basis weight + moisture
!   actuators.da       record = scan: actuator setpoints
!   rolls.da           record = customer roll number (written in winder
!                      order, i.e. scattered record numbers)
! Post-processing reads reels of scans back by record number, computes CD
! statistics per bin by walking the scans backwards, slits every reel into
! customer rolls and prints a formatted quality report in customer order.
!
! Usage: paper_machine_cd_profile_direct OUTDIR
module cd_control
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: NBIN = 640, NACT = 160
  integer, parameter :: NSCAN = 3000, SCANS_PER_REEL = 250
  integer, parameter :: NREEL = NSCAN / SCANS_PER_REEL
  integer, parameter :: ROLLS_PER_REEL = 6
  integer, parameter :: NROLL = NREEL * ROLLS_PER_REEL
  real(dp), parameter :: TARGET_BW = 80.0_dp     ! g/m^2
  real(dp), parameter :: LAMBDA = 0.8_dp         ! actuator move penalty
  real(dp), parameter :: GAIN = 0.5_dp
  character(len=512) :: outdir
  integer :: u_prof, u_act, u_roll
  integer(8) :: rng_state = 77123_8
  real(dp) :: stock_trim = 0.0_dp   ! MD basis-weight control via thick-stock valve

  type roll_rec
     integer :: roll, reel, position
     real(dp) :: width_m, mean_bw, two_sigma_bw, mean_moist, max_streak
  end type roll_rec
contains

  subroutine fail(msg, ios)
    character(len=*), intent(in) :: msg
    integer, intent(in) :: ios
    write(*, '(a,a,a,i0)') 'error: ', trim(msg), ' iostat=', ios
    error stop 2
  end subroutine fail

  real(dp) function gauss()
    real(dp) :: u1, u2
    rng_state = ieor(rng_state, ishft(rng_state, 13))
    rng_state = ieor(rng_state, ishft(rng_state, -7))
    rng_state = ieor(rng_state, ishft(rng_state, 17))
    u1 = (real(iand(ishft(rng_state, -11), 2_8**52 - 1), dp) + 0.5_dp) / 2.0_dp**52
    rng_state = ieor(rng_state, ishft(rng_state, 13))
    rng_state = ieor(rng_state, ishft(rng_state, -7))
    rng_state = ieor(rng_state, ishft(rng_state, 17))
    u2 = (real(iand(ishft(rng_state, -11), 2_8**52 - 1), dp) + 0.5_dp) / 2.0_dp**52
    gauss = sqrt(-2.0_dp * log(u1)) * cos(6.283185307179586_dp * u2)
  end function gauss

  ! Response of bin i to actuator j: Gaussian footprint with slight shrinkage
  ! towards the sheet centre (the web narrows in the dryer section).
  subroutine build_response(g)
    real(dp), intent(out) :: g(NBIN, NACT)
    integer :: i, j
    real(dp) :: centre, x, shrink, width
    width = 1.6_dp * real(NBIN, dp) / NACT
    do j = 1, NACT
       centre = (real(j, dp) - 0.5_dp) * NBIN / NACT
       shrink = 0.04_dp * (centre - NBIN / 2.0_dp)
       centre = centre - shrink
       do i = 1, NBIN
          x = (real(i, dp) - 0.5_dp - centre) / width
          g(i, j) = 0.9_dp * exp(-0.5_dp * x * x) - 0.12_dp * exp(-0.5_dp * (x / 2.5_dp)**2)
       end do
    end do
  end subroutine build_response

  ! Normal equations H = G'G + lambda I, Cholesky-factored in place (lower).
  subroutine factor_controller(g, h)
    real(dp), intent(in) :: g(NBIN, NACT)
    real(dp), intent(out) :: h(NACT, NACT)
    integer :: i, j, k
    real(dp) :: s
    h = matmul(transpose(g), g)
    do i = 1, NACT
       h(i, i) = h(i, i) + LAMBDA
    end do
    do j = 1, NACT
       s = h(j, j)
       do k = 1, j - 1
          s = s - h(j, k)**2
       end do
       if (s <= 0.0_dp) call fail('controller matrix not positive definite', j)
       h(j, j) = sqrt(s)
       do i = j + 1, NACT
          s = h(i, j)
          do k = 1, j - 1
             s = s - h(i, k) * h(j, k)
          end do
          h(i, j) = s / h(j, j)
       end do
    end do
  end subroutine factor_controller

  ! Sheet as seen by the scanner: actuator effect + disturbances + noise.
  subroutine measure_scan(scan, g, act, bw, moist)
    integer, intent(in) :: scan
    real(dp), intent(in) :: g(NBIN, NACT), act(NACT)
    real(dp), intent(out) :: bw(NBIN), moist(NBIN)
    real(dp) :: streak_pos, md, x, edge
    integer :: i
    streak_pos = NBIN * (0.35_dp + 0.15_dp * sin(real(scan, dp) / 180.0_dp))
    md = 0.6_dp * sin(real(scan, dp) / 23.0_dp) + 0.3_dp * gauss()
    bw = TARGET_BW + md + stock_trim + matmul(g, act)
    do i = 1, NBIN
       x = real(i, dp) - streak_pos
       edge = real(min(i, NBIN + 1 - i), dp) / NBIN
       bw(i) = bw(i) + 2.5_dp * exp(-x * x / 18.0_dp) &
            - 3.0_dp * exp(-edge * 40.0_dp) * (1.0_dp + 0.002_dp * scan) &
            + 1.2_dp * sin(6.283185307179586_dp * i / 97.0_dp) + 0.35_dp * gauss()
       moist(i) = 7.5_dp + 0.06_dp * (bw(i) - TARGET_BW) + 0.8_dp * exp(-edge * 25.0_dp) + 0.1_dp * gauss()
    end do
  end subroutine measure_scan

  ! Least-squares actuator move: solve (G'G + lambda I) du = -G'(bw - target).
  subroutine control_update(g, h, bw, act)
    real(dp), intent(in) :: g(NBIN, NACT), h(NACT, NACT), bw(NBIN)
    real(dp), intent(inout) :: act(NACT)
    real(dp) :: rhs(NACT), y(NACT), err(NBIN), mean
    integer :: i, k
    mean = sum(bw) / NBIN
    stock_trim = stock_trim + 0.25_dp * (TARGET_BW - mean)   ! integral MD loop
    err = bw - mean
    rhs = -matmul(transpose(g), err)
    do i = 1, NACT
       y(i) = rhs(i)
       do k = 1, i - 1
          y(i) = y(i) - h(i, k) * y(k)
       end do
       y(i) = y(i) / h(i, i)
    end do
    do i = NACT, 1, -1
       do k = i + 1, NACT
          y(i) = y(i) - h(k, i) * y(k)
       end do
       y(i) = y(i) / h(i, i)
    end do
    act = act + GAIN * y
    act = max(-8.0_dp, min(8.0_dp, act))
  end subroutine control_update

  subroutine open_direct_files()
    integer :: ios, rl_prof, rl_act, rl_roll
    integer :: iscan
    real(dp) :: dummy(NBIN), dacts(NACT), t
    type(roll_rec) :: r
    inquire(iolength=rl_prof) iscan, t, dummy, dummy
    inquire(iolength=rl_act) iscan, dacts
    inquire(iolength=rl_roll) r%roll, r%reel, r%position, r%width_m, r%mean_bw, r%two_sigma_bw, &
         r%mean_moist, r%max_streak
    open(newunit=u_prof, file=trim(outdir)//'/scan_profiles.da', access='direct', form='unformatted', &
         recl=rl_prof, status='replace', action='readwrite', iostat=ios)
    if (ios /= 0) call fail('open scan_profiles.da', ios)
    open(newunit=u_act, file=trim(outdir)//'/actuators.da', access='direct', form='unformatted', &
         recl=rl_act, status='replace', action='readwrite', iostat=ios)
    if (ios /= 0) call fail('open actuators.da', ios)
    open(newunit=u_roll, file=trim(outdir)//'/rolls.da', access='direct', form='unformatted', &
         recl=rl_roll, status='replace', action='readwrite', iostat=ios)
    if (ios /= 0) call fail('open rolls.da', ios)
  end subroutine open_direct_files

  subroutine write_scan_record(scan, bw, moist, act)
    integer, intent(in) :: scan
    real(dp), intent(in) :: bw(NBIN), moist(NBIN), act(NACT)
    integer :: ios
    real(dp) :: t
    t = scan * 28.5_dp
    write(u_prof, rec=scan, iostat=ios) scan, t, bw, moist
    if (ios /= 0) call fail('write scan record', ios)
    write(u_act, rec=scan, iostat=ios) scan, act
    if (ios /= 0) call fail('write actuator record', ios)
  end subroutine write_scan_record

  ! Per reel: read its scans by record number, total/MD/CD variance split.
  subroutine reel_statistics(stats)
    real(dp), intent(out) :: stats(4, NREEL)
    real(dp) :: bw(NBIN), moist(NBIN), cdmean(NBIN), t, tot, md, cd, gm, s2
    integer :: reel, scan, iscan, ios, n
    do reel = 1, NREEL
       cdmean = 0.0_dp
       tot = 0.0_dp
       md = 0.0_dp
       gm = 0.0_dp
       n = 0
       do scan = (reel - 1) * SCANS_PER_REEL + 1, reel * SCANS_PER_REEL
          read(u_prof, rec=scan, iostat=ios) iscan, t, bw, moist
          if (ios /= 0) call fail('read scan record', ios)
          if (iscan /= scan) call fail('scan record out of place', scan)
          cdmean = cdmean + bw
          gm = gm + sum(bw)
          tot = tot + sum(bw**2)
          md = md + sum(bw)**2 / NBIN
          n = n + 1
       end do
       cdmean = cdmean / n
       gm = gm / (real(n, dp) * NBIN)
       s2 = tot / (real(n, dp) * NBIN) - gm**2
       cd = sum((cdmean - gm)**2) / NBIN
       stats(1, reel) = gm
       stats(2, reel) = 2.0_dp * sqrt(max(s2, 0.0_dp))
       stats(3, reel) = 2.0_dp * sqrt(max(md / (real(n, dp) * NBIN) - gm**2, 0.0_dp))
       stats(4, reel) = 2.0_dp * sqrt(cd)
    end do
  end subroutine reel_statistics

  ! Per-bin statistics over the whole run, reading scans newest first, and
  ! the average actuator profile of the last reel.
  subroutine cd_bin_summary(binmean, binsd, actmean)
    real(dp), intent(out) :: binmean(NBIN), binsd(NBIN), actmean(NACT)
    real(dp) :: bw(NBIN), moist(NBIN), act(NACT), t, s2(NBIN)
    integer :: scan, iscan, ios
    binmean = 0.0_dp
    s2 = 0.0_dp
    actmean = 0.0_dp
    do scan = NSCAN, 1, -1
       read(u_prof, rec=scan, iostat=ios) iscan, t, bw, moist
       if (ios /= 0) call fail('read scan record', ios)
       binmean = binmean + bw
       s2 = s2 + bw * bw
       if (scan > NSCAN - SCANS_PER_REEL) then
          read(u_act, rec=scan, iostat=ios) iscan, act
          if (ios /= 0) call fail('read actuator record', ios)
          actmean = actmean + act
       end if
    end do
    binmean = binmean / NSCAN
    binsd = sqrt(max(s2 / NSCAN - binmean**2, 0.0_dp))
    actmean = actmean / SCANS_PER_REEL
  end subroutine cd_bin_summary

  ! Winder: each reel slit into ROLLS_PER_REEL customer widths; roll numbers
  ! are assigned by order book, so records land at scattered positions.
  subroutine slit_reels(nwritten)
    integer, intent(out) :: nwritten
    real(dp) :: bw(NBIN), moist(NBIN), t, widths(ROLLS_PER_REEL), acc(NBIN), acc2(NBIN), accm(NBIN)
    integer :: reel, k, scan, iscan, ios, b0, b1, rollno
    type(roll_rec) :: r
    widths = [0.18_dp, 0.14_dp, 0.20_dp, 0.16_dp, 0.17_dp, 0.15_dp]
    nwritten = 0
    do reel = 1, NREEL
       acc = 0.0_dp
       acc2 = 0.0_dp
       accm = 0.0_dp
       do scan = (reel - 1) * SCANS_PER_REEL + 1, reel * SCANS_PER_REEL
          read(u_prof, rec=scan, iostat=ios) iscan, t, bw, moist
          if (ios /= 0) call fail('read scan record', ios)
          acc = acc + bw
          acc2 = acc2 + bw * bw
          accm = accm + moist
       end do
       acc = acc / SCANS_PER_REEL
       acc2 = acc2 / SCANS_PER_REEL
       accm = accm / SCANS_PER_REEL
       b1 = 0
       do k = 1, ROLLS_PER_REEL
          b0 = b1 + 1
          b1 = min(NBIN, b0 + nint(widths(k) * NBIN) - 1)
          if (k == ROLLS_PER_REEL) b1 = NBIN
          ! order-book number: a fixed permutation (37 is coprime to NROLL)
          rollno = mod(((reel - 1) * ROLLS_PER_REEL + k - 1) * 37, NROLL) + 1
          r%roll = rollno
          r%reel = reel
          r%position = k
          r%width_m = 8.6_dp * real(b1 - b0 + 1, dp) / NBIN
          r%mean_bw = sum(acc(b0:b1)) / (b1 - b0 + 1)
          r%two_sigma_bw = 2.0_dp * sqrt(max(sum(acc2(b0:b1)) / (b1 - b0 + 1) - r%mean_bw**2, 0.0_dp))
          r%mean_moist = sum(accm(b0:b1)) / (b1 - b0 + 1)
          r%max_streak = maxval(acc(b0:b1)) - r%mean_bw
          write(u_roll, rec=rollno, iostat=ios) r%roll, r%reel, r%position, r%width_m, r%mean_bw, &
               r%two_sigma_bw, r%mean_moist, r%max_streak
          if (ios /= 0) call fail('write roll record', ios)
          nwritten = nwritten + 1
       end do
    end do
  end subroutine slit_reels

  subroutine write_reports(stats, binmean, binsd, actmean)
    real(dp), intent(in) :: stats(4, NREEL), binmean(NBIN), binsd(NBIN), actmean(NACT)
    integer :: u, ios, reel, k, i
    type(roll_rec) :: r
    character(len=8) :: grade
    integer :: nreject
    open(newunit=u, file=trim(outdir)//'/quality_report.txt', status='replace', action='write', &
         form='formatted', iostat=ios)
    if (ios /= 0) call fail('open quality_report.txt', ios)
    write(u, '(a)') 'REEL   mean_bw  2s_total    2s_MD    2s_CD'
    do reel = 1, NREEL
       write(u, '(i4,4f10.3)') reel, stats(:, reel)
    end do
    write(u, '(/a)') 'CUSTOMER ROLLS (order-book sequence)'
    write(u, '(a)') 'roll reel pos  width_m   mean_bw    2s_bw  moist%  streak  grade'
    nreject = 0
    do k = 1, NROLL
       read(u_roll, rec=k, iostat=ios) r%roll, r%reel, r%position, r%width_m, r%mean_bw, &
            r%two_sigma_bw, r%mean_moist, r%max_streak
       if (ios /= 0) call fail('read roll record', ios)
       if (r%roll /= k) call fail('roll record mismatch', k)
       grade = 'prime'
       if (r%two_sigma_bw > 1.3_dp .or. r%max_streak > 1.0_dp) then
          grade = 'second'
          nreject = nreject + 1
       end if
       write(u, '(3i4,5f9.3,2x,a)', iostat=ios) r%roll, r%reel, r%position, r%width_m, r%mean_bw, &
            r%two_sigma_bw, r%mean_moist, r%max_streak, trim(grade)
       if (ios /= 0) call fail('write quality_report.txt', ios)
    end do
    write(u, '(/a)') 'CD BIN SUMMARY (every 8th bin)'
    do i = 1, NBIN, 8
       write(u, '(i5,2f10.3)') i, binmean(i), binsd(i)
    end do
    write(u, '(/a)') 'MEAN ACTUATOR SETPOINTS, LAST REEL'
    write(u, '(8f9.3)') actmean
    close(u)
    write(*, '(a,i0,a,i0,a,i0)') 'reels ', NREEL, '  rolls ', NROLL, '  second-grade rolls ', nreject
  end subroutine write_reports
end module cd_control

program paper_machine_cd_profile_direct
  use cd_control
  implicit none
  real(dp), allocatable :: g(:, :), h(:, :)
  real(dp) :: act(NACT), bw(NBIN), moist(NBIN)
  real(dp) :: stats(4, NREEL), binmean(NBIN), binsd(NBIN), actmean(NACT)
  real(dp) :: sig_first, sig_last
  integer :: scan, nrolls

  if (command_argument_count() /= 1) then
     write(*, '(a)') 'usage: paper_machine_cd_profile_direct OUTDIR'
     stop 1
  end if
  call get_command_argument(1, outdir)
  allocate(g(NBIN, NACT), h(NACT, NACT))
  call build_response(g)
  call factor_controller(g, h)
  call open_direct_files()
  act = 0.0_dp
  sig_first = 0.0_dp
  sig_last = 0.0_dp
  do scan = 1, NSCAN
     call measure_scan(scan, g, act, bw, moist)
     if (scan == 1) sig_first = 2.0_dp * sqrt(sum((bw - sum(bw) / NBIN)**2) / NBIN)
     if (scan == NSCAN) sig_last = 2.0_dp * sqrt(sum((bw - sum(bw) / NBIN)**2) / NBIN)
     call write_scan_record(scan, bw, moist, act)
     call control_update(g, h, bw, act)
  end do
  call reel_statistics(stats)
  call cd_bin_summary(binmean, binsd, actmean)
  call slit_reels(nrolls)
  call write_reports(stats, binmean, binsd, actmean)
  close(u_prof)
  close(u_act)
  close(u_roll)
  write(*, '(a,f7.3,a,f7.3)') 'CD 2-sigma first scan ', sig_first, '  last scan ', sig_last
end program paper_machine_cd_profile_direct
