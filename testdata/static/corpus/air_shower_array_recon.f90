! air_shower_array_recon.f90
! Ultra-high-energy cosmic-ray air showers seen by a surface detector array
! (square grid of water-Cherenkov stations, 1 km spacing).
!
! Simulation: primaries (proton or iron) are drawn from an E^-2.7 spectrum
! with isotropic arrival directions; a Gaisser-Hillas longitudinal profile is
! computed for each shower and written as an unformatted SEQUENTIAL record;
! every triggered station gets a 64-bin FADC trace from an NKG-like lateral
! distribution with a distance-dependent time spread, and the event (header +
! station traces) is appended to an ACCESS='STREAM' file whose byte offsets
! are recorded with INQUIRE(POS=).
! Reconstruction: each event is re-read from its stream offset, traces are
! integrated, a plane shower front is fitted to the start times and a lateral
! distribution fit gives S(1000); results go to an unformatted DIRECT-access
! file (one record per event).  Finally the direct-access file is read in
! energy order for a spectrum and the profile file is re-read sequentially to
! measure Xmax per energy decade.
module shower_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nevents = 3000
  integer, parameter :: ngrid = 48
  real(dp), parameter :: spacing = 1000.0_dp          ! m
  integer, parameter :: nbin = 128                     ! FADC bins (25 ns)
  integer, parameter :: nx = 480                       ! profile depth bins
  real(dp), parameter :: dx = 2.5_dp                   ! g/cm2
  real(dp), parameter :: c_light = 0.299792458_dp      ! m/ns
  real(dp), parameter :: pi = 3.14159265358979_dp
  integer, parameter :: maxsta = 200
  integer(8) :: rstate = 987654321_8

  type event_truth
    real(dp) :: lge, theta, phi, xc, yc, xmax
    integer :: mass
  end type event_truth

  type recon_rec
    integer :: id, nsta, mass
    real(dp) :: lge_true, lge_rec, theta_true, theta_rec, phi_rec, s1000, xmax_true, chi2
  end type recon_rec
contains

  real(dp) function urand()
    rstate = ieor(rstate, ishft(rstate, 13))
    rstate = ieor(rstate, ishft(rstate, -7))
    rstate = ieor(rstate, ishft(rstate, 17))
    urand = real(ishft(rstate, -11), dp) / 9007199254740992.0_dp
    if (urand < 0.0_dp) urand = urand + 1.0_dp
  end function urand

  real(dp) function rnorm()
    real(dp) :: u, v
    u = max(urand(), 1.0e-300_dp)
    v = urand()
    rnorm = sqrt(-2.0_dp * log(u)) * cos(2.0_dp * pi * v)
  end function rnorm

  subroutine sample_primary(ev)
    type(event_truth), intent(out) :: ev
    real(dp) :: u, e
    ! E^-2.7 between 10^18.5 and 10^20 eV, by inversion
    u = urand()
    e = (10.0_dp**(18.5_dp * (-1.7_dp)) - u * (10.0_dp**(18.5_dp * (-1.7_dp)) - 10.0_dp**(20.0_dp * (-1.7_dp)))) &
        ** (-1.0_dp / 1.7_dp)
    ev%lge = log10(e)
    ev%theta = acos(sqrt(1.0_dp - urand() * (1.0_dp - cos(1.05_dp)**2)))   ! sin*cos weighting up to 60 deg
    ev%phi = 2.0_dp * pi * urand()
    ev%xc = spacing * (5.0_dp + (ngrid - 11) * urand())
    ev%yc = spacing * (5.0_dp + (ngrid - 11) * urand())
    if (urand() < 0.6_dp) then
      ev%mass = 1
      ev%xmax = 750.0_dp + 58.0_dp * (ev%lge - 18.5_dp) + 50.0_dp * log(max(urand(), 1.0e-12_dp)) * (-0.9_dp) - 45.0_dp
    else
      ev%mass = 56
      ev%xmax = 680.0_dp + 58.0_dp * (ev%lge - 18.5_dp) + 20.0_dp * rnorm()
    end if
  end subroutine sample_primary

  subroutine gaisser_hillas(ev, prof)
    type(event_truth), intent(in) :: ev
    real(dp), intent(out) :: prof(nx)
    real(dp) :: nmax, x0, lam, x, arg
    integer :: i
    nmax = 10.0_dp**(ev%lge - 9.15_dp)
    x0 = -120.0_dp
    lam = 61.0_dp
    do i = 1, nx
      x = i * dx
      arg = (x - x0) / (ev%xmax - x0)
      if (arg <= 0.0_dp) then
        prof(i) = 0.0_dp
      else
        prof(i) = nmax * exp(((ev%xmax - x0) / lam) * (log(arg) + 1.0_dp - arg))
      end if
      prof(i) = prof(i) * (1.0_dp + 0.01_dp * rnorm())
    end do
  end subroutine gaisser_hillas

  ! station signals (VEM) and traces for one event; returns the triggered stations
  subroutine station_traces(ev, nsta, ids, t0, traces)
    type(event_truth), intent(in) :: ev
    integer, intent(out) :: nsta, ids(maxsta)
    real(dp), intent(out) :: t0(maxsta)
    real(4), intent(out) :: traces(nbin, maxsta)
    integer :: i, j, b
    real(dp) :: sx, sy, ux, uy, uz, along, r, s1000, s, tplane, spread, rise, expect, atten, sec
    ux = sin(ev%theta) * cos(ev%phi)
    uy = sin(ev%theta) * sin(ev%phi)
    uz = cos(ev%theta)
    sec = 1.0_dp / uz
    atten = exp(-(sec - 1.0_dp) * 1.3_dp)
    s1000 = 10.0_dp**((ev%lge - 17.3_dp) / 1.08_dp) * atten
    nsta = 0
    do j = 1, ngrid
      do i = 1, ngrid
        sx = (i - 0.5_dp) * spacing - ev%xc
        sy = (j - 0.5_dp) * spacing - ev%yc
        along = sx * ux + sy * uy
        r = sqrt(max(sx * sx + sy * sy - along * along, 1.0_dp))
        if (r > 6000.0_dp) cycle
        s = s1000 * (r / 1000.0_dp)**(-2.2_dp) * ((700.0_dp + r) / 1700.0_dp)**(-1.6_dp)
        s = s + sqrt(s) * rnorm()
        if (s < 3.0_dp .or. nsta >= maxsta) cycle
        nsta = nsta + 1
        ids(nsta) = (j - 1) * ngrid + i
        tplane = -along / c_light                                  ! ns, plane front
        spread = 10.0_dp + 0.08_dp * r * (1.0_dp + 0.3_dp * rnorm()**2)
        t0(nsta) = tplane + 0.3_dp * spread + 15.0_dp * rnorm()
        rise = max(spread / 25.0_dp, 0.4_dp)
        do b = 1, nbin
          expect = s * exp(-(b - 1) / rise) * (1.0_dp - exp(-1.0_dp / rise))
          traces(b, nsta) = real(expect + 0.05_dp * rnorm() + sqrt(max(expect, 0.0_dp) / 3.0_dp) * rnorm(), 4)
        end do
      end do
    end do
  end subroutine station_traces

  subroutine fit_plane(nsta, x, y, t, w, ux, uy, chi2)
    ! weighted least squares t*c = a - ux*x - uy*y
    integer, intent(in) :: nsta
    real(dp), intent(in) :: x(nsta), y(nsta), t(nsta), w(nsta)
    real(dp), intent(out) :: ux, uy, chi2
    real(dp) :: a(3,3), b(3), sol(3), f, ct
    integer :: k, i, j
    a = 0.0_dp; b = 0.0_dp
    do k = 1, nsta
      ct = t(k) * c_light
      a(1,1) = a(1,1) + w(k);        a(1,2) = a(1,2) - w(k) * x(k); a(1,3) = a(1,3) - w(k) * y(k)
      a(2,2) = a(2,2) + w(k) * x(k)**2; a(2,3) = a(2,3) + w(k) * x(k) * y(k)
      a(3,3) = a(3,3) + w(k) * y(k)**2
      b(1) = b(1) + w(k) * ct; b(2) = b(2) - w(k) * x(k) * ct; b(3) = b(3) - w(k) * y(k) * ct
    end do
    a(2,1) = a(1,2); a(3,1) = a(1,3); a(3,2) = a(2,3)
    ! Gaussian elimination without pivoting (matrix is SPD)
    do i = 1, 3
      do j = i + 1, 3
        f = a(j,i) / a(i,i)
        a(j,:) = a(j,:) - f * a(i,:)
        b(j) = b(j) - f * b(i)
      end do
    end do
    do i = 3, 1, -1
      sol(i) = (b(i) - sum(a(i, i+1:3) * sol(i+1:3))) / a(i,i)
    end do
    ux = sol(2); uy = sol(3)
    chi2 = 0.0_dp
    do k = 1, nsta
      chi2 = chi2 + w(k) * (t(k) * c_light - (sol(1) - ux * x(k) - uy * y(k)))**2
    end do
    chi2 = chi2 / max(nsta - 3, 1)
  end subroutine fit_plane

  subroutine fit_ldf(nsta, x, y, s, ux, uy, xc, yc, s1000)
    ! grid search of the core around the barycentre; for every trial core the
    ! fixed-shape LDF norm is the signal-weighted log mean and the quality is
    ! the weighted log-residual sum of squares
    integer, intent(in) :: nsta
    real(dp), intent(in) :: x(nsta), y(nsta), s(nsta), ux, uy
    real(dp), intent(inout) :: xc, yc
    real(dp), intent(out) :: s1000
    real(dp) :: r, along, g, sw, swl, q, best, cx, cy, bx, by, lres(nsta), lnorm, step
    integer :: k, i, j, pass, nuse
    best = huge(1.0_dp); bx = xc; by = yc; s1000 = 0.0_dp
    step = 100.0_dp
    do pass = 1, 2
      do j = -6, 6
        do i = -6, 6
          cx = bx + i * step; cy = by + j * step
          sw = 0.0_dp; swl = 0.0_dp; nuse = 0
          do k = 1, nsta
            along = (x(k) - cx) * ux + (y(k) - cy) * uy
            r = sqrt(max((x(k) - cx)**2 + (y(k) - cy)**2 - along**2, 2500.0_dp))
            g = (r / 1000.0_dp)**(-2.2_dp) * ((700.0_dp + r) / 1700.0_dp)**(-1.6_dp)
            lres(k) = log(s(k) / g)
            sw = sw + s(k)
            swl = swl + s(k) * lres(k)
          end do
          lnorm = swl / sw
          q = 0.0_dp
          do k = 1, nsta
            q = q + s(k) * (lres(k) - lnorm)**2
          end do
          if (q < best) then
            best = q; xc = cx; yc = cy; s1000 = exp(lnorm)
          end if
        end do
      end do
      bx = xc; by = yc; step = 15.0_dp
    end do
  end subroutine fit_ldf
end module shower_mod

program air_shower_array_recon
  use shower_mod
  implicit none
  character(len=512) :: dir
  type(event_truth) :: ev
  type(recon_rec) :: rec
  real(dp) :: prof(nx), t0(maxsta)
  real(4) :: traces(nbin, maxsta)
  integer :: ids(maxsta), nsta, ie, up, us, ud, ios, reclen
  integer(8) :: pos(nevents)
  integer :: ntrig

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) then
    print *, 'usage: air_shower_array_recon DIR'
    stop 2
  end if
  open(newunit=up, file=trim(dir)//'/profiles.unf', form='unformatted', access='sequential', &
       status='replace', action='write', iostat=ios)
  if (ios /= 0) error stop 'cannot open profiles.unf'
  open(newunit=us, file=trim(dir)//'/sd_events.stream', form='unformatted', access='stream', &
       status='replace', action='readwrite', iostat=ios)
  if (ios /= 0) error stop 'cannot open sd_events.stream'

  ntrig = 0
  do ie = 1, nevents
    call simulate_event(ie)
  end do
  close(up)
  print '(a,i6,a,i6)', 'events simulated:', nevents, '  triggered stations:', ntrig

  inquire(iolength=reclen) rec
  open(newunit=ud, file=trim(dir)//'/recon.da', form='unformatted', access='direct', recl=reclen, &
       status='replace', action='readwrite', iostat=ios)
  if (ios /= 0) error stop 'cannot open recon.da'
  do ie = 1, nevents
    call reconstruct(ie)
  end do
  close(us)
  call energy_spectrum()
  close(ud)
  call xmax_elongation()

contains

  subroutine simulate_event(id)
    integer, intent(in) :: id
    integer :: k
    call sample_primary(ev)
    call gaisser_hillas(ev, prof)
    write(up, iostat=ios) id, ev%lge, ev%xmax, ev%mass, prof
    if (ios /= 0) error stop 'write error on profiles.unf'
    call station_traces(ev, nsta, ids, t0, traces)
    ntrig = ntrig + nsta
    inquire(unit=us, pos=pos(id))
    write(us, iostat=ios) id, nsta, ev%lge, ev%theta, ev%phi, ev%xc, ev%yc, ev%xmax, ev%mass
    if (ios /= 0) error stop 'write error on sd_events.stream'
    do k = 1, nsta
      write(us, iostat=ios) ids(k), t0(k), traces(:, k)
      if (ios /= 0) error stop 'write error on sd_events.stream'
    end do
  end subroutine simulate_event

  subroutine reconstruct(id)
    integer, intent(in) :: id
    integer :: k, idr, n, b, bstart
    real(dp) :: lge, th, ph, xc, yc, xm, x(maxsta), y(maxsta), s(maxsta), w(maxsta), tt(maxsta)
    real(dp) :: ux, uy, chi2, s1000, uz, peak
    integer :: mass
    read(us, pos=pos(id), iostat=ios) idr, n, lge, th, ph, xc, yc, xm, mass
    if (ios /= 0 .or. idr /= id) error stop 'read error on sd_events.stream'
    do k = 1, n
      read(us, iostat=ios) ids(k), t0(k), traces(:, k)
      if (ios /= 0) error stop 'read error on sd_events.stream'
      s(k) = max(sum(real(traces(:, k), dp)), 0.1_dp)
      ! start time from the first bin above 10% of the peak
      peak = maxval(traces(:, k))
      bstart = 1
      do b = 1, nbin
        if (traces(b, k) > 0.1 * peak) then
          bstart = b
          exit
        end if
      end do
      tt(k) = t0(k) + 25.0_dp * (bstart - 1) - 0.3_dp * (10.0_dp + 0.08_dp * 1000.0_dp)
      x(k) = (mod(ids(k) - 1, ngrid) + 0.5_dp) * spacing
      y(k) = ((ids(k) - 1) / ngrid + 0.5_dp) * spacing
      w(k) = 1.0_dp / (1.0_dp + 400.0_dp / s(k))
    end do
    rec%id = id; rec%nsta = n; rec%mass = mass
    rec%lge_true = lge; rec%theta_true = th; rec%xmax_true = xm
    if (n >= 3) then
      call fit_plane(n, x, y, tt, w, ux, uy, chi2)
      uz = sqrt(max(1.0_dp - ux * ux - uy * uy, 0.01_dp))
      xc = sum(x(1:n) * s(1:n)) / sum(s(1:n))
      yc = sum(y(1:n) * s(1:n)) / sum(s(1:n))
      call fit_ldf(n, x, y, s, ux, uy, xc, yc, s1000)
      rec%theta_rec = acos(uz); rec%phi_rec = atan2(uy, ux); rec%s1000 = s1000; rec%chi2 = chi2
      ! invert the attenuation and the energy calibration
      rec%lge_rec = 17.3_dp + 1.08_dp * log10(max(s1000, 1.0e-3_dp) / exp(-(1.0_dp / uz - 1.0_dp) * 1.3_dp))
    else
      rec%theta_rec = -1.0_dp; rec%phi_rec = 0.0_dp; rec%s1000 = 0.0_dp; rec%chi2 = -1.0_dp
      rec%lge_rec = -1.0_dp
    end if
    write(ud, rec=id, iostat=ios) rec
    if (ios /= 0) error stop 'write error on recon.da'
  end subroutine reconstruct

  subroutine energy_spectrum()
    integer :: order(nevents), i, j, key, nb(15), b, u, nbad
    real(dp) :: lg(nevents), tmp, dlg, dth, sdl, sdt
    type(recon_rec) :: r
    ! pass 1: read the energy column of every record
    do i = 1, nevents
      read(ud, rec=i, iostat=ios) r
      if (ios /= 0) error stop 'read error on recon.da'
      lg(i) = r%lge_rec
      order(i) = i
    end do
    ! insertion sort of record numbers by reconstructed energy
    do i = 2, nevents
      key = order(i); tmp = lg(key); j = i - 1
      do while (j >= 1)
        if (lg(order(j)) <= tmp) exit
        order(j + 1) = order(j)
        j = j - 1
      end do
      order(j + 1) = key
    end do
    ! pass 2: visit records in energy order, accumulate resolution and spectrum
    nb = 0; sdl = 0; sdt = 0; nbad = 0
    open(newunit=u, file=trim(dir)//'/spectrum.txt', status='replace', action='write', iostat=ios)
    if (ios /= 0) error stop 'cannot open spectrum.txt'
    write(u, '(a)') '#  rank  event  nsta   lgE_true  lgE_rec  theta_true  theta_rec   S1000     chi2'
    do i = 1, nevents
      read(ud, rec=order(i), iostat=ios) r
      if (ios /= 0) error stop 'read error on recon.da'
      if (r%lge_rec < 0.0_dp) then
        nbad = nbad + 1
        cycle
      end if
      dlg = r%lge_rec - r%lge_true
      dth = r%theta_rec - r%theta_true
      sdl = sdl + dlg * dlg; sdt = sdt + dth * dth
      b = min(15, max(1, int((r%lge_rec - 18.0_dp) / 0.1_dp) + 1))
      nb(b) = nb(b) + 1
      write(u, '(i7,i7,i6,2f9.3,2f11.4,es11.3,f9.2)', iostat=ios) i, r%id, r%nsta, r%lge_true, r%lge_rec, &
           r%theta_true, r%theta_rec, r%s1000, r%chi2
      if (ios /= 0) error stop 'write error on spectrum.txt'
    end do
    write(u, '(a)') '# lgE_bin_low  count'
    do b = 1, 15
      write(u, '(a,f6.2,i7)') '#', 18.0_dp + 0.1_dp * (b - 1), nb(b)
    end do
    close(u)
    print '(a,f7.3,a,f7.2,a,i5)', 'energy resolution (dex):', sqrt(sdl / max(nevents - nbad, 1)), &
         '  angular rms (deg):', sqrt(sdt / max(nevents - nbad, 1)) * 180.0_dp / pi, '  unreconstructed:', nbad
  end subroutine energy_spectrum

  subroutine xmax_elongation()
    integer :: u, id, mass, imax, dec, cnt(4), v
    real(dp) :: lge, xm, a, b, c, xfit, sumx(4), sumd(4), sumx2(4)
    open(newunit=u, file=trim(dir)//'/profiles.unf', form='unformatted', access='sequential', &
         status='old', action='read', iostat=ios)
    if (ios /= 0) error stop 'cannot reopen profiles.unf'
    cnt = 0; sumx = 0; sumd = 0; sumx2 = 0
    do
      read(u, iostat=ios) id, lge, xm, mass, prof
      if (ios < 0) exit
      if (ios > 0) error stop 'read error on profiles.unf'
      imax = maxloc(prof, 1)
      imax = min(max(imax, 2), nx - 1)
      ! parabola through the three bins around the maximum
      a = prof(imax - 1); b = prof(imax); c = prof(imax + 1)
      xfit = imax * dx + 0.5_dp * dx * (a - c) / (a - 2.0_dp * b + c)
      dec = min(4, max(1, int((lge - 18.5_dp) / 0.375_dp) + 1))
      cnt(dec) = cnt(dec) + 1
      sumx(dec) = sumx(dec) + xfit
      sumx2(dec) = sumx2(dec) + xfit * xfit
      sumd(dec) = sumd(dec) + (xfit - xm)
    end do
    close(u)
    open(newunit=v, file=trim(dir)//'/xmax_elongation.txt', status='replace', action='write', iostat=ios)
    if (ios /= 0) error stop 'cannot open xmax_elongation.txt'
    write(v, '(a)') '# lgE_low  n   <Xmax>   sigma(Xmax)   bias'
    do dec = 1, 4
      if (cnt(dec) == 0) cycle
      write(v, '(f7.3,i6,3f10.2)') 18.5_dp + 0.375_dp * (dec - 1), cnt(dec), sumx(dec) / cnt(dec), &
           sqrt(max(sumx2(dec) / cnt(dec) - (sumx(dec) / cnt(dec))**2, 0.0_dp)), sumd(dec) / cnt(dec)
    end do
    close(v)
    print '(a,4i6)', 'showers per energy bin:', cnt
  end subroutine xmax_elongation
end program air_shower_array_recon
