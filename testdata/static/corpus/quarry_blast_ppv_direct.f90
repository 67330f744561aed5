! Quarry blast vibration monitoring.
!
! A year of production blasts in a limestone quarry is recorded by a ring of
! triaxial geophones at neighbouring houses and structures.  For every blast
! the program designs the hole pattern (charge per hole, delay timing),
! synthesises the three ground-velocity components at every station (delayed
! superposition of distance-dependent wavelets, geometric and anelastic
! attenuation, background noise) and stores each component trace as one
! record of an unformatted DIRECT-access waveform file, blast-major as the
! seismographs download them.  Blast metadata go to a second direct-access
! file.
!
! The analysis reads the waveform file station-major (random record access),
! computes peak particle velocity (per component and vector sum), the
! dominant frequency from an FFT, checks a frequency-dependent limit curve,
! writes one result record per trace to a third direct-access file, fits
! the site attenuation law PPV = K (D/sqrt(W))^-b per station group by least
! squares and writes formatted compliance tables and a blast design chart.
program quarry_blast_ppv_direct
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0)
  integer, parameter :: nblast = 52, nsta = 12, ncomp = 3
  integer, parameter :: nsamp = 4096, nwav = 768, maxhole = 64
  real(dp), parameter :: fs = 1024.0_dp, pi = 3.141592653589793_dp
  real(dp), parameter :: comp_factor(ncomp) = [1.0_dp, 0.8_dp, 0.65_dp]   ! L, T, V

  type blast_t
     integer :: id, nhole, day
     real(dp) :: x, y, charge(maxhole), delay_ms(maxhole), bench_h
  end type blast_t

  type result_t
     integer :: blast, sta, comp
     real(sp) :: ppv, freq, dist, sd, ratio_limit
  end type result_t

  character(len=512) :: outdir
  type(blast_t) :: blasts(nblast)
  real(dp) :: sta_x(nsta), sta_y(nsta)
  character(len=10) :: sta_name(nsta)
  real(dp) :: site_k(3), site_b(3), site_r2(3), site_sig(3)
  integer :: lenarg, ios, nexceed
  integer(8) :: rng

  call get_command_argument(1, outdir, lenarg, ios)
  if (ios /= 0 .or. lenarg == 0) then
     write(*,'(a)') 'usage: quarry_blast_ppv_direct OUTDIR'
     stop 2
  end if
  rng = 88172645463325252_8

  call place_stations()
  call design_blasts()
  call write_blast_headers()
  call record_waveforms()
  call analyse_by_station(nexceed)
  call fit_site_law()
  call compliance_report()

  write(*,'(a,i0,a,i0,a,i0,a)') 'quarry_blast_ppv_direct: ', nblast, ' blasts x ', nsta, ' stations, ', &
       nexceed, ' traces above 50% of limit'
  write(*,'(a,3(f9.1,a,f5.2,a))') '  site law K,b (near/mid/far): ', site_k(1), ' ', site_b(1), ';', &
       site_k(2), ' ', site_b(2), ';', site_k(3), ' ', site_b(3), ''

contains

  function path(name) result(p)
    character(len=*), intent(in) :: name
    character(len=600) :: p
    p = trim(outdir) // '/' // trim(name)
  end function path

  subroutine check(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
       write(*,'(3a,i0)') 'I/O error: ', what, ' iostat=', ios
       error stop 1
    end if
  end subroutine check

  function urand() result(u)
    real(dp) :: u
    rng = ieor(rng, ishft(rng, 13))
    rng = ieor(rng, ishft(rng, -7))
    rng = ieor(rng, ishft(rng, 17))
    u = real(ishft(rng, -11), dp) / 9007199254740992.0_dp
  end function urand

  function nrand() result(g)
    real(dp) :: g, u1, u2
    u1 = urand() + 1.0e-300_dp
    u2 = urand()
    g = sqrt(-2.0_dp * log(u1)) * cos(2.0_dp * pi * u2)
  end function nrand

  subroutine place_stations()
    integer :: s
    real(dp) :: r, th
    do s = 1, nsta
       r = 180.0_dp + 95.0_dp * s + 40.0_dp * urand()
       th = 2.0_dp * pi * (s - 1) / nsta + 0.3_dp * urand()
       sta_x(s) = r * cos(th)
       sta_y(s) = r * sin(th)
       write(sta_name(s),'(a,i2.2)') 'GEO-', s
    end do
  end subroutine place_stations

  ! Bench blasts: rows of holes, 25 ms inter-hole and 42 ms inter-row delays
  ! with detonator scatter; charges grow as the face advances.
  subroutine design_blasts()
    integer :: b, h, nrow, nper
    do b = 1, nblast
       blasts(b)%id = 1000 + b
       blasts(b)%day = 3 + (b - 1) * 7
       blasts(b)%x = -60.0_dp + 120.0_dp * urand()
       blasts(b)%y = -40.0_dp + 80.0_dp * urand()
       blasts(b)%bench_h = 12.0_dp + 6.0_dp * urand()
       nrow = 2 + int(3.0_dp * urand())
       nper = 8 + int(12.0_dp * urand())
       blasts(b)%nhole = min(maxhole, nrow * nper)
       blasts(b)%charge = 0.0_dp
       blasts(b)%delay_ms = 0.0_dp
       do h = 1, blasts(b)%nhole
          blasts(b)%charge(h) = (40.0_dp + 4.0_dp * blasts(b)%bench_h) * (0.9_dp + 0.2_dp * urand()) &
               * (1.0_dp + 0.004_dp * b)
          blasts(b)%delay_ms(h) = 25.0_dp * mod(h - 1, nper) + 42.0_dp * ((h - 1) / nper) + 1.5_dp * nrand()
       end do
    end do
  end subroutine design_blasts

  subroutine write_blast_headers()
    integer :: u, ios, rl, b
    inquire(iolength=rl) blasts(1)
    open(newunit=u, file=path('blast_headers.da'), access='direct', form='unformatted', recl=rl, &
         status='replace', action='write', iostat=ios)
    call check(ios, 'open blast_headers.da')
    do b = 1, nblast
       write(u, rec=b, iostat=ios) blasts(b)
       call check(ios, 'write blast header')
    end do
    close(u, iostat=ios)
    call check(ios, 'close blast_headers.da')
  end subroutine write_blast_headers

  ! One component trace: shift-and-add of a single-hole wavelet whose
  ! dominant frequency and amplitude depend on distance and charge.
  subroutine synthesize_trace(b, s, comp, trace)
    integer, intent(in) :: b, s, comp
    real(sp), intent(out) :: trace(nsamp)
    real(dp) :: wav(nwav), acc(nsamp)
    real(dp) :: d, f0, amp, t, tarr, q, cfac
    integer :: h, i, i0, n
    d = hypot(sta_x(s) - blasts(b)%x, sta_y(s) - blasts(b)%y)
    f0 = 38.0_dp * exp(-d / 900.0_dp) + 6.0_dp + 2.0_dp * comp
    q = 25.0_dp
    do i = 1, nwav
       t = (i - 1) / fs
       wav(i) = sin(2.0_dp * pi * f0 * t) * exp(-pi * f0 * t / q) * (1.0_dp - exp(-60.0_dp * t))
    end do
    cfac = comp_factor(comp)
    acc = 0.0_dp
    tarr = 0.25_dp + d / 2600.0_dp
    do h = 1, blasts(b)%nhole
       ! single-hole scaled-distance law, mm/s
       amp = cfac * 1140.0_dp * (d / sqrt(blasts(b)%charge(h)))**(-1.6_dp) * (0.75_dp + 0.5_dp * urand())
       i0 = int((tarr + blasts(b)%delay_ms(h) * 1.0e-3_dp) * fs) + 1
       n = min(nwav, nsamp - i0 + 1)
       if (n > 0) acc(i0:i0 + n - 1) = acc(i0:i0 + n - 1) + amp * wav(1:n)
    end do
    do i = 1, nsamp
       acc(i) = acc(i) + 0.004_dp * nrand()
    end do
    trace = real(acc, sp)
  end subroutine synthesize_trace

  function rec_index(b, s, comp) result(r)
    integer, intent(in) :: b, s, comp
    integer :: r
    r = ((b - 1) * nsta + (s - 1)) * ncomp + comp
  end function rec_index

  subroutine record_waveforms()
    real(sp) :: trace(nsamp)
    integer :: u, ios, rl, b, s, c
    inquire(iolength=rl) trace
    open(newunit=u, file=path('waveforms.da'), access='direct', form='unformatted', recl=rl, &
         status='replace', action='write', iostat=ios)
    call check(ios, 'open waveforms.da')
    do b = 1, nblast
       do s = 1, nsta
          do c = 1, ncomp
             call synthesize_trace(b, s, c, trace)
             write(u, rec=rec_index(b, s, c), iostat=ios) trace
             call check(ios, 'write waveform record')
          end do
       end do
    end do
    close(u, iostat=ios)
    call check(ios, 'close waveforms.da')
  end subroutine record_waveforms

  ! In-place radix-2 complex FFT.
  subroutine fft(a)
    complex(dp), intent(inout) :: a(:)
    integer :: n, i, j, k, m, len
    complex(dp) :: t, w, wl
    n = size(a)
    j = 0
    do i = 1, n - 1
       k = n / 2
       do while (iand(j, k) /= 0)
          j = ieor(j, k)
          k = k / 2
       end do
       j = ieor(j, k)
       if (i < j) then
          t = a(i + 1)
          a(i + 1) = a(j + 1)
          a(j + 1) = t
       end if
    end do
    len = 2
    do while (len <= n)
       wl = cmplx(cos(-2.0_dp * pi / len), sin(-2.0_dp * pi / len), dp)
       do i = 0, n - 1, len
          w = (1.0_dp, 0.0_dp)
          do m = 0, len / 2 - 1
             t = w * a(i + m + len / 2 + 1)
             a(i + m + len / 2 + 1) = a(i + m + 1) - t
             a(i + m + 1) = a(i + m + 1) + t
             w = w * wl
          end do
       end do
       len = 2 * len
    end do
  end subroutine fft

  ! DIN 4150-3 style limit for residential buildings (mm/s) vs frequency.
  function limit_curve(f) result(v)
    real(dp), intent(in) :: f
    real(dp) :: v
    if (f < 10.0_dp) then
       v = 5.0_dp
    else if (f < 50.0_dp) then
       v = 5.0_dp + 10.0_dp * (f - 10.0_dp) / 40.0_dp
    else if (f < 100.0_dp) then
       v = 15.0_dp + 5.0_dp * (f - 50.0_dp) / 50.0_dp
    else
       v = 20.0_dp
    end if
  end function limit_curve

  subroutine trace_metrics(trace, ppv, fdom)
    real(sp), intent(in) :: trace(nsamp)
    real(dp), intent(out) :: ppv, fdom
    complex(dp) :: spec(nsamp)
    real(dp) :: pmax, p
    integer :: k, kmax
    ppv = maxval(abs(real(trace, dp)))
    spec = cmplx(real(trace, dp), 0.0_dp, dp)
    call fft(spec)
    pmax = -1.0_dp
    kmax = 2
    do k = 3, nsamp / 2            ! ignore < 0.5 Hz
       p = real(spec(k))**2 + aimag(spec(k))**2
       if (p > pmax) then
          pmax = p
          kmax = k
       end if
    end do
    fdom = (kmax - 1) * fs / nsamp
  end subroutine trace_metrics

  subroutine analyse_by_station(nex)
    integer, intent(out) :: nex
    real(sp) :: trace(nsamp), vec(nsamp)
    type(result_t) :: res
    real(dp) :: ppv, fdom, d, w
    integer :: uw, ur, ios, rlw, rlr, b, s, c, nrec
    inquire(iolength=rlw) trace
    inquire(iolength=rlr) res
    open(newunit=uw, file=path('waveforms.da'), access='direct', form='unformatted', recl=rlw, &
         status='old', action='read', iostat=ios)
    call check(ios, 'reopen waveforms.da')
    open(newunit=ur, file=path('ppv_results.da'), access='direct', form='unformatted', recl=rlr, &
         status='replace', action='write', iostat=ios)
    call check(ios, 'open ppv_results.da')
    nex = 0
    nrec = 0
    do s = 1, nsta
       do b = 1, nblast
          vec = 0.0_sp
          d = hypot(sta_x(s) - blasts(b)%x, sta_y(s) - blasts(b)%y)
          w = maxval(blasts(b)%charge(1:blasts(b)%nhole))
          do c = 1, ncomp + 1
             if (c <= ncomp) then
                read(uw, rec=rec_index(b, s, c), iostat=ios) trace
                call check(ios, 'read waveform record')
                vec = vec + trace**2
                call trace_metrics(trace, ppv, fdom)
             else
                vec = sqrt(vec)
                ppv = maxval(vec)
                fdom = 0.0_dp
             end if
             res%blast = b
             res%sta = s
             res%comp = c
             res%ppv = real(ppv, sp)
             res%freq = real(fdom, sp)
             res%dist = real(d, sp)
             res%sd = real(d / sqrt(w), sp)
             if (c <= ncomp) then
                res%ratio_limit = real(ppv / limit_curve(fdom), sp)
                if (res%ratio_limit > 0.5_sp) nex = nex + 1
             else
                res%ratio_limit = 0.0_sp
             end if
             nrec = nrec + 1
             write(ur, rec=nrec, iostat=ios) res
             call check(ios, 'write ppv record')
          end do
       end do
    end do
    close(uw, iostat=ios)
    call check(ios, 'close waveforms.da')
    close(ur, iostat=ios)
    call check(ios, 'close ppv_results.da')
  end subroutine analyse_by_station

  ! Least-squares fit of log10(PPV_vector) = log10(K) - b log10(SD) for
  ! near, mid and far station groups, reading the result file back.
  subroutine fit_site_law()
    type(result_t) :: res
    real(dp) :: sx(3), sy(3), sxx(3), sxy(3), syy(3), n(3), x, y, slope, icpt, resid
    integer :: u, ios, rl, r, g, nrec
    inquire(iolength=rl) res
    open(newunit=u, file=path('ppv_results.da'), access='direct', form='unformatted', recl=rl, &
         status='old', action='read', iostat=ios)
    call check(ios, 'reopen ppv_results.da')
    sx = 0; sy = 0; sxx = 0; sxy = 0; syy = 0; n = 0
    nrec = nblast * nsta * (ncomp + 1)
    do r = 1, nrec
       read(u, rec=r, iostat=ios) res
       call check(ios, 'read ppv record')
       if (res%comp /= ncomp + 1) cycle
       g = min(3, 1 + (res%sta - 1) / 4)
       x = log10(real(res%sd, dp))
       y = log10(real(res%ppv, dp))
       sx(g) = sx(g) + x; sy(g) = sy(g) + y
       sxx(g) = sxx(g) + x * x; sxy(g) = sxy(g) + x * y; syy(g) = syy(g) + y * y
       n(g) = n(g) + 1
    end do
    close(u, iostat=ios)
    call check(ios, 'close ppv_results.da')
    do g = 1, 3
       slope = (n(g) * sxy(g) - sx(g) * sy(g)) / (n(g) * sxx(g) - sx(g)**2)
       icpt = (sy(g) - slope * sx(g)) / n(g)
       site_k(g) = 10.0_dp**icpt
       site_b(g) = -slope
       resid = syy(g) - icpt * sy(g) - slope * sxy(g)
       site_sig(g) = sqrt(max(resid, 0.0_dp) / max(n(g) - 2.0_dp, 1.0_dp))
       site_r2(g) = 1.0_dp - resid / max(syy(g) - sy(g)**2 / n(g), 1.0e-30_dp)
    end do
  end subroutine fit_site_law

  ! Formatted outputs: per-blast maxima (reads headers and results back),
  ! per-station compliance, and the maximum instantaneous charge allowed at
  ! each station for a 95% non-exceedance of 5 mm/s.
  subroutine compliance_report()
    type(result_t) :: res
    type(blast_t) :: bh
    real(dp) :: maxppv(nblast), maxratio(nblast), stamax(nsta), mic, sdlim
    integer :: maxsta(nblast), nover(nsta)
    integer :: uh, ur, ut, ios, rlh, rlr, r, b, s, g, nrec
    inquire(iolength=rlh) bh
    inquire(iolength=rlr) res
    open(newunit=uh, file=path('blast_headers.da'), access='direct', form='unformatted', recl=rlh, &
         status='old', action='read', iostat=ios)
    call check(ios, 'reopen blast_headers.da')
    open(newunit=ur, file=path('ppv_results.da'), access='direct', form='unformatted', recl=rlr, &
         status='old', action='read', iostat=ios)
    call check(ios, 'reopen ppv_results.da')
    maxppv = 0; maxratio = 0; maxsta = 0; stamax = 0; nover = 0
    nrec = nblast * nsta * (ncomp + 1)
    do r = 1, nrec
       read(ur, rec=r, iostat=ios) res
       call check(ios, 'read ppv record')
       if (res%comp == ncomp + 1) then
          if (res%ppv > maxppv(res%blast)) then
             maxppv(res%blast) = res%ppv
             maxsta(res%blast) = res%sta
          end if
          stamax(res%sta) = max(stamax(res%sta), real(res%ppv, dp))
       else
          maxratio(res%blast) = max(maxratio(res%blast), real(res%ratio_limit, dp))
          if (res%ratio_limit > 1.0_sp) nover(res%sta) = nover(res%sta) + 1
       end if
    end do
    close(ur, iostat=ios)
    call check(ios, 'close ppv_results.da')

    open(newunit=ut, file=path('blast_compliance.txt'), status='replace', action='write', iostat=ios)
    call check(ios, 'open blast_compliance.txt')
    write(ut,'(a)') ' blast  day holes  charge_kg  max_kg  max_PPV_mm/s  station     max_ratio'
    do b = 1, nblast
       read(uh, rec=b, iostat=ios) bh
       call check(ios, 'read blast header')
       write(ut,'(i6,i5,i6,f11.1,f8.1,f14.3,2x,a10,f10.3)', iostat=ios) bh%id, bh%day, bh%nhole, &
            sum(bh%charge(1:bh%nhole)), maxval(bh%charge(1:bh%nhole)), maxppv(b), sta_name(max(1, maxsta(b))), &
            maxratio(b)
       call check(ios, 'write blast_compliance.txt')
    end do
    write(ut,'(/,a)') ' station    x_m       y_m     max_PPV  over_limit  MIC_kg(5mm/s,95%)'
    do s = 1, nsta
       g = min(3, 1 + (s - 1) / 4)
       ! scaled distance at which the 95% bound reaches 5 mm/s
       sdlim = (site_k(g) * 10.0_dp**(1.645_dp * site_sig(g)) / 5.0_dp)**(1.0_dp / site_b(g))
       mic = (hypot(sta_x(s), sta_y(s)) / sdlim)**2
       write(ut,'(1x,a10,2f10.1,f10.3,i10,f14.1)', iostat=ios) sta_name(s), sta_x(s), sta_y(s), stamax(s), &
            nover(s), mic
       call check(ios, 'write blast_compliance.txt')
    end do
    write(ut,'(/,a)') ' group        K          b      sigma_log     r2'
    do g = 1, 3
       write(ut,'(i6,f12.2,f10.3,f12.4,f10.4)', iostat=ios) g, site_k(g), site_b(g), site_sig(g), site_r2(g)
       call check(ios, 'write blast_compliance.txt')
    end do
    close(ut, iostat=ios)
    call check(ios, 'close blast_compliance.txt')
    close(uh, iostat=ios)
    call check(ios, 'close blast_headers.da')
  end subroutine compliance_report

end program quarry_blast_ppv_direct
