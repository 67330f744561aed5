! Power-grid state estimation for a day of SCADA snapshots.
! A meshed transmission network is written as a formatted case file and read
! back.  For each snapshot the "true" operating point is obtained from a
! Newton-Raphson load flow with a daily load curve; SCADA measurements (bus
! voltage magnitudes, P/Q injections, P/Q branch flows at both ends, Gaussian
! noise plus occasional gross errors) are written to one formatted text file
! per snapshot.  The estimator then reads each file with formatted READs, runs
! weighted-least-squares Gauss-Newton estimation with a sparse gain-matrix
! build and Cholesky solves, applies the chi-square test and the largest
! normalised residual test to remove bad data, appends the estimated state to
! an unformatted sequential file and logs a formatted summary.  Finally the
! unformatted estimates are re-read for a bus voltage profile report.
module se_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nb = 56, nbr = 84, nsnap = 240, maxdeg = 12
  integer, parameter :: nx = 2 * nb - 1
  integer, parameter :: maxm = nb + 2 * nb + 4 * nbr
  real(dp), parameter :: vslack = 1.03_dp
  integer :: fbus(nbr), tbus(nbr), ndeg(nb), adj(maxdeg, nb)
  real(dp) :: br_r(nbr), br_x(nbr), br_b(nbr), pload(nb), qload(nb), pgen(nb)
  real(dp) :: gbus(nb, nb), bbus(nb, nb)
  ! measurement set of one snapshot
  integer :: nm, mtype(maxm), mloc(maxm)       ! 1 V, 2 Pinj, 3 Qinj, 4 Pflow, 5 Qflow (loc<0: to-end)
  real(dp) :: mval(maxm), msig(maxm)
  logical :: mact(maxm)
contains

  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    write(0, '(a)') 'state_estimation: '//trim(msg)
    error stop 1
  end subroutine fail

  real(dp) function urand(s)
    integer(8), intent(inout) :: s
    s = mod(s * 48271_8, 2147483647_8)
    urand = real(s, dp) / 2147483647.0_dp
  end function urand

  real(dp) function gauss(s)
    integer(8), intent(inout) :: s
    real(dp) :: u1, u2
    u1 = max(urand(s), 1.0e-12_dp); u2 = urand(s)
    gauss = sqrt(-2.0_dp * log(u1)) * cos(6.283185307179586_dp * u2)
  end function gauss

  subroutine write_case(path)
    character(len=*), intent(in) :: path
    integer :: u, ios, i, k, j
    integer(8) :: s
    real(dp) :: pl, ql, pg
    s = 2718281_8
    open(newunit=u, file=path, status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('cannot create '//path)
    write(u, '(a)') '# synthetic meshed transmission case, per-unit on 100 MVA'
    write(u, '(a,i6,i6)') 'BUSES', nb, nbr
    do i = 1, nb
      pl = 0.05_dp + 0.25_dp * urand(s); ql = 0.3_dp * pl * (0.5_dp + urand(s))
      pg = 0.0_dp
      if (mod(i, 7) == 3) pg = 1.0_dp + 0.6_dp * urand(s)
      write(u, '(i5,3f12.6)', iostat=ios) i, pl, ql, pg
      if (ios /= 0) call fail('write error '//path)
    end do
    write(u, '(a)') 'BRANCHES'
    k = 0
    do i = 1, nb                       ! ring
      k = k + 1
      write(u, '(3i5,3f12.6)') k, i, mod(i, nb) + 1, 0.005_dp + 0.01_dp * urand(s), 0.03_dp + 0.05_dp * urand(s), &
           0.02_dp * urand(s)
    end do
    do while (k < nbr)                 ! chords
      i = 1 + int(urand(s) * nb); j = 1 + mod(i + 3 + int(urand(s) * real(nb, dp) / 3.0_dp), nb)
      if (i == j) cycle
      k = k + 1
      write(u, '(3i5,3f12.6)') k, i, j, 0.008_dp + 0.015_dp * urand(s), 0.04_dp + 0.08_dp * urand(s), 0.03_dp * urand(s)
    end do
    close(u)
  end subroutine write_case

  subroutine read_case(path)
    character(len=*), intent(in) :: path
    integer :: u, ios, i, k, id, n1, n2
    character(len=80) :: tag
    open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('cannot open '//path)
    read(u, '(a)') tag
    read(u, *, iostat=ios) tag, n1, n2
    if (ios /= 0 .or. n1 /= nb .or. n2 /= nbr) call fail('bad case header')
    do i = 1, nb
      read(u, *, iostat=ios) id, pload(i), qload(i), pgen(i)
      if (ios /= 0 .or. id /= i) call fail('bad bus record')
    end do
    read(u, '(a)') tag
    ndeg = 0
    do k = 1, nbr
      read(u, *, iostat=ios) id, fbus(k), tbus(k), br_r(k), br_x(k), br_b(k)
      if (ios /= 0 .or. id /= k) call fail('bad branch record')
      call add_adj(fbus(k), tbus(k)); call add_adj(tbus(k), fbus(k))
    end do
    close(u)
  contains
    subroutine add_adj(a, b)
      integer, intent(in) :: a, b
      integer :: q
      do q = 1, ndeg(a)
        if (adj(q, a) == b) return
      end do
      if (ndeg(a) >= maxdeg) call fail('bus degree too high')
      ndeg(a) = ndeg(a) + 1; adj(ndeg(a), a) = b
    end subroutine add_adj
  end subroutine read_case

  subroutine build_ybus()
    integer :: k, i, j
    real(dp) :: g, b, z2
    gbus = 0; bbus = 0
    do k = 1, nbr
      i = fbus(k); j = tbus(k)
      z2 = br_r(k)**2 + br_x(k)**2
      g = br_r(k) / z2; b = -br_x(k) / z2
      gbus(i, i) = gbus(i, i) + g; gbus(j, j) = gbus(j, j) + g
      bbus(i, i) = bbus(i, i) + b + 0.5_dp * br_b(k); bbus(j, j) = bbus(j, j) + b + 0.5_dp * br_b(k)
      gbus(i, j) = gbus(i, j) - g; gbus(j, i) = gbus(j, i) - g
      bbus(i, j) = bbus(i, j) - b; bbus(j, i) = bbus(j, i) - b
    end do
  end subroutine build_ybus

  ! x = (theta(2:nb), v(1:nb))
  subroutine unpack(x, th, v)
    real(dp), intent(in) :: x(nx)
    real(dp), intent(out) :: th(nb), v(nb)
    th(1) = 0.0_dp; th(2:nb) = x(1:nb-1); v = x(nb:nx)
  end subroutine unpack

  real(dp) function meas_fun(t, loc, th, v)
    integer, intent(in) :: t, loc
    real(dp), intent(in) :: th(nb), v(nb)
    integer :: i, j, q, k
    real(dp) :: s, g, b, z2, tij
    select case (t)
    case (1)
      meas_fun = v(loc)
    case (2, 3)
      i = loc
      if (t == 2) then
        s = v(i) * gbus(i, i)
      else
        s = -v(i) * bbus(i, i)
      end if
      do q = 1, ndeg(i)
        j = adj(q, i); tij = th(i) - th(j)
        if (t == 2) then
          s = s + v(j) * (gbus(i, j) * cos(tij) + bbus(i, j) * sin(tij))
        else
          s = s + v(j) * (gbus(i, j) * sin(tij) - bbus(i, j) * cos(tij))
        end if
      end do
      meas_fun = v(i) * s
    case default
      k = abs(loc)
      if (loc > 0) then
        i = fbus(k); j = tbus(k)
      else
        i = tbus(k); j = fbus(k)
      end if
      z2 = br_r(k)**2 + br_x(k)**2; g = br_r(k) / z2; b = -br_x(k) / z2
      tij = th(i) - th(j)
      if (t == 4) then
        meas_fun = v(i)**2 * g - v(i) * v(j) * (g * cos(tij) + b * sin(tij))
      else
        meas_fun = -v(i)**2 * (b + 0.5_dp * br_b(k)) - v(i) * v(j) * (g * sin(tij) - b * cos(tij))
      end if
    end select
  end function meas_fun

  ! analytic Jacobian row of one measurement: nv state indices iv and values h
  ! (state index of theta_b is b-1 for b>1, of V_b is nb-1+b)
  subroutine meas_jac(t, loc, th, v, nv, iv, h)
    integer, intent(in) :: t, loc
    real(dp), intent(in) :: th(nb), v(nb)
    integer, intent(out) :: nv, iv(2 * maxdeg + 2)
    real(dp), intent(out) :: h(2 * maxdeg + 2)
    integer :: i, j, q, k
    real(dp) :: p, qi, dthi, dvi, g, b, z2, tij, c, sn
    nv = 0
    select case (t)
    case (1)
      call put(loc, 0.0_dp, 1.0_dp)
    case (2, 3)
      i = loc
      p = meas_fun(2, i, th, v); qi = meas_fun(3, i, th, v)
      if (t == 2) then
        dthi = -qi - bbus(i, i) * v(i)**2; dvi = p / v(i) + gbus(i, i) * v(i)
      else
        dthi = p - gbus(i, i) * v(i)**2; dvi = qi / v(i) - bbus(i, i) * v(i)
      end if
      call put(i, dthi, dvi)
      do q = 1, ndeg(i)
        j = adj(q, i); tij = th(i) - th(j); c = cos(tij); sn = sin(tij)
        if (t == 2) then
          call put(j, v(i) * v(j) * (gbus(i, j) * sn - bbus(i, j) * c), v(i) * (gbus(i, j) * c + bbus(i, j) * sn))
        else
          call put(j, -v(i) * v(j) * (gbus(i, j) * c + bbus(i, j) * sn), v(i) * (gbus(i, j) * sn - bbus(i, j) * c))
        end if
      end do
    case default
      k = abs(loc)
      if (loc > 0) then
        i = fbus(k); j = tbus(k)
      else
        i = tbus(k); j = fbus(k)
      end if
      z2 = br_r(k)**2 + br_x(k)**2; g = br_r(k) / z2; b = -br_x(k) / z2
      tij = th(i) - th(j); c = cos(tij); sn = sin(tij)
      if (t == 4) then
        call put(i, v(i) * v(j) * (g * sn - b * c), 2.0_dp * v(i) * g - v(j) * (g * c + b * sn))
        call put(j, -v(i) * v(j) * (g * sn - b * c), -v(i) * (g * c + b * sn))
      else
        call put(i, -v(i) * v(j) * (g * c + b * sn), -2.0_dp * v(i) * (b + 0.5_dp * br_b(k)) - v(j) * (g * sn - b * c))
        call put(j, v(i) * v(j) * (g * c + b * sn), -v(i) * (g * sn - b * c))
      end if
    end select
  contains
    subroutine put(bus, dth, dv)
      integer, intent(in) :: bus
      real(dp), intent(in) :: dth, dv
      if (bus > 1) then
        nv = nv + 1; iv(nv) = bus - 1; h(nv) = dth
      end if
      nv = nv + 1; iv(nv) = nb - 1 + bus; h(nv) = dv
    end subroutine put
  end subroutine meas_jac

  subroutine cholesky_factor(n, a, ok)
    integer, intent(in) :: n
    real(dp), intent(inout) :: a(n, n)
    logical, intent(out) :: ok
    integer :: i, j
    real(dp) :: s
    ok = .true.
    do j = 1, n
      s = a(j, j) - dot_product(a(j, 1:j-1), a(j, 1:j-1))
      if (s <= 0.0_dp) then
        ok = .false.; return
      end if
      a(j, j) = sqrt(s)
      do i = j + 1, n
        a(i, j) = (a(i, j) - dot_product(a(i, 1:j-1), a(j, 1:j-1))) / a(j, j)
      end do
    end do
  end subroutine cholesky_factor

  subroutine cholesky_subst(n, a, b)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n, n)
    real(dp), intent(inout) :: b(n)
    integer :: i, k
    real(dp) :: s
    do i = 1, n
      b(i) = (b(i) - dot_product(a(i, 1:i-1), b(1:i-1))) / a(i, i)
    end do
    do i = n, 1, -1
      s = b(i)
      do k = i + 1, n
        s = s - a(k, i) * b(k)
      end do
      b(i) = s / a(i, i)
    end do
  end subroutine cholesky_subst

  subroutine cholesky_solve(n, a, b, ok)
    integer, intent(in) :: n
    real(dp), intent(inout) :: a(n, n), b(n)
    logical, intent(out) :: ok
    call cholesky_factor(n, a, ok)
    if (ok) call cholesky_subst(n, a, b)
  end subroutine cholesky_solve

  ! Newton-Raphson load flow with analytic Jacobian; slack bus 1, all others PQ.
  subroutine power_flow(scale, th, v, iters)
    real(dp), intent(in) :: scale
    real(dp), intent(out) :: th(nb), v(nb)
    integer, intent(out) :: iters
    integer, parameter :: n = 2 * nb - 2
    real(dp), allocatable :: jac(:, :)
    real(dp) :: mis(n), piv, tmp(n), fac, h(2 * maxdeg + 2)
    integer :: it, k, p, r, bus, t, row, nv, iv(2 * maxdeg + 2), q, col
    allocate(jac(n, n))
    th = 0.0_dp; v = 1.0_dp; v(1) = vslack
    do it = 1, 30
      iters = it
      jac = 0.0_dp
      do t = 2, 3
        do bus = 2, nb
          row = merge(bus - 1, nb - 2 + bus, t == 2)
          if (t == 2) then
            mis(row) = scale * (pgen(bus) - pload(bus)) - meas_fun(2, bus, th, v)
          else
            mis(row) = (-scale * qload(bus)) - meas_fun(3, bus, th, v)
          end if
          call meas_jac(t, bus, th, v, nv, iv, h)
          do q = 1, nv
            if (iv(q) >= nb) then              ! V index: drop slack voltage
              if (iv(q) == nb) cycle
              col = iv(q) - 1
            else
              col = iv(q)
            end if
            jac(row, col) = h(q)
          end do
        end do
      end do
      if (maxval(abs(mis)) < 1.0e-10_dp) exit
      ! Gaussian elimination with partial pivoting
      do k = 1, n
        p = k - 1 + maxloc(abs(jac(k:n, k)), 1)
        if (p /= k) then
          tmp = jac(k, :); jac(k, :) = jac(p, :); jac(p, :) = tmp
          piv = mis(k); mis(k) = mis(p); mis(p) = piv
        end if
        do r = k + 1, n
          if (jac(r, k) == 0.0_dp) cycle
          fac = jac(r, k) / jac(k, k)
          jac(r, k:n) = jac(r, k:n) - fac * jac(k, k:n)
          mis(r) = mis(r) - fac * mis(k)
        end do
      end do
      do k = n, 1, -1
        mis(k) = (mis(k) - dot_product(jac(k, k+1:n), mis(k+1:n))) / jac(k, k)
      end do
      th(2:nb) = th(2:nb) + mis(1:nb-1)
      v(2:nb) = v(2:nb) + mis(nb:n)
    end do
    if (iters >= 30) call fail('load flow did not converge')
  end subroutine power_flow

  subroutine make_measurements(path, th, v, s, nbad)
    character(len=*), intent(in) :: path
    real(dp), intent(in) :: th(nb), v(nb)
    integer(8), intent(inout) :: s
    integer, intent(out) :: nbad
    integer :: u, ios, i, k, t, e, cnt, loc
    real(dp) :: z, sig
    open(newunit=u, file=path, status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('cannot create '//path)
    cnt = nb + 2 * nb + 4 * nbr
    write(u, '(a,i6)') 'MEASUREMENTS', cnt
    nbad = 0
    do t = 1, 5
      if (t <= 3) then
        e = nb
      else
        e = 2 * nbr
      end if
      do i = 1, e
        if (t <= 3) then
          loc = i
        else
          k = (i + 1) / 2; loc = k
          if (mod(i, 2) == 0) loc = -k
        end if
        z = meas_fun(t, loc, th, v)
        sig = merge(0.004_dp, 0.01_dp + 0.02_dp * abs(z), t == 1)
        z = z + sig * gauss(s)
        if (urand(s) < 0.0015_dp) then
          z = z + sign(15.0_dp * sig, urand(s) - 0.5_dp)        ! gross error
          nbad = nbad + 1
        end if
        write(u, '(i2,i6,es20.11,es12.4)', iostat=ios) t, loc, z, sig
        if (ios /= 0) call fail('write error '//path)
      end do
    end do
    close(u)
  end subroutine make_measurements

  subroutine read_measurements(path)
    character(len=*), intent(in) :: path
    integer :: u, ios, i
    character(len=16) :: tag
    open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('cannot open '//path)
    read(u, '(a12,i6)', iostat=ios) tag, nm
    if (ios /= 0 .or. nm > maxm) call fail('bad measurement header in '//path)
    do i = 1, nm
      read(u, '(i2,i6,es20.11,es12.4)', iostat=ios) mtype(i), mloc(i), mval(i), msig(i)
      if (ios /= 0) call fail('bad measurement record in '//path)
    end do
    close(u)
    mact(1:nm) = .true.
  end subroutine read_measurements

  ! WLS Gauss-Newton with the gain matrix assembled from sparse Jacobian rows
  subroutine wls_estimate(x, jobj, iters, ok)
    real(dp), intent(inout) :: x(nx)
    real(dp), intent(out) :: jobj
    integer, intent(out) :: iters
    logical, intent(out) :: ok
    real(dp), allocatable :: gain(:, :)
    real(dp) :: rhs(nx), th(nb), v(nb), h(2 * maxdeg + 2), r, w
    integer :: it, i, a, b, nv, iv(2 * maxdeg + 2)
    allocate(gain(nx, nx))
    ok = .false.
    do it = 1, 20
      iters = it
      call unpack(x, th, v)
      gain = 0; rhs = 0; jobj = 0
      do i = 1, nm
        if (.not. mact(i)) cycle
        r = mval(i) - meas_fun(mtype(i), mloc(i), th, v)
        w = 1.0_dp / msig(i)**2
        jobj = jobj + w * r * r
        call meas_jac(mtype(i), mloc(i), th, v, nv, iv, h)
        do a = 1, nv
          rhs(iv(a)) = rhs(iv(a)) + h(a) * w * r
          do b = 1, nv
            gain(iv(a), iv(b)) = gain(iv(a), iv(b)) + h(a) * w * h(b)
          end do
        end do
      end do
      call cholesky_solve(nx, gain, rhs, ok)
      if (.not. ok) return
      x = x + rhs
      if (maxval(abs(rhs)) < 1.0e-8_dp) exit
    end do
  end subroutine wls_estimate

  ! Largest normalised residual, Omega_ii = sigma_i^2 - h_i G^-1 h_i^T
  integer function worst_residual(x, rnmax)
    real(dp), intent(in) :: x(nx)
    real(dp), intent(out) :: rnmax
    real(dp), allocatable :: gain(:, :), ginv(:, :), hs(:, :)
    integer, allocatable :: ivs(:, :), nvs(:)
    real(dp) :: th(nb), v(nb), h(2 * maxdeg + 2), w, r, om, rn, e(nx)
    integer :: i, a, b, nv, iv(2 * maxdeg + 2), c
    logical :: ok
    allocate(gain(nx, nx), ginv(nx, nx), hs(2 * maxdeg + 2, nm), ivs(2 * maxdeg + 2, nm), nvs(nm))
    call unpack(x, th, v)
    gain = 0
    do i = 1, nm
      if (.not. mact(i)) cycle
      w = 1.0_dp / msig(i)**2
      call meas_jac(mtype(i), mloc(i), th, v, nv, iv, h)
      nvs(i) = nv; ivs(:, i) = iv; hs(:, i) = h
      do a = 1, nv
        do b = 1, nv
          gain(iv(a), iv(b)) = gain(iv(a), iv(b)) + h(a) * w * h(b)
        end do
      end do
    end do
    call cholesky_factor(nx, gain, ok)
    if (.not. ok) call fail('singular gain matrix')
    do c = 1, nx                         ! covariance G^-1, column by column
      e = 0; e(c) = 1.0_dp
      call cholesky_subst(nx, gain, e)
      ginv(:, c) = e
    end do
    worst_residual = 0; rnmax = 0
    do i = 1, nm
      if (.not. mact(i)) cycle
      om = msig(i)**2
      do a = 1, nvs(i)
        do b = 1, nvs(i)
          om = om - hs(a, i) * ginv(ivs(a, i), ivs(b, i)) * hs(b, i)
        end do
      end do
      r = mval(i) - meas_fun(mtype(i), mloc(i), th, v)
      rn = abs(r) / sqrt(max(om, 1.0e-14_dp))
      if (rn > rnmax) then
        rnmax = rn; worst_residual = i
      end if
    end do
  end function worst_residual

end module se_mod

program grid_state_estimation
  use se_mod
  implicit none
  character(len=400) :: dir
  character(len=512) :: fname
  integer :: snap, iters, pfit, nbad, nremoved, worst, u, su, ios, k, ntrue_bad, nflag, nfail
  integer(8) :: seed
  real(dp) :: th(nb), v(nb), x(nx), the(nb), ve(nb), jobj, rnmax, scale, hour, chi2lim, verr, verr_max
  real(dp) :: vmin(nb), vmax(nb), vmean(nb)
  logical :: ok

  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: grid_state_estimation_wls DIR'
    error stop 2
  end if
  call get_command_argument(1, dir)
  call write_case(trim(dir)//'/grid_case.txt')
  call read_case(trim(dir)//'/grid_case.txt')
  call build_ybus()

  ! phase 1: SCADA snapshots from load flows
  seed = 31415_8
  ntrue_bad = 0
  do snap = 1, nsnap
    hour = 24.0_dp * (snap - 1) / nsnap
    scale = 0.65_dp + 0.25_dp * sin(3.14159265_dp * (hour - 6.0_dp) / 12.0_dp) + 0.1_dp * exp(-((hour - 19.0_dp) / 1.5_dp)**2)
    call power_flow(scale, th, v, pfit)
    write(fname, '(a,"/scada_",i4.4,".txt")') trim(dir), snap
    call make_measurements(trim(fname), th, v, seed, nbad)
    ntrue_bad = ntrue_bad + nbad
  end do

  ! phase 2: estimation
  open(newunit=u, file=trim(dir)//'/estimates.bin', form='unformatted', access='sequential', &
       status='replace', action='write', iostat=ios)
  if (ios /= 0) call fail('cannot create estimates.bin')
  open(newunit=su, file=trim(dir)//'/se_log.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) call fail('cannot create se_log.txt')
  write(su, '(a)') ' snap iters          J(x)    chi2_lim removed  max_norm_res   vmin    vmax'
  nflag = 0; nfail = 0; verr_max = 0
  do snap = 1, nsnap
    write(fname, '(a,"/scada_",i4.4,".txt")') trim(dir), snap
    call read_measurements(trim(fname))
    nremoved = 0; rnmax = 0.0_dp
    do
      x(1:nb-1) = 0.0_dp; x(nb:nx) = 1.0_dp       ! flat start
      call wls_estimate(x, jobj, iters, ok)
      if (.not. ok) then
        nfail = nfail + 1; exit
      end if
      ! chi-square limit approx. for m-n degrees of freedom at 99 %
      k = count(mact(1:nm)) - nx
      chi2lim = k + 2.326_dp * sqrt(2.0_dp * k)
      if (jobj <= chi2lim .or. nremoved >= 4) exit
      worst = worst_residual(x, rnmax)
      if (rnmax < 3.0_dp .or. worst == 0) exit
      mact(worst) = .false.
      nremoved = nremoved + 1
    end do
    nflag = nflag + nremoved
    call unpack(x, the, ve)
    write(u, iostat=ios) snap, the, ve, jobj
    if (ios /= 0) call fail('write error estimates.bin')
    write(su, '(i5,i6,f14.3,f12.3,i8,f14.3,2f8.4)') snap, iters, jobj, chi2lim, nremoved, rnmax, minval(ve), maxval(ve)
  end do
  close(u); close(su)

  ! phase 3: voltage profile from the stored estimates
  open(newunit=u, file=trim(dir)//'/estimates.bin', form='unformatted', access='sequential', &
       status='old', action='read', iostat=ios)
  if (ios /= 0) call fail('cannot reopen estimates.bin')
  vmin = 9; vmax = 0; vmean = 0; verr = 0
  do snap = 1, nsnap
    read(u, iostat=ios) k, the, ve, jobj
    if (ios /= 0 .or. k /= snap) call fail('read error estimates.bin')
    vmin = min(vmin, ve); vmax = max(vmax, ve); vmean = vmean + ve / nsnap
  end do
  close(u)
  open(newunit=su, file=trim(dir)//'/voltage_profile.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) call fail('cannot create voltage_profile.txt')
  write(su, '(a)') '  bus    v_min    v_mean   v_max   load_pu  gen_pu  flag'
  do k = 1, nb
    write(su, '(i5,3f9.4,2f9.3,2x,a)') k, vmin(k), vmean(k), vmax(k), pload(k), pgen(k), &
         merge('LOW ', '    ', vmin(k) < 0.95_dp)
  end do
  close(su)
  write(*, '(a,i0,a,i0,a,i0)') 'state_estimation: ', nsnap, ' snapshots, measurements per snapshot ', nm, &
       ', failures ', nfail
  write(*, '(a,i0,a,i0)') 'state_estimation: gross errors injected ', ntrue_bad, ', measurements removed ', nflag
  write(*, '(a,f7.4,a,f7.4)') 'state_estimation: lowest estimated voltage ', minval(vmin), ', highest ', maxval(vmax)
end program grid_state_estimation
