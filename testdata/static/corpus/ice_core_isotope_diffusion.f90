! ice_core_isotope_diffusion.f90
!
! Water-isotope diffusion in a polar firn/ice column and its use to
! recover site conditions from a measured core.
!
!  1. A monthly d18O/dD precipitation series is generated and written as
!     yearly records to an unformatted SEQUENTIAL file, then read back.
!  2. For a grid of 16 (temperature, accumulation) scenarios the depth-age
!     scale (Herron-Langway densification, Nye thinning), the diffusion
!     length sigma(z) and the diffused 0.5 cm isotope profiles are computed
!     and appended to one ACCESS='STREAM' file whose header offset table is
!     patched with POS= at the end.
!  3. A "measured" core from a hidden site is cut into 1 m sections and
!     written in shuffled laboratory order to a DIRECT-access file.
!  4. Analysis reads the sections back by record number in depth order,
!     estimates diffusion lengths from windowed power spectra, reads the
!     matching windows of every scenario with positioned stream reads to
!     find the best site match, back-diffuses the core (Wiener filter),
!     counts annual layers, and writes the restored profile (unformatted
!     sequential) and a formatted summary.
!
! usage: ice_core_isotope_diffusion OUTDIR
program ice_core_isotope_diffusion
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64
  implicit none
  integer, parameter :: dp = real64
  integer, parameter :: nyears = 2600, nmon = 12 * nyears
  integer, parameter :: nz = 60000                 ! 300 m at 0.5 cm
  real(dp), parameter :: dz = 0.005_dp
  integer, parameter :: nt = 4, na = 4, nscen = nt * na
  integer, parameter :: nsec = 300, nper = 200     ! 1 m sections of 200 samples
  integer, parameter :: nfft = 2048, nwin = 28
  real(dp), parameter :: rho_i = 0.917_dp, rho_s = 0.35_dp, rgas = 8.314_dp
  real(dp), parameter :: h_ice = 2600.0_dp, yr = 3.15576e7_dp
  real(dp), parameter :: pi = 3.141592653589793_dp
  integer(int32), parameter :: magic = 1162822473_int32   ! 'ICE1'

  character(len=512) :: outdir
  real(dp), allocatable :: d18m(:), dDm(:)                ! monthly precipitation isotopes
  real(dp), allocatable :: age(:), sig(:), p18(:), pD(:)
  real(dp), allocatable :: core18(:), coreD(:)
  logical, allocatable :: valid(:)
  real(dp) :: scen_t(nscen), scen_a(nscen)
  integer(int64) :: scen_off(nscen)
  real(dp) :: sig18_meas(nwin), sigD_meas(nwin), zwin(nwin)
  integer :: jlo(nwin), jhi(nwin)
  real(dp) :: misfit(nscen)
  integer(int64) :: rng_state
  integer :: best, nlayers
  real(dp) :: true_t, true_a, years_span

  if (command_argument_count() /= 1) then
     write(*,'(A)') 'usage: ice_core_isotope_diffusion OUTDIR'
     stop 2
  end if
  call get_command_argument(1, outdir)
  rng_state = 88172645463325252_int64

  allocate(d18m(nmon), dDm(nmon), age(nz), sig(nz), p18(nz), pD(nz))
  allocate(core18(nz), coreD(nz), valid(nz))

  call generate_climate()
  call read_climate()
  call build_scenarios()
  true_t = 244.3_dp
  true_a = 0.212_dp
  call measure_core(true_t, true_a)
  call assemble_core()
  call measured_diffusion_lengths()
  call match_scenarios(best)
  call backdiffuse_and_count(best, nlayers, years_span)
  call write_summary(best, nlayers, years_span)

  write(*,'(A,I0,A,I0,A)') 'ice_core_isotope_diffusion: ', nscen, ' scenarios, ', nsec, ' core sections'
  write(*,'(A,F7.2,A,F6.3,A,F7.2,A,F6.3)') '  best match T=', scen_t(best), ' K A=', scen_a(best), &
       '   (true T=', true_t, ' A=', true_a
  write(*,'(A,F6.3,A,F6.3,A)') '  sigma18 at 75 m ', sig18_meas(8) * 100, ' cm, sigmaD ', &
       sigD_meas(8) * 100, ' cm'
  write(*,'(A,I0,A,F8.1,A)') '  annual layers counted ', nlayers, ' vs ', years_span, ' years in model'

contains

  subroutine check(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
       write(*,'(A,A,A,I0)') 'I/O error: ', what, ' iostat=', ios
       stop 1
    end if
  end subroutine check

  function urand() result(u)
    real(dp) :: u
    rng_state = ieor(rng_state, ishft(rng_state, 13))
    rng_state = ieor(rng_state, ishft(rng_state, -7))
    rng_state = ieor(rng_state, ishft(rng_state, 17))
    u = real(ishft(rng_state, -11), dp) * 2.0_dp**(-53)
  end function urand

  function nrand() result(g)
    real(dp) :: g, u1, u2
    u1 = max(urand(), 1.0e-300_dp)
    u2 = urand()
    g = sqrt(-2.0_dp * log(u1)) * cos(2.0_dp * pi * u2)
  end function nrand

  ! Monthly precipitation-weighted isotopes: seasonal cycle, AR(1) weather
  ! noise, centennial variability and a few abrupt events.
  subroutine generate_climate()
    integer :: u, ios, y, m
    real(dp) :: ar, base, seas, d18(12), dD(12), accan
    open(newunit=u, file=trim(outdir)//'/climate_monthly.seq', form='unformatted', &
         access='sequential', status='replace', action='write', iostat=ios)
    call check(ios, 'open climate_monthly.seq')
    ar = 0.0_dp
    do y = 1, nyears
       base = -34.0_dp + 1.2_dp * sin(2.0_dp * pi * y / 210.0_dp) + 0.7_dp * sin(2.0_dp * pi * y / 87.0_dp)
       if (mod(y, 640) > 600) base = base - 2.5_dp
       accan = 1.0_dp + 0.08_dp * nrand()
       do m = 1, 12
          seas = 5.5_dp * cos(2.0_dp * pi * (m - 7.0_dp) / 12.0_dp)
          ar = 0.6_dp * ar + 1.1_dp * nrand()
          d18(m) = base + seas + ar
          dD(m) = 8.0_dp * d18(m) + 9.0_dp + 3.0_dp * cos(2.0_dp * pi * (m - 1.0_dp) / 12.0_dp)
       end do
       write(u, iostat=ios) y, d18, dD, accan
       call check(ios, 'write climate record')
    end do
    close(u, iostat=ios)
    call check(ios, 'close climate_monthly.seq')
  end subroutine generate_climate

  subroutine read_climate()
    integer :: u, ios, y, yy
    real(dp) :: d18(12), dD(12), accan
    open(newunit=u, file=trim(outdir)//'/climate_monthly.seq', form='unformatted', &
         access='sequential', status='old', action='read', iostat=ios)
    call check(ios, 'reopen climate_monthly.seq')
    do y = 1, nyears
       read(u, iostat=ios) yy, d18, dD, accan
       call check(ios, 'read climate record')
       if (yy /= y) then
          write(*,'(A)') 'climate file out of order'
          stop 1
       end if
       d18m(12*(y-1)+1 : 12*y) = d18
       dDm(12*(y-1)+1 : 12*y) = dD
    end do
    close(u, iostat=ios)
    call check(ios, 'close climate_monthly.seq')
  end subroutine read_climate

  ! Herron-Langway density, depth-age with Nye thinning and the
  ! diffusion length integrated along the burial path.
  subroutine site_model(tk, acc, zclose)
    real(dp), intent(in) :: tk, acc
    real(dp), intent(out) :: zclose
    real(dp) :: k0, k1, z55, z, rho, rho_prev, zie, thin, dt, dsurf, dfirn, dice
    real(dp) :: s2_18, s2_d, drho_dt, eps, l0
    integer :: i
    real(dp), save :: s2d(nz)
    k0 = 11.0_dp * exp(-10160.0_dp / (rgas * tk))
    k1 = 575.0_dp * exp(-21400.0_dp / (rgas * tk))
    l0 = log(rho_s / (rho_i - rho_s))
    z55 = (log(0.55_dp / (rho_i - 0.55_dp)) - l0) / (rho_i * k0)
    dsurf = 2.0e-12_dp * exp(-6000.0_dp * (1.0_dp / tk - 1.0_dp / 243.0_dp))
    dice = 9.2e-4_dp * exp(-7186.0_dp / tk)
    zie = 0.0_dp
    age(1) = 0.0_dp
    s2_18 = 0.0_dp; s2_d = 0.0_dp
    rho_prev = rho_s
    zclose = -1.0_dp
    do i = 1, nz
       z = (i - 1) * dz
       if (z < z55) then
          rho = rho_i / (1.0_dp + exp(-(rho_i * k0 * z + l0)))
       else
          rho = rho_i / (1.0_dp + exp(-(rho_i * k1 * (z - z55) / sqrt(acc) + log(0.55_dp / (rho_i - 0.55_dp)))))
       end if
       thin = max(0.05_dp, 1.0_dp - zie / h_ice)
       dt = (rho / rho_i) * dz / (acc * thin)          ! years for this sample
       if (i > 1) age(i) = age(i-1) + dt
       zie = zie + dz * rho / rho_i
       drho_dt = (rho - rho_prev) / max(dt, 1.0e-12_dp)
       eps = -drho_dt / rho - acc / h_ice             ! vertical strain rate, 1/yr
       if (rho < 0.815_dp) then
          dfirn = dsurf * (1.0_dp / rho - 1.0_dp / rho_i) / (1.0_dp / rho_s - 1.0_dp / rho_i)
       else
          dfirn = dice
          if (zclose < 0.0_dp) zclose = z
       end if
       s2_18 = s2_18 + dt * (2.0_dp * dfirn * yr + 2.0_dp * eps * s2_18)
       s2_d  = s2_d  + dt * (2.0_dp * 0.92_dp * dfirn * yr + 2.0_dp * eps * s2_d)
       sig(i) = sqrt(max(s2_18, 0.0_dp))
       s2d(i) = sqrt(max(s2_d, 0.0_dp))
       rho_prev = rho
    end do
    ! return sigma_D through pD temporarily (consumed by forward_profile)
    pD = s2d
  end subroutine site_model

  ! Original layering mapped to depth, then Gaussian diffusion with sigma(z).
  subroutine forward_profile()
    real(dp), allocatable :: o18(:), oD(:), sgd(:)
    real(dp) :: pos, w
    integer :: i, k
    allocate(o18(nz), oD(nz), sgd(nz))
    sgd = pD
    do i = 1, nz
       pos = age(i) * 12.0_dp + 1.0_dp
       k = min(nmon - 1, max(1, int(pos)))
       w = min(1.0_dp, max(0.0_dp, pos - k))
       o18(i) = (1.0_dp - w) * d18m(k) + w * d18m(k + 1)
       oD(i) = (1.0_dp - w) * dDm(k) + w * dDm(k + 1)
    end do
    call gauss_smooth(o18, sig, p18)
    call gauss_smooth(oD, sgd, pD)
    deallocate(o18, oD, sgd)
  end subroutine forward_profile

  ! Depth-variable Gaussian smoothing; kernel weights by the recurrence
  ! w(m+1) = w(m) * r * q**m with r = exp(-a), q = exp(-2a), a = dz^2/(2 s^2).
  subroutine gauss_smooth(src, sg, dst)
    real(dp), intent(in) :: src(nz), sg(nz)
    real(dp), intent(out) :: dst(nz)
    real(dp) :: s, a, r, q, w, wsum, acc
    integer :: i, m, half
    do i = 1, nz
       s = max(sg(i), 0.25_dp * dz)
       half = min(400, int(4.0_dp * s / dz) + 1)
       a = 0.5_dp * (dz / s)**2
       r = exp(-a)
       q = exp(-2.0_dp * a)
       w = 1.0_dp
       wsum = 1.0_dp
       acc = src(i)
       do m = 1, half
          w = w * r
          r = r * q
          if (i - m >= 1) then
             acc = acc + w * src(i - m)
             wsum = wsum + w
          end if
          if (i + m <= nz) then
             acc = acc + w * src(i + m)
             wsum = wsum + w
          end if
       end do
       dst(i) = acc / wsum
    end do
  end subroutine gauss_smooth

  ! All scenarios into one stream file; offsets patched into the header.
  subroutine build_scenarios()
    integer :: u, ios, it, ia, s
    integer(int64) :: p
    real(dp) :: zc
    open(newunit=u, file=trim(outdir)//'/scenarios.stream', access='stream', form='unformatted', &
         status='replace', action='readwrite', iostat=ios)
    call check(ios, 'open scenarios.stream')
    scen_off = 0
    write(u, iostat=ios) magic, int(nscen, int32), int(nz, int32), dz, scen_off
    call check(ios, 'write stream header')
    s = 0
    do it = 1, nt
       do ia = 1, na
          s = s + 1
          scen_t(s) = 236.0_dp + 5.0_dp * (it - 1)
          scen_a(s) = 0.12_dp + 0.06_dp * (ia - 1)
          call site_model(scen_t(s), scen_a(s), zc)
          call forward_profile()
          inquire(unit=u, pos=p)
          scen_off(s) = p
          write(u, iostat=ios) scen_t(s), scen_a(s), zc, sig(nz)
          call check(ios, 'write scenario params')
          write(u, iostat=ios) age, sig, p18, pD
          call check(ios, 'write scenario arrays')
       end do
    end do
    write(u, pos=21, iostat=ios) scen_off
    call check(ios, 'patch offset table')
    close(u, iostat=ios)
    call check(ios, 'close scenarios.stream')
  end subroutine build_scenarios

  ! Hidden site, measurement noise, 1 m sections in shuffled lab order.
  subroutine measure_core(tk, acc)
    real(dp), intent(in) :: tk, acc
    integer :: u, ios, reclen, isec, k, j, i0, perm(nsec), tmp, nvalid
    real(dp) :: zc, ztop, s18(nper), sD(nper)
    call site_model(tk, acc, zc)
    call forward_profile()
    inquire(iolength=reclen) isec, ztop, nvalid, s18, sD
    open(newunit=u, file=trim(outdir)//'/core_sections.da', access='direct', form='unformatted', &
         recl=reclen, status='replace', action='write', iostat=ios)
    call check(ios, 'open core_sections.da')
    do k = 1, nsec
       perm(k) = k
    end do
    do k = nsec, 2, -1
       j = 1 + int(urand() * k)
       tmp = perm(k); perm(k) = perm(j); perm(j) = tmp
    end do
    do k = 1, nsec
       isec = perm(k)
       i0 = (isec - 1) * nper
       ztop = i0 * dz
       nvalid = nper
       if (isec == 57 .or. isec == 181 .or. isec == 182) nvalid = 0   ! brittle-ice losses
       do j = 1, nper
          s18(j) = p18(i0 + j) + 0.07_dp * nrand()
          sD(j) = pD(i0 + j) + 0.5_dp * nrand()
       end do
       write(u, rec=isec, iostat=ios) isec, ztop, nvalid, s18, sD
       call check(ios, 'write core section')
    end do
    close(u, iostat=ios)
    call check(ios, 'close core_sections.da')
  end subroutine measure_core

  subroutine assemble_core()
    integer :: u, ios, reclen, isec, k, i0, nvalid
    real(dp) :: ztop, s18(nper), sD(nper)
    inquire(iolength=reclen) isec, ztop, nvalid, s18, sD
    open(newunit=u, file=trim(outdir)//'/core_sections.da', access='direct', form='unformatted', &
         recl=reclen, status='old', action='read', iostat=ios)
    call check(ios, 'reopen core_sections.da')
    do k = 1, nsec
       read(u, rec=k, iostat=ios) isec, ztop, nvalid, s18, sD
       call check(ios, 'read core section')
       if (isec /= k) then
          write(*,'(A,I0)') 'section mismatch at record ', k
          stop 1
       end if
       i0 = (k - 1) * nper
       core18(i0+1:i0+nper) = s18
       coreD(i0+1:i0+nper) = sD
       valid(i0+1:i0+nper) = nvalid == nper
    end do
    close(u, iostat=ios)
    call check(ios, 'close core_sections.da')
    ! bridge lost sections by linear interpolation
    call fill_gaps(core18)
    call fill_gaps(coreD)
  end subroutine assemble_core

  subroutine fill_gaps(x)
    real(dp), intent(inout) :: x(nz)
    integer :: i, a, b, j
    i = 1
    do while (i <= nz)
       if (.not. valid(i)) then
          a = i - 1
          b = i
          do while (b <= nz)
             if (valid(b)) exit
             b = b + 1
          end do
          do j = i, min(b, nz + 1) - 1
             if (a >= 1 .and. b <= nz) then
                x(j) = x(a) + (x(b) - x(a)) * real(j - a, dp) / real(b - a, dp)
             else if (a >= 1) then
                x(j) = x(a)
             else
                x(j) = x(b)
             end if
          end do
          i = b
       else
          i = i + 1
       end if
    end do
  end subroutine fill_gaps

  ! In-place iterative radix-2 complex FFT (isign = -1 forward, +1 inverse).
  subroutine fft(c, isign)
    complex(dp), intent(inout) :: c(nfft)
    integer, intent(in) :: isign
    integer :: i, j, m, len, half, k
    complex(dp) :: w, wl, t
    j = 1
    do i = 1, nfft
       if (i < j) then
          t = c(i); c(i) = c(j); c(j) = t
       end if
       m = nfft / 2
       do while (m >= 1 .and. j > m)
          j = j - m
          m = m / 2
       end do
       j = j + m
    end do
    len = 2
    do while (len <= nfft)
       half = len / 2
       wl = cmplx(cos(2.0_dp * pi / len), isign * sin(2.0_dp * pi / len), dp)
       do i = 1, nfft, len
          w = (1.0_dp, 0.0_dp)
          do k = 0, half - 1
             t = w * c(i + k + half)
             c(i + k + half) = c(i + k) - t
             c(i + k) = c(i + k) + t
             w = w * wl
          end do
       end do
       len = len * 2
    end do
  end subroutine fft

  subroutine window_psd(x, psd)
    real(dp), intent(in) :: x(nfft)
    real(dp), intent(out) :: psd(0:nfft/2)
    complex(dp) :: c(nfft)
    real(dp) :: mean, slope, xm, hann
    integer :: i
    mean = sum(x) / nfft
    xm = (nfft + 1) / 2.0_dp
    slope = 0.0_dp
    do i = 1, nfft
       slope = slope + (i - xm) * (x(i) - mean)
    end do
    slope = slope / (real(nfft, dp) * (real(nfft, dp)**2 - 1.0_dp) / 12.0_dp)
    do i = 1, nfft
       hann = 0.5_dp - 0.5_dp * cos(2.0_dp * pi * (i - 1) / (nfft - 1))
       c(i) = cmplx((x(i) - mean - slope * (i - xm)) * hann, 0.0_dp, dp)
    end do
    call fft(c, -1)
    do i = 0, nfft / 2
       psd(i) = abs(c(i + 1))**2 * dz / nfft
    end do
  end subroutine window_psd

  ! Fit ln(P - noise) = a - k^2 sigma^2 over [j1, j2].
  function fit_sigma(psd, noise, j1, j2) result(s)
    real(dp), intent(in) :: psd(0:nfft/2), noise
    integer, intent(in) :: j1, j2
    real(dp) :: s, k2, y, sx, sy, sxx, sxy, n, slope
    integer :: j
    sx = 0; sy = 0; sxx = 0; sxy = 0; n = 0
    do j = j1, j2
       if (psd(j) - noise <= 0.0_dp) cycle
       k2 = (2.0_dp * pi * j / (nfft * dz))**2
       y = log(psd(j) - noise)
       sx = sx + k2; sy = sy + y; sxx = sxx + k2 * k2; sxy = sxy + k2 * y; n = n + 1
    end do
    if (n < 3) then
       s = 0.0_dp
       return
    end if
    slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    s = sqrt(max(0.0_dp, -slope))
  end function fit_sigma

  subroutine measured_diffusion_lengths()
    real(dp) :: psd(0:nfft/2), noise
    integer :: w, i0, j
    do w = 1, nwin
       i0 = 1 + (w - 1) * 2000 + 500
       zwin(w) = (i0 - 1 + nfft / 2) * dz
       call window_psd(core18(i0:i0+nfft-1), psd)
       noise = sum(psd(int(0.8 * nfft / 2):nfft/2)) / (nfft / 2 - int(0.8 * nfft / 2) + 1)
       jlo(w) = 6
       jhi(w) = jlo(w)
       do j = jlo(w), nfft / 2
          if (psd(j) < 4.0_dp * noise) exit
          jhi(w) = j
       end do
       jhi(w) = max(jhi(w), jlo(w) + 8)
       sig18_meas(w) = fit_sigma(psd, noise, jlo(w), jhi(w))
       call window_psd(coreD(i0:i0+nfft-1), psd)
       noise = sum(psd(int(0.8 * nfft / 2):nfft/2)) / (nfft / 2 - int(0.8 * nfft / 2) + 1)
       sigD_meas(w) = fit_sigma(psd, noise, jlo(w), jhi(w))
    end do
  end subroutine measured_diffusion_lengths

  ! Positioned stream reads of each scenario's d18O windows.
  subroutine match_scenarios(ibest)
    integer, intent(out) :: ibest
    integer :: u, ios, s, w, i0
    integer(int32) :: mg, ns, nzz
    real(dp) :: dzz, x(nfft), psd(0:nfft/2), sg
    integer(int64) :: offs(nscen), p
    open(newunit=u, file=trim(outdir)//'/scenarios.stream', access='stream', form='unformatted', &
         status='old', action='read', iostat=ios)
    call check(ios, 'reopen scenarios.stream')
    read(u, pos=1, iostat=ios) mg, ns, nzz, dzz, offs
    call check(ios, 'read stream header')
    if (mg /= magic .or. ns /= nscen .or. nzz /= nz) then
       write(*,'(A)') 'bad scenarios.stream header'
       stop 1
    end if
    do s = 1, nscen
       misfit(s) = 0.0_dp
       do w = 1, nwin
          ! windows where the measured spectrum gave no usable fit are skipped
          if (sig18_meas(w) <= 0.0_dp .or. sig18_meas(w) > 0.15_dp) cycle
          i0 = 1 + (w - 1) * 2000 + 500
          ! block layout: 4 params, then age, sigma, d18O, dD (nz each)
          p = offs(s) + 32_int64 + 8_int64 * (2_int64 * nz + (i0 - 1))
          read(u, pos=p, iostat=ios) x
          call check(ios, 'read scenario window')
          ! the scenario profiles are noise-free: add the lab noise level
          do i0 = 1, nfft
             x(i0) = x(i0) + 0.07_dp * nrand()
          end do
          call window_psd(x, psd)
          sg = fit_sigma(psd, sum(psd(int(0.8 * nfft / 2):nfft/2)) / (nfft / 2 - int(0.8 * nfft / 2) + 1), &
                         jlo(w), jhi(w))
          misfit(s) = misfit(s) + (sg - sig18_meas(w))**2
       end do
    end do
    ibest = minloc(misfit, dim=1)
    ! keep the best scenario's age scale for layer counting
    p = offs(ibest) + 32_int64
    read(u, pos=p, iostat=ios) age
    call check(ios, 'read best age scale')
    read(u, iostat=ios) sig
    call check(ios, 'read best sigma')
    close(u, iostat=ios)
    call check(ios, 'close scenarios.stream')
  end subroutine match_scenarios

  ! Wiener back-diffusion per window, annual peak counting, restored profile out.
  subroutine backdiffuse_and_count(ibest, nl, span)
    integer, intent(in) :: ibest
    integer, intent(out) :: nl
    real(dp), intent(out) :: span
    complex(dp) :: c(nfft)
    real(dp) :: r(nfft), psd(0:nfft/2), noise, g, k, snr, s, mean
    integer :: u, ios, w, i0, j, i, last, mingap, core_lo, core_hi
    open(newunit=u, file=trim(outdir)//'/backdiffused.seq', form='unformatted', access='sequential', &
         status='replace', action='write', iostat=ios)
    call check(ios, 'open backdiffused.seq')
    nl = 0
    span = 0.0_dp
    do w = 1, nwin
       i0 = 1 + (w - 1) * 2000 + 500
       call window_psd(core18(i0:i0+nfft-1), psd)
       noise = sum(psd(int(0.8 * nfft / 2):nfft/2)) / (nfft / 2 - int(0.8 * nfft / 2) + 1)
       s = sig18_meas(w)
       mean = sum(core18(i0:i0+nfft-1)) / nfft
       do i = 1, nfft
          c(i) = cmplx(core18(i0 + i - 1) - mean, 0.0_dp, dp)
       end do
       call fft(c, -1)
       do j = 0, nfft - 1
          k = 2.0_dp * pi * min(j, nfft - j) / (nfft * dz)
          g = exp(-0.5_dp * k * k * s * s)
          snr = max(psd(min(j, nfft - j)) - noise, 0.0_dp) / noise
          if (snr > 0.5_dp) then
             c(j + 1) = c(j + 1) * g / (g * g + 1.0_dp / snr)
          else
             c(j + 1) = (0.0_dp, 0.0_dp)
          end if
       end do
       call fft(c, +1)
       r = real(c, dp) / nfft + mean
       write(u, iostat=ios) w, zwin(w), s, r
       call check(ios, 'write restored window')
       ! count maxima in the central 2000 samples (windows overlap by 48)
       core_lo = 25; core_hi = 2024
       ! expected annual layer thickness from the matched depth-age scale
       mingap = max(4, int(0.45_dp * (core_hi - core_lo) / max(1.0_dp, &
                age(i0 + core_hi - 1) - age(i0 + core_lo - 1))))
       last = -10000
       do i = core_lo, core_hi
          if (r(i) > r(i-1) .and. r(i) >= r(i+1) .and. r(i) > mean .and. i - last >= mingap) then
             nl = nl + 1
             last = i
          end if
       end do
       span = span + age(i0 + core_hi - 1) - age(i0 + core_lo - 1)
    end do
    close(u, iostat=ios)
    call check(ios, 'close backdiffused.seq')
    if (ibest < 1) stop 1
  end subroutine backdiffuse_and_count

  subroutine write_summary(ibest, nl, span)
    integer, intent(in) :: ibest, nl
    real(dp), intent(in) :: span
    integer :: u, ios, w, s
    open(newunit=u, file=trim(outdir)//'/summary.txt', status='replace', action='write', &
         form='formatted', iostat=ios)
    call check(ios, 'open summary.txt')
    write(u,'(A)') '# ice-core isotope diffusion analysis'
    write(u,'(A,I3,A,F7.2,A,F6.3)') 'best scenario ', ibest, '  T(K)=', scen_t(ibest), '  A(m ie/yr)=', scen_a(ibest)
    write(u,'(A,I6,A,F9.1)') 'annual layers counted ', nl, '   model years in windows ', span
    write(u,'(A)') '#  depth_m  sigma18_cm  sigmaD_cm  s18^2-sD^2_cm2  model_sigma18_cm  age_yr'
    do w = 1, nwin
       write(u,'(F9.2,2F11.3,F14.3,F16.3,F10.1)', iostat=ios) zwin(w), 100 * sig18_meas(w), 100 * sigD_meas(w), &
            1.0e4_dp * (sig18_meas(w)**2 - sigD_meas(w)**2), 100 * sig(nint(zwin(w) / dz) + 1), &
            age(nint(zwin(w) / dz) + 1)
       call check(ios, 'write summary row')
    end do
    write(u,'(A)') '# scenario misfits'
    do s = 1, nscen
       write(u,'(I4,F8.2,F7.3,ES14.5)', iostat=ios) s, scen_t(s), scen_a(s), misfit(s)
       call check(ios, 'write misfit row')
    end do
    close(u, iostat=ios)
    call check(ios, 'close summary.txt')
  end subroutine write_summary

end program ice_core_isotope_diffusion
