! Hot strip mill campaign: slabs are reheated, rolled through a 5-pass reversing
! rougher and a 7-stand tandem finishing mill, and laminar-cooled on the run-out
! table.  Each slab is followed as 64 segments along its length with a 15-node
! through-thickness temperature profile (implicit conduction), Misaka flow
! stress, Sims/Ford-Alexander roll force with Hitchcock flattening, gaugemeter
! exit thickness and AGC.  Per-coil results go to a direct-access file
! (REC = slab id) and per-pass temperature fields to a stream file (POS=);
! both are read back for quality statistics and thermal inspections.
module mill
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: NSLAB = 400, NSEG = 64, NTH = 15
  integer, parameter :: NROUGH = 5, NFIN = 7, NPASS = NROUGH + NFIN
  integer, parameter :: NGRADE = 4, NSUB = 10, ROLL_CHANGE = 60, NWORST = 24
  integer, parameter :: NPD = 6, NEXTRA = 8
  real(dp), parameter :: RHO_ST = 7800.0_dp, CP_ST = 650.0_dp, K_ST = 30.0_dp
  real(dp), parameter :: EMIS = 0.8_dp, SIG_SB = 5.670e-8_dp, T_AIR = 303.15_dp
  real(dp), parameter :: MILL_MOD = 5000.0_dp          ! kN/mm
  real(dp), parameter :: R_ROUGH = 600.0_dp, R_FIN = 370.0_dp
  real(dp), parameter :: STAND_GAP = 5.5_dp, ROT_LEN = 110.0_dp
  real(dp), parameter :: H_CONTACT = 25000.0_dp, H_DESCALE = 15000.0_dp
  real(dp), parameter :: TOL_UM = 50.0_dp
  character(len=8) :: grade_name(NGRADE) = [character(len=8) :: 'CQ_LC', 'HSLA_Nb', 'IF_Ti', 'MC_045']
  real(dp) :: grade_c(NGRADE) = [0.05_dp, 0.08_dp, 0.003_dp, 0.45_dp]
  real(dp) :: grade_fac(NGRADE) = [1.00_dp, 1.22_dp, 0.92_dp, 1.10_dp]
  real(dp) :: grade_ct(NGRADE) = [893.0_dp, 853.0_dp, 973.0_dp, 903.0_dp]

  type slab_t
     integer :: id, grade
     real(dp) :: width, h0, length, target, tfurn
  end type slab_t

  integer(8) :: rng_state = 2463534242_8
contains

  function urand() result(u)
    real(dp) :: u
    rng_state = ieor(rng_state, ishft(rng_state, 13))
    rng_state = ieor(rng_state, ishft(rng_state, -7))
    rng_state = ieor(rng_state, ishft(rng_state, 17))
    u = (real(ishft(rng_state, -11), dp) + 0.5_dp) * 2.0_dp**(-53)
  end function urand

  subroutine make_slabs(slabs)
    type(slab_t), intent(out) :: slabs(NSLAB)
    integer :: i
    real(dp) :: u
    do i = 1, NSLAB
       slabs(i)%id = i
       u = urand()
       slabs(i)%grade = 1
       if (u > 0.55_dp) slabs(i)%grade = 2
       if (u > 0.78_dp) slabs(i)%grade = 3
       if (u > 0.92_dp) slabs(i)%grade = 4
       slabs(i)%width = 900.0_dp + 10.0_dp * nint(70.0_dp * urand())
       slabs(i)%h0 = 230.0_dp
       slabs(i)%length = 9.0_dp + 2.0_dp * urand()
       slabs(i)%target = 1.8_dp + 0.1_dp * nint(45.0_dp * urand()**1.5_dp)
       slabs(i)%tfurn = 1498.0_dp + 25.0_dp * (urand() - 0.5_dp)
    end do
  end subroutine make_slabs

  ! Coffin-shaped campaign per roll set: a few narrow warm-up coils, then wide
  ! to narrow so that roll wear marks at the strip edges are never rolled over.
  subroutine schedule_coffin(slabs, order)
    type(slab_t), intent(in) :: slabs(NSLAB)
    integer, intent(out) :: order(NSLAB)
    integer :: s, e, i, j, k, tmp, nwarm
    do i = 1, NSLAB
       order(i) = i
    end do
    do s = 1, NSLAB, ROLL_CHANGE
       e = min(s + ROLL_CHANGE - 1, NSLAB)
       do i = s + 1, e
          k = order(i)
          j = i - 1
          do while (j >= s)
             if (slabs(order(j))%width >= slabs(k)%width) exit
             order(j + 1) = order(j)
             j = j - 1
          end do
          order(j + 1) = k
       end do
       nwarm = min(4, e - s)
       do i = 0, nwarm - 1
          tmp = order(e - i)
          order(s + 1 + i:e - i) = order(s + i:e - i - 1)
          order(s + i) = tmp
       end do
    end do
  end subroutine schedule_coffin

  ! Implicit conduction across the half thickness with a Robin surface
  ! (linearised radiation plus heat-transfer coefficient hx).
  subroutine conduct(tc, half_mm, dtot, hx, tenv)
    real(dp), intent(inout) :: tc(NTH)
    real(dp), intent(in) :: half_mm, dtot, hx, tenv
    real(dp) :: a(NTH), b(NTH), c(NTH), d(NTH), dx, dt, r, hr, bi, m
    integer :: it, i
    dx = half_mm * 1.0e-3_dp / (NTH - 1)
    dt = dtot / NSUB
    r = K_ST / (RHO_ST * CP_ST) * dt / (dx * dx)
    do it = 1, NSUB
       hr = EMIS * SIG_SB * (tc(NTH)**2 + tenv**2) * (tc(NTH) + tenv)
       bi = 2.0_dp * r * dx * (hx + hr) / K_ST
       a(1) = 0.0_dp; b(1) = 1.0_dp + 2.0_dp * r; c(1) = -2.0_dp * r; d(1) = tc(1)
       do i = 2, NTH - 1
          a(i) = -r; b(i) = 1.0_dp + 2.0_dp * r; c(i) = -r; d(i) = tc(i)
       end do
       a(NTH) = -2.0_dp * r; b(NTH) = 1.0_dp + 2.0_dp * r + bi; c(NTH) = 0.0_dp
       d(NTH) = tc(NTH) + bi * tenv
       do i = 2, NTH
          m = a(i) / b(i-1)
          b(i) = b(i) - m * c(i-1)
          d(i) = d(i) - m * d(i-1)
       end do
       tc(NTH) = d(NTH) / b(NTH)
       do i = NTH - 1, 1, -1
          tc(i) = (d(i) - c(i) * tc(i+1)) / b(i)
       end do
    end do
  end subroutine conduct

  pure function mean_temp(tc) result(tm)
    real(dp), intent(in) :: tc(NTH)
    real(dp) :: tm
    tm = (sum(tc(2:NTH-1)) + 0.5_dp * (tc(1) + tc(NTH))) / (NTH - 1)
  end function mean_temp

  ! Misaka flow stress (MPa) with a grade multiplier.
  pure function flow_stress(g, tk, eps, rate) result(s)
    integer, intent(in) :: g
    real(dp), intent(in) :: tk, eps, rate
    real(dp) :: s, c
    c = grade_c(g)
    s = exp(0.126_dp - 1.75_dp * c + 0.594_dp * c * c + &
         (2851.0_dp + 2968.0_dp * c - 1120.0_dp * c * c) / tk) * &
         max(eps, 0.01_dp)**0.21_dp * max(rate, 0.1_dp)**0.13_dp * 9.80665_dp * grade_fac(g)
  end function flow_stress

  ! Roll force (kN) for one segment with Hitchcock flattening iterations.
  subroutine roll_force(g, width, hin, hout, tk, v, rroll, f, ld, rate)
    integer, intent(in) :: g
    real(dp), intent(in) :: width, hin, hout, tk, v, rroll
    real(dp), intent(out) :: f, ld, rate
    real(dp) :: dh, rf, eps, k, qp, hm
    integer :: it
    dh = max(hin - hout, 0.05_dp)
    eps = log(hin / hout)
    hm = 0.5_dp * (hin + hout)
    rf = rroll
    f = 0.0_dp
    do it = 1, 4
       ld = sqrt(rf * dh)
       rate = v * 1000.0_dp / ld * eps
       k = 1.15_dp * flow_stress(g, tk, eps, rate)
       qp = 0.785_dp + 0.25_dp * ld / hm
       f = width * ld * qp * k * 1.0e-3_dp
       rf = rroll * (1.0_dp + 2.2e-2_dp * f / (width * dh))
    end do
  end subroutine roll_force

  ! Gaugemeter: solve hout = gap + F(hout)/M by secant iteration.
  subroutine exit_gauge(g, width, hin, gap, tk, v, rroll, hout, f, ld, rate, q)
    integer, intent(in) :: g
    real(dp), intent(in) :: width, hin, gap, tk, v, rroll
    real(dp), intent(out) :: hout, f, ld, rate, q
    real(dp) :: h0, h1, r0, r1, f0, h2
    integer :: it
    h0 = max(gap, 0.3_dp * hin)
    call roll_force(g, width, hin, h0, tk, v, rroll, f0, ld, rate)
    r0 = h0 - gap - f0 / MILL_MOD
    h1 = min(0.98_dp * hin, h0 + f0 / MILL_MOD)
    do it = 1, 12
       call roll_force(g, width, hin, h1, tk, v, rroll, f, ld, rate)
       r1 = h1 - gap - f / MILL_MOD
       if (abs(r1) < 1.0e-6_dp .or. abs(r1 - r0) < 1.0e-14_dp) exit
       h2 = h1 - r1 * (h1 - h0) / (r1 - r0)
       h2 = min(max(h2, 0.2_dp * hin), 0.995_dp * hin)
       h0 = h1; r0 = r1; f0 = f
       h1 = h2
    end do
    hout = h1
    q = abs((f - f0) / max(abs(h1 - h0), 1.0e-9_dp))
  end subroutine exit_gauge

  ! Pass schedule: geometric distribution of true strain over the stands.
  subroutine pass_schedule(s, hset, vel)
    type(slab_t), intent(in) :: s
    real(dp), intent(out) :: hset(0:NPASS), vel(NPASS)
    real(dp), parameter :: wr(NROUGH) = [1.0_dp, 1.1_dp, 1.15_dp, 1.1_dp, 1.0_dp]
    real(dp), parameter :: wf(NFIN) = [1.5_dp, 1.35_dp, 1.2_dp, 1.0_dp, 0.8_dp, 0.6_dp, 0.4_dp]
    real(dp) :: bar, tot
    integer :: i
    bar = 32.0_dp + 2.0_dp * s%target
    hset(0) = s%h0
    tot = log(s%h0 / bar)
    do i = 1, NROUGH
       hset(i) = hset(i-1) * exp(-tot * wr(i) / sum(wr))
       vel(i) = 3.0_dp
    end do
    tot = log(bar / s%target)
    do i = 1, NFIN
       hset(NROUGH + i) = hset(NROUGH + i - 1) * exp(-tot * wf(i) / sum(wf))
    end do
    do i = 1, NFIN
       vel(NROUGH + i) = min(12.0_dp, 24.0_dp / s%target) * s%target / hset(NROUGH + i)
    end do
  end subroutine pass_schedule

  ! Laminar cooling: secant search of the water heat-transfer coefficient for
  ! the head segment's coiling temperature, then applied to every segment.
  subroutine runout_cooling(s, temp, h, v, ct, hw)
    type(slab_t), intent(in) :: s
    real(dp), intent(inout) :: temp(NTH, NSEG)
    real(dp), intent(in) :: h(NSEG), v
    real(dp), intent(out) :: ct(NSEG), hw
    real(dp) :: tc(NTH), x0, x1, r0, r1, x2, tcool
    integer :: it, j
    tcool = ROT_LEN / v
    x0 = 300.0_dp; x1 = 3000.0_dp
    tc = temp(:, 1); call conduct(tc, 0.5_dp * h(1), tcool, x0, T_AIR); r0 = mean_temp(tc) - grade_ct(s%grade)
    do it = 1, 20
       tc = temp(:, 1); call conduct(tc, 0.5_dp * h(1), tcool, x1, T_AIR)
       r1 = mean_temp(tc) - grade_ct(s%grade)
       if (abs(r1) < 0.05_dp .or. abs(r1 - r0) < 1.0e-9_dp) exit
       x2 = min(max(x1 - r1 * (x1 - x0) / (r1 - r0), 50.0_dp), 20000.0_dp)
       x0 = x1; r0 = r1; x1 = x2
    end do
    hw = x1
    do j = 1, NSEG
       call conduct(temp(:, j), 0.5_dp * h(j), tcool, hw, T_AIR)
       ct(j) = mean_temp(temp(:, j))
    end do
  end subroutine runout_cooling

  ! Rolls one slab through all passes; writes its coil record and per-pass
  ! temperature fields.
  subroutine roll_slab(s, pos_in_campaign, rollset, wear, udir, ustr, slab_bytes)
    type(slab_t), intent(in) :: s
    integer, intent(in) :: pos_in_campaign, rollset, udir, ustr
    real(dp), intent(inout) :: wear
    integer(8), intent(in) :: slab_bytes
    real(dp) :: temp(NTH, NSEG), h(NSEG), hset(0:NPASS), vel(NPASS)
    real(dp) :: pd(NPD, NPASS), ct(NSEG), extra(NEXTRA), gap, rroll, wait, x, tk
    real(dp) :: f, ld, rate, q, hout, fsum, fmax, tsum, rsum, barlen, hw
    integer :: ip, j, hdr(4)
    integer(8) :: pos

    call pass_schedule(s, hset, vel)
    do j = 1, NSEG
       x = (j - 0.5_dp) / NSEG
       temp(:, j) = s%tfurn - 18.0_dp * exp(-((x * 8.0_dp - nint(x * 8.0_dp)) / 0.08_dp)**2)
       h(j) = s%h0
    end do
    hdr = [s%id, s%grade, NSEG, NPASS]
    pos = int(s%id - 1, 8) * slab_bytes + 1_8
    write(ustr, pos=pos) hdr

    do ip = 1, NPASS
       rroll = R_ROUGH
       if (ip > NROUGH) rroll = R_FIN - 0.02_dp * (rollset - 1)
       barlen = s%length * s%h0 / hset(ip - 1)
       do j = 1, NSEG
          x = (j - 0.5_dp) / NSEG
          if (ip == 1) then
             wait = 25.0_dp + 40.0_dp * x
             call conduct(temp(:, j), 0.5_dp * h(j), 1.0_dp, H_DESCALE, T_AIR)
          else if (ip <= NROUGH) then
             if (mod(ip, 2) == 0) x = 1.0_dp - x
             wait = 5.0_dp + 2.0_dp * (1.0_dp - x) * barlen / vel(ip)
          else if (ip == NROUGH + 1) then
             wait = 18.0_dp + x * barlen / vel(ip)
             call conduct(temp(:, j), 0.5_dp * h(j), 0.6_dp, H_DESCALE, T_AIR)
          else
             wait = STAND_GAP / vel(ip - 1)
          end if
          call conduct(temp(:, j), 0.5_dp * h(j), wait, 20.0_dp, T_AIR)
       end do
       tk = mean_temp(temp(:, 1))
       call roll_force(s%grade, s%width, h(1), hset(ip), tk, vel(ip), rroll, f, ld, rate)
       gap = hset(ip) - f / MILL_MOD
       fsum = 0.0_dp; fmax = 0.0_dp; tsum = 0.0_dp; rsum = 0.0_dp
       do j = 1, NSEG
          tk = mean_temp(temp(:, j))
          call exit_gauge(s%grade, s%width, h(j), gap + wear, tk, vel(ip), rroll, hout, f, ld, rate, q)
          call conduct(temp(:, j), 0.5_dp * h(j), ld * 1.0e-3_dp / vel(ip), H_CONTACT, 353.0_dp)
          temp(:, j) = temp(:, j) + 0.9_dp * flow_stress(s%grade, tk, log(h(j) / hout), rate) * 1.0e6_dp &
               * log(h(j) / hout) / (RHO_ST * CP_ST)
          if (ip > NROUGH) gap = gap - 0.4_dp * (hout - hset(ip)) * (1.0_dp + q / MILL_MOD)
          h(j) = hout
          fsum = fsum + f; fmax = max(fmax, f); tsum = tsum + tk; rsum = rsum + rate
       end do
       pd(:, ip) = [fsum / NSEG * 1.0e-3_dp, fmax * 1.0e-3_dp, sum(h) / NSEG, tsum / NSEG - 273.15_dp, &
            vel(ip), rsum / NSEG]
       write(ustr, pos=pos + 16_8 + int(ip - 1, 8) * NTH * NSEG * 8_8) temp
       if (ip > NROUGH) wear = wear + 2.0e-7_dp * s%length * s%h0 / h(1)
    end do
    call runout_cooling(s, temp, h, vel(NPASS), ct, hw)
    extra = [hw, sum(ct) / NSEG - 273.15_dp, sqrt(max(0.0_dp, sum(ct**2) / NSEG - (sum(ct) / NSEG)**2)), &
         wear, sum(h) / NSEG, sqrt(max(0.0_dp, sum(h**2) / NSEG - (sum(h) / NSEG)**2)), &
         maxval(abs(h - s%target)), s%tfurn - 273.15_dp]
    write(udir, rec=s%id) s%id, s%grade, pos_in_campaign, rollset, s%width, s%target, pd, h, ct, extra
  end subroutine roll_slab

  ! Pass over all coil records: gauge capability per grade and worst coils.
  subroutine analyse_records(udir, urep, worst)
    integer, intent(in) :: udir, urep
    integer, intent(out) :: worst(NWORST)
    integer :: id, g, cpos, rset, n(NGRADE), i, k, j
    real(dp) :: width, target, pd(NPD, NPASS), h(NSEG), ct(NSEG), extra(NEXTRA)
    real(dp) :: s1(NGRADE), s2(NGRADE), sct(NGRADE), score(NSLAB), dev, mu, sd, cpk
    real(dp) :: fres, cusum, fpred
    n = 0; s1 = 0.0_dp; s2 = 0.0_dp; sct = 0.0_dp; cusum = 0.0_dp; fpred = -1.0_dp
    write(urep, '(A)') '# coil  grade     pos  set  width  target   F1_MN   F7_MN  gauge_dev_um  gauge_sd_um   CT_C   cusumF1'
    do i = 1, NSLAB
       read(udir, rec=i) id, g, cpos, rset, width, target, pd, h, ct, extra
       do j = 1, NSEG
          dev = (h(j) - target) * 1000.0_dp
          s1(g) = s1(g) + dev; s2(g) = s2(g) + dev * dev
       end do
       n(g) = n(g) + NSEG
       sct(g) = sct(g) + extra(2)
       fres = pd(1, NROUGH + 1) / width * 1000.0_dp
       if (fpred < 0.0_dp) fpred = fres
       cusum = max(0.0_dp, cusum + (fres - fpred) - 0.2_dp)
       fpred = 0.95_dp * fpred + 0.05_dp * fres
       score(i) = extra(6)
       write(urep, '(I6,1X,A8,1X,I5,1X,I4,1X,F6.0,1X,F6.2,1X,F7.3,1X,F7.3,1X,F12.2,1X,F12.3,1X,F6.1,1X,ES10.3)') &
            id, grade_name(g), cpos, rset, width, target, pd(1, NROUGH + 1), pd(1, NPASS), &
            (extra(5) - target) * 1000.0_dp, extra(6) * 1000.0_dp, extra(2), cusum
    end do
    write(urep, '(A)') '# grade      n_seg   mean_dev_um    sd_um    Cpk    mean_CT_C'
    do g = 1, NGRADE
       if (n(g) == 0) cycle
       mu = s1(g) / n(g)
       sd = sqrt(max(1.0e-12_dp, s2(g) / n(g) - mu * mu))
       cpk = min(TOL_UM - mu, mu + TOL_UM) / (3.0_dp * sd)
       write(urep, '(A8,1X,I8,1X,F12.3,1X,F9.3,1X,F7.3,1X,F9.2)') grade_name(g), n(g), mu, sd, cpk, &
            sct(g) / (n(g) / NSEG)
    end do
    do k = 1, NWORST
       j = maxloc(score, 1)
       worst(k) = j
       score(j) = -1.0_dp
    end do
  end subroutine analyse_records

  ! Random-access inspection of the thermal history of the worst coils.
  subroutine inspect_worst(ustr, urep, worst, slab_bytes)
    integer, intent(in) :: ustr, urep, worst(NWORST)
    integer(8), intent(in) :: slab_bytes
    real(dp) :: temp(NTH, NSEG), dtcs, headtail
    integer :: k, ip, hdr(4)
    integer(8) :: pos
    write(urep, '(A)') '# worst coils: pass, max centre-surface dT (K), head-tail mean T difference (K)'
    do k = 1, NWORST
       pos = int(worst(k) - 1, 8) * slab_bytes + 1_8
       read(ustr, pos=pos) hdr
       do ip = NROUGH, NPASS
          read(ustr, pos=pos + 16_8 + int(ip - 1, 8) * NTH * NSEG * 8_8) temp
          dtcs = maxval(temp(1, :) - temp(NTH, :))
          headtail = mean_temp(temp(:, 1)) - mean_temp(temp(:, NSEG))
          write(urep, '(I6,1X,I3,1X,F9.3,1X,F9.3)') hdr(1), ip, dtcs, headtail
       end do
    end do
  end subroutine inspect_worst

  ! Sequential pass over the stream file: grade-mean through-thickness
  ! profiles after every pass.
  subroutine mean_profiles(ustr, uprof, slab_bytes)
    integer, intent(in) :: ustr, uprof
    integer(8), intent(in) :: slab_bytes
    real(dp) :: temp(NTH, NSEG), acc(NTH, NPASS, NGRADE)
    integer :: cnt(NGRADE), i, ip, hdr(4), g, k
    acc = 0.0_dp; cnt = 0
    do i = 1, NSLAB
       read(ustr, pos=int(i - 1, 8) * slab_bytes + 1_8) hdr
       g = hdr(2)
       cnt(g) = cnt(g) + 1
       do ip = 1, NPASS
          read(ustr) temp
          acc(:, ip, g) = acc(:, ip, g) + sum(temp, dim=2) / NSEG
       end do
    end do
    do g = 1, NGRADE
       if (cnt(g) == 0) cycle
       write(uprof, '(A,A,A,I5)') '# grade ', trim(grade_name(g)), '  coils ', cnt(g)
       do ip = 1, NPASS
          write(uprof, '(I3,15(1X,F8.2))') ip, (acc(k, ip, g) / cnt(g) - 273.15_dp, k = 1, NTH)
       end do
    end do
  end subroutine mean_profiles
end module mill

program hot_strip_mill_pass_direct
  use mill
  implicit none
  character(len=512) :: outdir
  type(slab_t) :: slabs(NSLAB)
  integer :: order(NSLAB), worst(NWORST), i, reclen, rollset
  integer(8) :: slab_bytes
  real(dp) :: wear, pd(NPD, NPASS), h(NSEG), ct(NSEG), extra(NEXTRA), w, t

  if (command_argument_count() /= 1) stop 'usage: hot_strip_mill_pass_direct OUTDIR'
  call get_command_argument(1, outdir)
  call make_slabs(slabs)
  call schedule_coffin(slabs, order)

  inquire(iolength=reclen) i, i, i, i, w, t, pd, h, ct, extra
  slab_bytes = 16_8 + int(NTH, 8) * NSEG * NPASS * 8_8
  open(unit=11, file=trim(outdir) // '/coil_records.dat', access='direct', form='unformatted', &
       recl=reclen, status='replace', action='readwrite')
  open(unit=12, file=trim(outdir) // '/thermal_history.bin', access='stream', form='unformatted', &
       status='replace', action='readwrite')

  wear = 0.0_dp
  do i = 1, NSLAB
     rollset = (i - 1) / ROLL_CHANGE + 1
     if (mod(i - 1, ROLL_CHANGE) == 0) wear = 0.0_dp
     call roll_slab(slabs(order(i)), i, rollset, wear, 11, 12, slab_bytes)
  end do
  flush(11)
  flush(12)

  open(unit=13, file=trim(outdir) // '/quality_report.txt', status='replace', action='write')
  call analyse_records(11, 13, worst)
  call inspect_worst(12, 13, worst, slab_bytes)
  close(13)
  open(unit=14, file=trim(outdir) // '/mean_profiles.txt', status='replace', action='write')
  call mean_profiles(12, 14, slab_bytes)
  close(14)
  close(11)
  close(12)
  write(*, '(A,I5,A,I6,A)') 'rolled ', NSLAB, ' coils, record length ', reclen, ' (file storage units)'
end program hot_strip_mill_pass_direct
