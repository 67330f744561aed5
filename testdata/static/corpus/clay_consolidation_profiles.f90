! clay_consolidation_profiles.f90
!
! One-dimensional nonlinear consolidation of a layered soft-clay deposit under
! a staged embankment.  Each soil node carries its own compression index,
! initial void ratio and permeability; permeability and compressibility are
! updated from the current void ratio every step (Gibson-style nonlinearity
! in small-strain form).  The diffusion equation for excess pore pressure is
! integrated with Crank-Nicolson in flux form with harmonic-mean face
! permeabilities.
!
! Output (all under the directory given as the only argument):
!   cpt_sounding.txt      synthetic cone-penetration log used to assign properties
!   stratigraphy.txt      layer table
!   profiles.txt          formatted depth profiles every NOUT steps
!   settlement.txt        surface settlement history (every step)
!   consolidation.txt     report: degree of consolidation per profile, Asaoka fit
!
program clay_consolidation_profiles
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nz = 2001          ! nodes through the clay
  integer, parameter :: nlayer = 12        ! sub-layers in the deposit
  integer, parameter :: nsteps = 6000      ! time steps
  integer, parameter :: nout = 75          ! steps between profiles
  integer, parameter :: nprof = nsteps / nout
  integer, parameter :: ncpt = 40000       ! cone readings (0.5 mm spacing)
  real(dp), parameter :: thick = 20.0_dp   ! m
  real(dp), parameter :: gw = 9.81_dp      ! kN/m3
  real(dp), parameter :: years = 6.0_dp
  real(dp), parameter :: ln10 = 2.302585092994046_dp

  character(len=512) :: outdir
  integer :: nargs, istep, iprof, ios
  real(dp) :: dz, dt, t, q, qold
  real(dp), allocatable :: z(:), u(:), sig0(:), e0(:), e(:), cc(:), ck(:), k0(:)
  real(dp), allocatable :: kk(:), mv(:), sett(:), tim(:), uavg_run(:)
  real(dp) :: lay_cc(nlayer), lay_e0(nlayer), lay_k0(nlayer), lay_ck(nlayer), lay_top(nlayer+1)
  real(dp) :: uavg(nprof), tprof(nprof)
  integer :: uprof
  integer(kind=8) :: seed

  nargs = command_argument_count()
  if (nargs /= 1) then
     write(*,'(A)') 'usage: clay_consolidation_profiles OUTDIR'
     stop 2
  end if
  call get_command_argument(1, outdir)

  allocate(z(nz), u(nz), sig0(nz), e0(nz), e(nz), cc(nz), ck(nz), k0(nz))
  allocate(kk(nz), mv(nz), sett(0:nsteps), tim(0:nsteps), uavg_run(0:nsteps))

  seed = 20240611_8
  dz = thick / real(nz - 1, dp)
  dt = years * 365.25_dp * 86400.0_dp / real(nsteps, dp)

  call write_cpt_sounding(trim(outdir), seed, lay_top, lay_cc, lay_e0, lay_k0, lay_ck)
  call assign_node_properties(trim(outdir), lay_top, lay_cc, lay_e0, lay_k0, lay_ck, &
       z, sig0, e0, cc, ck, k0, dz)

  u = 0.0_dp
  e = e0
  q = 0.0_dp
  t = 0.0_dp
  sett(0) = 0.0_dp
  tim(0) = 0.0_dp
  uavg_run(0) = 0.0_dp

  open(newunit=uprof, file=trim(outdir)//'/profiles.txt', status='replace', &
       action='write', form='formatted', iostat=ios)
  if (ios /= 0) call fail('cannot create profiles.txt')
  write(uprof, '(A)', iostat=ios) '# clay consolidation profiles: node depth_m u_kPa sigeff_kPa void_ratio k_m_s'
  if (ios /= 0) call fail('write profiles header')

  iprof = 0
  do istep = 1, nsteps
     t = t + dt
     qold = q
     q = embankment_load(t)
     call update_coefficients(nz, u, sig0, e0, cc, ck, k0, q, e, kk, mv)
     call crank_nicolson_step(nz, dz, dt, kk, mv, q - qold, u)
     sett(istep) = surface_settlement(nz, dz, e0, e)
     tim(istep) = t
     uavg_run(istep) = sum(u) / real(nz, dp)
     if (mod(istep, nout) == 0) then
        iprof = iprof + 1
        call write_profile(uprof, istep, t, q, nz, z, u, sig0, e, kk)
     end if
  end do
  close(uprof, iostat=ios)
  if (ios /= 0) call fail('close profiles.txt')

  call write_settlement_history(trim(outdir), nsteps, tim, sett, uavg_run)
  call reread_profiles(trim(outdir), nprof, nz, tprof, uavg)
  call asaoka_report(trim(outdir), nsteps, tim, sett, nprof, tprof, uavg)

  write(*,'(A,I0,A,I0,A)') 'clay_consolidation_profiles: ', nsteps, ' steps, ', nprof, ' profiles'
  write(*,'(A,F10.4,A)') '  final surface settlement = ', sett(nsteps), ' m'
  write(*,'(A,F10.3,A)') '  final mean excess pore pressure = ', uavg(nprof), ' kPa'
  deallocate(z, u, sig0, e0, e, cc, ck, k0, kk, mv, sett, tim, uavg_run)

contains

  subroutine fail(msg)
    use, intrinsic :: iso_fortran_env, only: error_unit
    character(len=*), intent(in) :: msg
    write(error_unit,'(A,A)') 'error: ', msg
    error stop 1
  end subroutine fail

  ! Park-Miller style 64-bit LCG returning uniform (0,1)
  function urand(s) result(r)
    integer(kind=8), intent(inout) :: s
    real(dp) :: r
    s = mod(s * 48271_8, 2147483647_8)
    r = real(s, dp) / 2147483647.0_dp
  end function urand

  ! a batch of standard normal deviates (Box-Muller on minimal-standard
  ! uniforms); size(g) must be even
  subroutine fill_gauss(s, g)
    integer(kind=8), intent(inout) :: s
    real(dp), intent(out) :: g(:)
    integer :: i
    real(dp) :: a, b
    do i = 1, size(g) - 1, 2
       s = mod(s * 48271_8, 2147483647_8)
       a = real(s, dp) / 2147483647.0_dp
       s = mod(s * 48271_8, 2147483647_8)
       b = real(s, dp) / 2147483647.0_dp
       g(i) = sqrt(-2.0_dp * log(a)) * cos(6.283185307179586_dp * b)
       g(i+1) = sqrt(-2.0_dp * log(a)) * sin(6.283185307179586_dp * b)
    end do
  end subroutine fill_gauss

  ! Staged construction: three lifts, each ramped over 30 days, then hold.
  pure function embankment_load(tt) result(qq)
    real(dp), intent(in) :: tt
    real(dp) :: qq, day
    real(dp), parameter :: lift(3) = [30.0_dp, 25.0_dp, 20.0_dp]   ! kPa
    real(dp), parameter :: start(3) = [0.0_dp, 180.0_dp, 420.0_dp]  ! days
    integer :: j
    day = tt / 86400.0_dp
    qq = 0.0_dp
    do j = 1, 3
       if (day > start(j)) qq = qq + lift(j) * min(1.0_dp, (day - start(j)) / 30.0_dp)
    end do
  end function embankment_load

  ! Generate a synthetic CPT sounding: piecewise layers with noisy tip
  ! resistance; derive layer properties from layer-mean qc.
  subroutine write_cpt_sounding(dir, s, top, lcc, le0, lk0, lck)
    character(len=*), intent(in) :: dir
    integer(kind=8), intent(inout) :: s
    real(dp), intent(out) :: top(nlayer+1), lcc(nlayer), le0(nlayer), lk0(nlayer), lck(nlayer)
    real(dp) :: qc_base(nlayer), qsum(nlayer), depth, qc, fs, u2, rf
    integer :: nsum(nlayer), i, j, un, ios2
    real(dp) :: w(nlayer), wsum
    real(dp), allocatable :: noise(:)

    wsum = 0.0_dp
    do j = 1, nlayer
       w(j) = 0.5_dp + urand(s)
       wsum = wsum + w(j)
    end do
    top(1) = 0.0_dp
    do j = 1, nlayer
       top(j+1) = top(j) + thick * w(j) / wsum
       qc_base(j) = 180.0_dp + 120.0_dp * urand(s) + 9.0_dp * top(j)
    end do
    top(nlayer+1) = thick

    qsum = 0.0_dp
    nsum = 0
    allocate(noise(3 * ncpt))
    call fill_gauss(s, noise)
    open(newunit=un, file=dir//'/cpt_sounding.txt', status='replace', action='write', iostat=ios2)
    if (ios2 /= 0) call fail('cannot create cpt_sounding.txt')
    write(un, '(A)', iostat=ios2) '# depth_m  qc_kPa  fs_kPa  u2_kPa  Rf_pct'
    if (ios2 /= 0) call fail('write cpt header')
    j = 1
    do i = 1, ncpt
       depth = thick * real(i - 1, dp) / real(ncpt - 1, dp)
       do while (j < nlayer .and. depth > top(j+1))
          j = j + 1
       end do
       qc = qc_base(j) * (1.0_dp + 0.08_dp * noise(3*i-2))
       fs = 0.035_dp * qc * (1.0_dp + 0.1_dp * noise(3*i-1))
       u2 = gw * depth + 0.6_dp * qc * (1.0_dp + 0.05_dp * noise(3*i))
       rf = 100.0_dp * fs / max(qc, 1.0_dp)
       qsum(j) = qsum(j) + qc
       nsum(j) = nsum(j) + 1
       write(un, '(F9.4,1X,F10.2,1X,F9.3,1X,F10.2,1X,F7.3)', iostat=ios2) depth, qc, fs, u2, rf
       if (ios2 /= 0) call fail('write cpt record')
    end do
    close(un, iostat=ios2)
    if (ios2 /= 0) call fail('close cpt_sounding.txt')
    deallocate(noise)

    ! empirical correlations (soft clay): lower qc -> higher compressibility
    do j = 1, nlayer
       qc = qsum(j) / real(max(nsum(j), 1), dp)
       le0(j) = 2.6_dp - 0.0035_dp * qc
       lcc(j) = 0.9_dp * (le0(j) - 0.35_dp)
       lk0(j) = 4.0e-8_dp * exp(-(qc - 200.0_dp) / 150.0_dp)
       lck(j) = 0.5_dp * le0(j)
    end do
  end subroutine write_cpt_sounding

  subroutine assign_node_properties(dir, top, lcc, le0, lk0, lck, zz, s0, ee0, ccn, ckn, k0n, h)
    character(len=*), intent(in) :: dir
    real(dp), intent(in) :: top(nlayer+1), lcc(nlayer), le0(nlayer), lk0(nlayer), lck(nlayer), h
    real(dp), intent(out) :: zz(nz), s0(nz), ee0(nz), ccn(nz), ckn(nz), k0n(nz)
    integer :: i, j, un, ios2
    real(dp) :: gsat

    j = 1
    s0(1) = 5.0_dp           ! crust: small effective stress at the top
    do i = 1, nz
       zz(i) = h * real(i - 1, dp)
       do while (j < nlayer .and. zz(i) > top(j+1))
          j = j + 1
       end do
       ee0(i) = le0(j)
       ccn(i) = lcc(j)
       ckn(i) = lck(j)
       k0n(i) = lk0(j)
    end do
    do i = 2, nz
       gsat = gw * (2.7_dp + ee0(i)) / (1.0_dp + ee0(i))
       s0(i) = s0(i-1) + (gsat - gw) * h
    end do

    open(newunit=un, file=dir//'/stratigraphy.txt', status='replace', action='write', iostat=ios2)
    if (ios2 /= 0) call fail('cannot create stratigraphy.txt')
    write(un, '(A)', iostat=ios2) '# layer top_m bottom_m e0 Cc Ck k0_m_s'
    do j = 1, nlayer
       write(un, '(I3,2F9.3,2F8.4,F8.4,ES12.4)', iostat=ios2) j, top(j), top(j+1), le0(j), lcc(j), lck(j), lk0(j)
       if (ios2 /= 0) call fail('write stratigraphy')
    end do
    close(un, iostat=ios2)
    if (ios2 /= 0) call fail('close stratigraphy.txt')
  end subroutine assign_node_properties

  ! void ratio, permeability and coefficient of volume compressibility
  subroutine update_coefficients(n, uu, s0, ee0, ccn, ckn, k0n, qq, ee, kn, mvn)
    integer, intent(in) :: n
    real(dp), intent(in) :: uu(n), s0(n), ee0(n), ccn(n), ckn(n), k0n(n), qq
    real(dp), intent(out) :: ee(n), kn(n), mvn(n)
    integer :: i
    real(dp) :: seff
    do i = 1, n
       seff = max(s0(i) + qq - uu(i), 0.5_dp * s0(i))
       ee(i) = ee0(i) - ccn(i) * log10(seff / s0(i))
       kn(i) = k0n(i) * 10.0_dp ** ((ee(i) - ee0(i)) / ckn(i))
       mvn(i) = ccn(i) / (ln10 * (1.0_dp + ee0(i)) * seff)
    end do
  end subroutine update_coefficients

  ! Crank-Nicolson in flux form, drained top and bottom (sand blanket and
  ! sand layer below), instantaneous load increment dq added to u.
  subroutine crank_nicolson_step(n, h, dtt, kn, mvn, dq, uu)
    integer, intent(in) :: n
    real(dp), intent(in) :: h, dtt, kn(n), mvn(n), dq
    real(dp), intent(inout) :: uu(n)
    real(dp) :: a(n), b(n), c(n), r(n), kf(n), m
    integer :: i

    do i = 1, n - 1
       kf(i) = 2.0_dp * kn(i) * kn(i+1) / (kn(i) + kn(i+1)) / gw
    end do
    uu(2:n-1) = uu(2:n-1) + dq
    a(1) = 0.0_dp; b(1) = 1.0_dp; c(1) = 0.0_dp; r(1) = 0.0_dp
    a(n) = 0.0_dp; b(n) = 1.0_dp; c(n) = 0.0_dp; r(n) = 0.0_dp
    do i = 2, n - 1
       m = 0.5_dp * dtt / (mvn(i) * h * h)
       a(i) = -m * kf(i-1)
       c(i) = -m * kf(i)
       b(i) = 1.0_dp + m * (kf(i-1) + kf(i))
       r(i) = uu(i) + m * (kf(i-1) * (uu(i-1) - uu(i)) + kf(i) * (uu(i+1) - uu(i)))
    end do
    ! Thomas algorithm
    do i = 2, n
       m = a(i) / b(i-1)
       b(i) = b(i) - m * c(i-1)
       r(i) = r(i) - m * r(i-1)
    end do
    uu(n) = r(n) / b(n)
    do i = n - 1, 1, -1
       uu(i) = (r(i) - c(i) * uu(i+1)) / b(i)
    end do
  end subroutine crank_nicolson_step

  pure function surface_settlement(n, h, ee0, ee) result(s)
    integer, intent(in) :: n
    real(dp), intent(in) :: h, ee0(n), ee(n)
    real(dp) :: s
    integer :: i
    s = 0.0_dp
    do i = 1, n - 1
       s = s + 0.5_dp * h * ((ee0(i) - ee(i)) / (1.0_dp + ee0(i)) + (ee0(i+1) - ee(i+1)) / (1.0_dp + ee0(i+1)))
    end do
  end function surface_settlement

  subroutine write_profile(un, step, tt, qq, n, zz, uu, s0, ee, kn)
    integer, intent(in) :: un, step, n
    real(dp), intent(in) :: tt, qq, zz(n), uu(n), s0(n), ee(n), kn(n)
    integer :: i, ios2
    write(un, '(A,I7,A,F12.4,A,F8.3)', iostat=ios2) '# step ', step, ' day ', tt / 86400.0_dp, ' load_kPa ', qq
    if (ios2 /= 0) call fail('write profile header')
    do i = 1, n
       write(un, '(I5,1X,F9.4,1X,ES13.5,1X,ES13.5,1X,F8.5,1X,ES12.4)', iostat=ios2) &
            i, zz(i), uu(i), s0(i) + qq - uu(i), ee(i), kn(i)
       if (ios2 /= 0) call fail('write profile record')
    end do
  end subroutine write_profile

  subroutine write_settlement_history(dir, n, tt, ss, ua)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: n
    real(dp), intent(in) :: tt(0:n), ss(0:n), ua(0:n)
    integer :: i, un, ios2
    open(newunit=un, file=dir//'/settlement.txt', status='replace', action='write', iostat=ios2)
    if (ios2 /= 0) call fail('cannot create settlement.txt')
    write(un, '(A)', iostat=ios2) '# step day load_kPa settlement_m mean_u_kPa'
    do i = 0, n
       write(un, '(I7,1X,F11.4,1X,F8.3,1X,F10.6,1X,F10.4)', iostat=ios2) &
            i, tt(i) / 86400.0_dp, embankment_load(tt(i)), ss(i), ua(i)
       if (ios2 /= 0) call fail('write settlement record')
    end do
    close(un, iostat=ios2)
    if (ios2 /= 0) call fail('close settlement.txt')
  end subroutine write_settlement_history

  ! Read the formatted profiles back and compute the average degree of
  ! consolidation of each (1 - mean u / applied load).
  subroutine reread_profiles(dir, np, n, tp, ua)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: np, n
    real(dp), intent(out) :: tp(np), ua(np)
    character(len=200) :: line
    integer :: un, ios2, p, i, node, stp
    real(dp) :: zz, uu, se, ee, kn, day, qq, acc
    character(len=16) :: w1, w3, w5

    open(newunit=un, file=dir//'/profiles.txt', status='old', action='read', iostat=ios2)
    if (ios2 /= 0) call fail('cannot open profiles.txt for reading')
    read(un, '(A)', iostat=ios2) line
    if (ios2 /= 0) call fail('read profiles header')
    do p = 1, np
       read(un, '(A)', iostat=ios2) line
       if (ios2 /= 0) call fail('read profile header line')
       read(line, *, iostat=ios2) w1, w3, stp, w5, day, w1, qq
       if (ios2 /= 0) then
          read(line(2:), *, iostat=ios2) w3, stp, w5, day, w1, qq
          if (ios2 /= 0) call fail('parse profile header')
       end if
       acc = 0.0_dp
       do i = 1, n
          read(un, *, iostat=ios2) node, zz, uu, se, ee, kn
          if (ios2 /= 0) call fail('read profile record')
          if (i == 1 .or. i == n) then
             acc = acc + 0.5_dp * uu
          else
             acc = acc + uu
          end if
       end do
       tp(p) = day
       ua(p) = acc / real(n - 1, dp)
    end do
    close(un, iostat=ios2)
  end subroutine reread_profiles

  ! Asaoka (1978) observational method: fit s_k = b0 + b1 s_{k-1} on a
  ! sliding window of the settlement record after the last lift; estimate
  ! ultimate settlement s_inf = b0/(1-b1).  Many windows -> a spread.
  subroutine asaoka_report(dir, n, tt, ss, np, tp, ua)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: n, np
    real(dp), intent(in) :: tt(0:n), ss(0:n), tp(np), ua(np)
    integer, parameter :: lag = 20, win = 120
    integer :: i0, k, un, ios2, nw, p, j
    real(dp) :: sx, sy, sxx, sxy, b0, b1, sinf, smean, svar, x, y, qload, uc
    real(dp), allocatable :: est(:)

    i0 = 1
    do while (tt(i0) / 86400.0_dp < 460.0_dp .and. i0 < n)
       i0 = i0 + 1
    end do
    allocate(est(n))
    nw = 0
    do k = i0 + lag, n - win * lag, 3
       sx = 0; sy = 0; sxx = 0; sxy = 0
       do j = 0, win - 1
          x = ss(k + j * lag - lag)
          y = ss(k + j * lag)
          sx = sx + x; sy = sy + y; sxx = sxx + x * x; sxy = sxy + x * y
       end do
       b1 = (win * sxy - sx * sy) / (win * sxx - sx * sx)
       b0 = (sy - b1 * sx) / win
       if (abs(1.0_dp - b1) > 1.0e-12_dp) then
          sinf = b0 / (1.0_dp - b1)
          nw = nw + 1
          est(nw) = sinf
       end if
    end do
    smean = 0.0_dp; svar = 0.0_dp
    if (nw > 0) then
       smean = sum(est(1:nw)) / nw
       svar = sum((est(1:nw) - smean) ** 2) / max(nw - 1, 1)
    end if

    open(newunit=un, file=dir//'/consolidation.txt', status='replace', action='write', iostat=ios2)
    if (ios2 /= 0) call fail('cannot create consolidation.txt')
    write(un, '(A)', iostat=ios2) '# profile day load_kPa mean_u_kPa degree_of_consolidation'
    do p = 1, np
       qload = embankment_load(tp(p) * 86400.0_dp)
       uc = 0.0_dp
       if (qload > 0.0_dp) uc = 1.0_dp - ua(p) / qload
       write(un, '(I4,1X,F10.3,1X,F8.3,1X,F10.4,1X,F8.5)', iostat=ios2) p, tp(p), qload, ua(p), uc
       if (ios2 /= 0) call fail('write consolidation record')
    end do
    write(un, '(A,I0)', iostat=ios2) '# Asaoka windows: ', nw
    write(un, '(A,F10.5,A,F10.5)', iostat=ios2) '# ultimate settlement m: ', smean, ' +- ', sqrt(svar)
    write(un, '(A,F10.5)', iostat=ios2) '# observed final settlement m: ', ss(n)
    close(un, iostat=ios2)
    if (ios2 /= 0) call fail('close consolidation.txt')
    write(*,'(A,F10.4,A,I0,A)') '  Asaoka ultimate settlement = ', smean, ' m (', nw, ' windows)'
    deallocate(est)
  end subroutine asaoka_report

end program clay_consolidation_profiles
