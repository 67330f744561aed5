! packed_bed_reactor_profiles.f90
!
! Transient pseudo-homogeneous axial-dispersion model of a cooled, fixed-bed
! tubular reactor carrying an exothermic first-order reaction A -> B.
! For a sweep of inlet temperatures the start-up transient is integrated with
! an implicit upwind/central finite-volume scheme (Danckwerts boundaries).
! Every NPROF steps an axial profile table (z, C, T, rate, conversion) is
! written as formatted text, every step one line of outlet/hot-spot history.
! Afterwards the history and profile files are read back to find hot-spot
! migration speeds and the parametric sensitivity of the peak temperature.
!
! usage: packed_bed_reactor_profiles OUTDIR

module pbr_model
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nz = 400          ! axial nodes
  integer, parameter :: nsteps = 3000     ! time steps per case
  integer, parameter :: nprof = 30        ! profile table every nprof steps
  integer, parameter :: ncase = 6         ! inlet temperature sweep
  real(dp), parameter :: bed_len = 2.0_dp     ! m
  real(dp), parameter :: u_sup = 0.5_dp       ! interstitial velocity, m/s
  real(dp), parameter :: d_ax = 2.0e-3_dp     ! axial mass dispersion, m2/s
  real(dp), parameter :: d_th = 3.0e-3_dp     ! axial thermal dispersion, m2/s
  real(dp), parameter :: dt = 2.0e-3_dp       ! s
  real(dp), parameter :: k0 = 2.0e7_dp        ! 1/s
  real(dp), parameter :: ea_r = 1.0e4_dp      ! activation temperature, K
  real(dp), parameter :: dt_ad = 110.0_dp     ! adiabatic temperature rise, K
  real(dp), parameter :: u_wall = 2.0_dp      ! wall cooling coefficient, 1/s
  real(dp), parameter :: c_in = 1.0_dp        ! normalised feed concentration
  real(dp), parameter :: theta_heat = 1.6_dp  ! solid/fluid heat capacity ratio

  character(len=512) :: outdir = '.'

  ! per-case results collected for the sensitivity table
  real(dp) :: res_tin(ncase), res_tmax(ncase), res_zhot(ncase)
  real(dp) :: res_xout(ncase), res_tss(ncase), res_vhot(ncase)

contains

  subroutine fail(msg, ios)
    character(len=*), intent(in) :: msg
    integer, intent(in) :: ios
    write(*,'(a,a,a,i0)') 'packed_bed_reactor_profiles: ', trim(msg), ' iostat=', ios
    stop 1
  end subroutine fail

  function case_file(prefix, icase) result(fname)
    character(len=*), intent(in) :: prefix
    integer, intent(in) :: icase
    character(len=600) :: fname
    write(fname,'(a,"/",a,"_",i2.2,".dat")') trim(outdir), prefix, icase
  end function case_file

  subroutine init_grid(z, dz)
    real(dp), intent(out) :: z(nz), dz
    integer :: i
    dz = bed_len / real(nz - 1, dp)
    do i = 1, nz
      z(i) = real(i - 1, dp) * dz
    end do
  end subroutine init_grid

  subroutine initial_state(c, t, tin)
    real(dp), intent(out) :: c(nz), t(nz)
    real(dp), intent(in) :: tin
    ! bed filled with inert gas at coolant temperature, feed switched on at t=0
    c = 0.0_dp
    t = tin
  end subroutine initial_state

  ! Solve a tridiagonal system in place (Thomas algorithm); x returns solution
  subroutine thomas(a, b, c, d, x, n)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n), b(n), c(n), d(n)
    real(dp), intent(out) :: x(n)
    real(dp) :: cp(n), dpv(n), m
    integer :: i
    cp(1) = c(1) / b(1)
    dpv(1) = d(1) / b(1)
    do i = 2, n
      m = b(i) - a(i) * cp(i-1)
      cp(i) = c(i) / m
      dpv(i) = (d(i) - a(i) * dpv(i-1)) / m
    end do
    x(n) = dpv(n)
    do i = n - 1, 1, -1
      x(i) = dpv(i) - cp(i) * x(i+1)
    end do
  end subroutine thomas

  ! One implicit step: concentration with linearised reaction sink, then energy
  ! with the reaction heat from the new concentration and implicit wall cooling.
  subroutine advance_step(c, t, rate, dz, tin, tw)
    real(dp), intent(inout) :: c(nz), t(nz)
    real(dp), intent(out) :: rate(nz)
    real(dp), intent(in) :: dz, tin, tw
    real(dp) :: a(nz), b(nz), cc(nz), d(nz), kr(nz), cnew(nz), tnew(nz)
    real(dp) :: pe, pd, ph, alpha
    integer :: i

    do i = 1, nz
      kr(i) = k0 * exp(-ea_r / t(i))
    end do
    pd = d_ax * dt / dz**2
    pe = u_sup * dt / dz
    ! mass balance
    a(1) = 0.0_dp
    b(1) = d_ax / dz + u_sup
    cc(1) = -d_ax / dz
    d(1) = u_sup * c_in
    do i = 2, nz - 1
      a(i) = -pd - pe
      b(i) = 1.0_dp + 2.0_dp * pd + pe + dt * kr(i)
      cc(i) = -pd
      d(i) = c(i)
    end do
    a(nz) = -1.0_dp
    b(nz) = 1.0_dp
    cc(nz) = 0.0_dp
    d(nz) = 0.0_dp
    call thomas(a, b, cc, d, cnew, nz)

    ! energy balance (solid+fluid lumped, slower by theta_heat)
    alpha = 1.0_dp / theta_heat
    ph = d_th * dt / dz**2
    a(1) = 0.0_dp
    b(1) = d_th / dz + u_sup * alpha
    cc(1) = -d_th / dz
    d(1) = u_sup * alpha * tin
    do i = 2, nz - 1
      rate(i) = kr(i) * cnew(i)
      a(i) = -ph - pe * alpha
      b(i) = 1.0_dp + 2.0_dp * ph + pe * alpha + dt * u_wall
      cc(i) = -ph
      d(i) = t(i) + dt * (alpha * dt_ad * rate(i) + u_wall * tw)
    end do
    rate(1) = kr(1) * cnew(1)
    rate(nz) = kr(nz) * cnew(nz)
    a(nz) = -1.0_dp
    b(nz) = 1.0_dp
    cc(nz) = 0.0_dp
    d(nz) = 0.0_dp
    call thomas(a, b, cc, d, tnew, nz)

    c = max(cnew, 0.0_dp)
    t = tnew
  end subroutine advance_step

  subroutine write_profile_table(u, step, z, c, t, rate)
    integer, intent(in) :: u, step
    real(dp), intent(in) :: z(nz), c(nz), t(nz), rate(nz)
    integer :: i, ios
    write(u, '(a,i6,a,f10.4,a)', iostat=ios) '# step ', step, '  time ', step * dt, ' s'
    if (ios /= 0) call fail('profile header write failed', ios)
    write(u, '(a)', iostat=ios) '#      z[m]          C[-]       T[K]      rate[1/s]     X[-]'
    if (ios /= 0) call fail('profile header write failed', ios)
    do i = 1, nz
      write(u, '(f11.5,1x,es14.6,1x,f10.4,1x,es14.6,1x,f8.5)', iostat=ios) &
           z(i), c(i), t(i), rate(i), 1.0_dp - c(i) / c_in
      if (ios /= 0) call fail('profile row write failed', ios)
    end do
    write(u, '(a)', iostat=ios) ''
    if (ios /= 0) call fail('profile separator write failed', ios)
  end subroutine write_profile_table

  subroutine write_history_line(u, step, z, c, t)
    integer, intent(in) :: u, step
    real(dp), intent(in) :: z(nz), c(nz), t(nz)
    integer :: ihot, ios
    ihot = maxloc(t, 1)
    write(u, '(i6,1x,f10.4,1x,es14.6,1x,f10.4,1x,f10.4,1x,f9.5,1x,f10.4)', iostat=ios) &
         step, step * dt, c(nz), t(nz), t(ihot), z(ihot), sum(t) / nz
    if (ios /= 0) call fail('history write failed', ios)
  end subroutine write_history_line

  subroutine run_case(icase, tin, z, dz)
    integer, intent(in) :: icase
    real(dp), intent(in) :: tin, z(nz), dz
    real(dp) :: c(nz), t(nz), rate(nz)
    integer :: up, uh, ios, step

    open(newunit=up, file=trim(case_file('profiles', icase)), status='replace', &
         action='write', form='formatted', iostat=ios)
    if (ios /= 0) call fail('cannot open profile file', ios)
    open(newunit=uh, file=trim(case_file('history', icase)), status='replace', &
         action='write', form='formatted', iostat=ios)
    if (ios /= 0) call fail('cannot open history file', ios)
    write(uh, '(a,f8.2,a)', iostat=ios) '# inlet temperature ', tin, ' K'
    if (ios /= 0) call fail('history header write failed', ios)
    write(uh, '(a)', iostat=ios) '#  step    time[s]      C_out       T_out      T_max     z_hot     T_mean'
    if (ios /= 0) call fail('history header write failed', ios)

    call initial_state(c, t, tin)
    rate = 0.0_dp
    call write_profile_table(up, 0, z, c, t, rate)
    do step = 1, nsteps
      call advance_step(c, t, rate, dz, tin, tin)
      call write_history_line(uh, step, z, c, t)
      if (mod(step, nprof) == 0) call write_profile_table(up, step, z, c, t, rate)
    end do
    close(up, iostat=ios)
    if (ios /= 0) call fail('close profile file failed', ios)
    close(uh, iostat=ios)
    if (ios /= 0) call fail('close history file failed', ios)
    res_tin(icase) = tin
  end subroutine run_case

  ! Re-read the outlet/hot-spot history: peak temperature, its location and
  ! the time after which the outlet temperature stays within 0.05 K.
  subroutine analyse_history(icase)
    integer, intent(in) :: icase
    integer :: u, ios, step, n, i
    real(dp) :: tt, cout, tout, tmax, zhot, tmean
    real(dp), allocatable :: tout_hist(:), time_hist(:)
    character(len=200) :: line

    allocate(tout_hist(nsteps), time_hist(nsteps))
    open(newunit=u, file=trim(case_file('history', icase)), status='old', &
         action='read', form='formatted', iostat=ios)
    if (ios /= 0) call fail('cannot reopen history file', ios)
    n = 0
    res_tmax(icase) = 0.0_dp
    do
      read(u, '(a)', iostat=ios) line
      if (ios < 0) exit
      if (ios /= 0) call fail('history read failed', ios)
      if (line(1:1) == '#') cycle
      read(line, *, iostat=ios) step, tt, cout, tout, tmax, zhot, tmean
      if (ios /= 0) call fail('history parse failed', ios)
      n = n + 1
      tout_hist(n) = tout
      time_hist(n) = tt
      if (tmax > res_tmax(icase)) then
        res_tmax(icase) = tmax
        res_zhot(icase) = zhot
      end if
      res_xout(icase) = 1.0_dp - cout / c_in
    end do
    close(u)
    if (n /= nsteps) call fail('history file has wrong length', n)
    res_tss(icase) = time_hist(n)
    do i = n, 1, -1
      if (abs(tout_hist(i) - tout_hist(n)) > 0.05_dp) then
        res_tss(icase) = time_hist(i)
        exit
      end if
    end do
    deallocate(tout_hist, time_hist)
  end subroutine analyse_history

  ! Re-read all profile tables of a case, locate the hot spot in each by a
  ! parabolic fit through the three hottest nodes, and fit the hot-spot
  ! migration speed over the second half of the transient.
  subroutine reread_profiles(icase, ntab)
    integer, intent(in) :: icase
    integer, intent(out) :: ntab
    integer, parameter :: maxtab = nsteps / nprof + 1
    real(dp) :: zz(nz), tt(nz), cc, rr, xx, tab_time(maxtab), tab_zhot(maxtab)
    real(dp) :: timev, denom, sx, sy, sxx, sxy, zpeak
    integer :: u, ios, i, stepv, ih, k, m
    character(len=200) :: line

    open(newunit=u, file=trim(case_file('profiles', icase)), status='old', &
         action='read', form='formatted', iostat=ios)
    if (ios /= 0) call fail('cannot reopen profile file', ios)
    ntab = 0
    do
      read(u, '(a)', iostat=ios) line
      if (ios < 0) exit
      if (ios /= 0) call fail('profile read failed', ios)
      if (line(1:6) /= '# step') cycle
      read(line(7:), *, iostat=ios) stepv
      if (ios /= 0) call fail('profile header parse failed', ios)
      timev = stepv * dt
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) call fail('profile column header missing', ios)
      do i = 1, nz
        read(u, '(f11.5,1x,es14.6,1x,f10.4,1x,es14.6,1x,f8.5)', iostat=ios) zz(i), cc, tt(i), rr, xx
        if (ios /= 0) call fail('profile row read failed', ios)
      end do
      ntab = ntab + 1
      if (ntab > maxtab) call fail('too many profile tables', ntab)
      ih = maxloc(tt, 1)
      zpeak = zz(ih)
      if (ih > 1 .and. ih < nz) then
        denom = tt(ih-1) - 2.0_dp * tt(ih) + tt(ih+1)
        if (abs(denom) > 1.0e-12_dp) then
          zpeak = zz(ih) + 0.5_dp * (zz(ih+1) - zz(ih)) * (tt(ih-1) - tt(ih+1)) / denom
        end if
      end if
      tab_time(ntab) = timev
      tab_zhot(ntab) = zpeak
    end do
    close(u)
    ! least-squares slope over the second half of the tables
    sx = 0; sy = 0; sxx = 0; sxy = 0; m = 0
    do k = ntab / 2, ntab
      m = m + 1
      sx = sx + tab_time(k); sy = sy + tab_zhot(k)
      sxx = sxx + tab_time(k)**2; sxy = sxy + tab_time(k) * tab_zhot(k)
    end do
    denom = m * sxx - sx * sx
    res_vhot(icase) = 0.0_dp
    if (abs(denom) > 0.0_dp) res_vhot(icase) = (m * sxy - sx * sy) / denom
  end subroutine reread_profiles

  subroutine write_summary()
    integer :: u, ios, i, im, ip
    real(dp) :: sens
    character(len=600) :: fname
    fname = trim(outdir) // '/sensitivity_summary.txt'
    open(newunit=u, file=trim(fname), status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('cannot open summary', ios)
    write(u, '(a)', iostat=ios) ' case  T_in[K]   T_max[K]  z_hot[m]  X_out     t_ss[s]  v_hot[mm/s]  dTmax/dTin'
    if (ios /= 0) call fail('summary write failed', ios)
    do i = 1, ncase
      ! one-sided differences at the ends of the sweep, central inside
      im = max(i - 1, 1)
      ip = min(i + 1, ncase)
      sens = (res_tmax(ip) - res_tmax(im)) / (res_tin(ip) - res_tin(im))
      write(u, '(i5,2x,f8.2,2x,f9.3,2x,f7.4,2x,f7.5,2x,f8.3,2x,f10.4,2x,f10.4)', iostat=ios) &
           i, res_tin(i), res_tmax(i), res_zhot(i), res_xout(i), res_tss(i), &
           1000.0_dp * res_vhot(i), sens
      if (ios /= 0) call fail('summary write failed', ios)
      write(*, '(a,i2,a,f7.2,a,f8.3,a,f6.3,a,f7.4)') ' case ', i, ' T_in=', res_tin(i), &
           ' T_max=', res_tmax(i), ' z_hot=', res_zhot(i), ' X_out=', res_xout(i)
    end do
    close(u, iostat=ios)
    if (ios /= 0) call fail('summary close failed', ios)
  end subroutine write_summary

end module pbr_model

program packed_bed_reactor_profiles
  use pbr_model
  implicit none
  real(dp) :: z(nz), dz
  integer :: icase, ntab, nargs

  nargs = command_argument_count()
  if (nargs /= 1) then
    write(*,'(a)') 'usage: packed_bed_reactor_profiles OUTDIR'
    stop 2
  end if
  call get_command_argument(1, outdir)

  call init_grid(z, dz)
  do icase = 1, ncase
    call run_case(icase, 560.0_dp + 12.0_dp * (icase - 1), z, dz)
  end do
  do icase = 1, ncase
    call analyse_history(icase)
    call reread_profiles(icase, ntab)
  end do
  call write_summary()
  write(*,'(a,i0,a,i0,a)') 'packed bed sweep done: ', ncase, ' cases, ', ntab, ' profile tables each'
end program packed_bed_reactor_profiles
