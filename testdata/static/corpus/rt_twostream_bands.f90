! Band-resolved two-stream longwave radiative transfer for a set of
! atmospheric columns. A spectral band table is written as formatted text
! and read back; for each column the layered emission/absorption problem is
! solved band by band with a tridiagonal solver. Broadband fluxes go to an
! unformatted sequential file, per-band outgoing spectra to a direct-access
! file; both are re-read to compute heating rates and a band-averaged OLR.
module rt_params
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nband = 192, nlay = 60, ncol = 4200
  real(dp), parameter :: grav = 9.81_dp, cp = 1004.0_dp, sigma_sb = 5.670374e-8_dp
  real(dp), parameter :: diffus = 1.66_dp
end module rt_params

module rt_io
  use rt_params
  use iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  interface
    integer(c_int) function c_mkdir(path, mode) bind(C, name='mkdir')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: mode
    end function c_mkdir
  end interface
contains

  subroutine write_band_table(path)
    character(len=*), intent(in) :: path
    integer :: u, b, ios
    real(dp) :: nu, kh2o, kco2
    open(newunit=u, file=path, status='replace', action='write', form='formatted', iostat=ios)
    if (ios /= 0) stop 'cannot create band table'
    write(u, '(a)') '# band  wavenumber_cm-1  width  k_h2o  k_co2'
    write(u, '(i6)') nband
    do b = 1, nband
      nu = 20.0_dp + (b - 0.5_dp) * 2480.0_dp / nband
      kh2o = 0.8_dp * exp(-((nu - 200.0_dp) / 300.0_dp)**2) + 0.4_dp * exp(-((nu - 1600.0_dp) / 150.0_dp)**2) + 0.002_dp
      kco2 = 5.0_dp * exp(-((nu - 667.0_dp) / 40.0_dp)**2) + 0.05_dp * exp(-((nu - 2350.0_dp) / 30.0_dp)**2)
      write(u, '(i6,f12.3,f10.3,2es14.5)') b, nu, 2480.0_dp / nband, kh2o, kco2
    end do
    close(u)
  end subroutine write_band_table

  subroutine read_band_table(path, nu, dnu, kh2o, kco2)
    character(len=*), intent(in) :: path
    real(dp), intent(out) :: nu(nband), dnu(nband), kh2o(nband), kco2(nband)
    integer :: u, n, b, idx, ios
    character(len=80) :: header
    open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) stop 'cannot open band table'
    read(u, '(a)') header
    read(u, *) n
    if (n /= nband) stop 'band count mismatch'
    do b = 1, n
      read(u, *, iostat=ios) idx, nu(b), dnu(b), kh2o(b), kco2(b)
      if (ios /= 0) stop 'bad band line'
    end do
    close(u)
  end subroutine read_band_table

end module rt_io

module rt_core
  use rt_params
  implicit none
contains

  ! column profile from a simple lapse rate with column-dependent humidity
  subroutine build_profile(icol, t, p, qv)
    integer, intent(in) :: icol
    real(dp), intent(out) :: t(0:nlay), p(0:nlay), qv(nlay)
    real(dp) :: ts, lat
    integer :: k
    lat = -80.0_dp + 160.0_dp * (icol - 1) / real(ncol - 1, dp)
    ts = 300.0_dp - 45.0_dp * sin(lat * 3.14159265_dp / 180.0_dp)**2
    do k = 0, nlay
      p(k) = 1.0e5_dp * (1.0_dp - 0.99_dp * real(nlay - k, dp) / nlay)
      t(k) = max(ts * (p(k) / 1.0e5_dp)**0.19_dp, 200.0_dp)
    end do
    do k = 1, nlay
      qv(k) = 0.018_dp * (ts / 300.0_dp)**4 * (0.5_dp * (p(k) + p(k - 1)) / 1.0e5_dp)**3 * &
              (0.4_dp + 0.6_dp * cos(lat * 3.14159265_dp / 180.0_dp)**2)
    end do
  end subroutine build_profile

  ! two-stream with diffusivity factor: the downward stream is a recursion,
  ! the upward stream a bidiagonal system solved with the Thomas algorithm;
  ! B(nu,T) is the band-integrated Planck flux c1 nu^3/(exp(c2 nu/T)-1) pi dnu
  subroutine solve_column(t, p, qv, nu, dnu, kh2o, kco2, fup, fdn, olr_band)
    real(dp), intent(in) :: t(0:nlay), p(0:nlay), qv(nlay)
    real(dp), intent(in) :: nu(nband), dnu(nband), kh2o(nband), kco2(nband)
    real(dp), intent(out) :: fup(0:nlay), fdn(0:nlay), olr_band(nband)
    real(dp) :: tau(nlay), trans(nlay), src(nlay), bsurf
    real(dp) :: a(nlay + 1), b(nlay + 1), c(nlay + 1), d(nlay + 1), x(nlay + 1)
    real(dp) :: dn(0:nlay), dm, m, pfac
    real(dp), parameter :: c1 = 1.191042e-8_dp, c2 = 1.4387770_dp
    integer :: ib, k
    fup = 0.0_dp
    fdn = 0.0_dp
    do ib = 1, nband
      pfac = c1 * nu(ib)**3 * dnu(ib) * 3.14159265_dp
      do k = 1, nlay
        dm = (p(k) - p(k - 1)) / grav
        tau(k) = diffus * dm * (kh2o(ib) * qv(k) * 10.0_dp + kco2(ib) * 4.0e-4_dp)
        trans(k) = exp(-tau(k))
        src(k) = pfac / (exp(c2 * nu(ib) / (0.5_dp * (t(k) + t(k - 1)))) - 1.0_dp) * (1.0_dp - trans(k))
      end do
      ! downward sweep (explicit recursion)
      dn(0) = 0.0_dp
      do k = 1, nlay
        dn(k) = dn(k - 1) * trans(k) + src(k)
      end do
      ! upward: F_up(k-1) - trans(k) F_up(k) = src(k), F_up(nlay) = B_s
      bsurf = pfac / (exp(c2 * nu(ib) / t(nlay)) - 1.0_dp)
      do k = 1, nlay
        a(k) = 0.0_dp
        b(k) = 1.0_dp
        c(k) = -trans(k)
        d(k) = src(k)
      end do
      a(nlay + 1) = 0.0_dp
      b(nlay + 1) = 1.0_dp
      c(nlay + 1) = 0.0_dp
      d(nlay + 1) = bsurf
      do k = 2, nlay + 1
        m = a(k) / b(k - 1)
        b(k) = b(k) - m * c(k - 1)
        d(k) = d(k) - m * d(k - 1)
      end do
      x(nlay + 1) = d(nlay + 1) / b(nlay + 1)
      do k = nlay, 1, -1
        x(k) = (d(k) - c(k) * x(k + 1)) / b(k)
      end do
      do k = 0, nlay
        fup(k) = fup(k) + x(k + 1)
        fdn(k) = fdn(k) + dn(k)
      end do
      olr_band(ib) = x(1)
    end do
  end subroutine solve_column

end module rt_core

program rt_twostream_bands
  use rt_params
  use rt_io
  use rt_core
  implicit none
  character(len=1024) :: dir
  character(len=1100) :: ftab, fflx, fspec, frep
  real(dp) :: nu(nband), dnu(nband), kh2o(nband), kco2(nband)
  real(dp), allocatable :: meanspec(:)
  real(dp) :: olr_sum, heat_max, heat_mean
  integer :: nargs
  integer(c_int) :: rc

  nargs = command_argument_count()
  if (nargs /= 1) stop 'usage: rt_twostream_bands DIR'
  call get_command_argument(1, dir)
  rc = c_mkdir(trim(dir) // c_null_char, int(o'755', c_int))
  ftab = trim(dir) // '/bands.txt'
  fflx = trim(dir) // '/fluxes.bin'
  fspec = trim(dir) // '/olr_spectra.da'
  frep = trim(dir) // '/rt_summary.txt'

  call write_band_table(ftab)
  call read_band_table(ftab, nu, dnu, kh2o, kco2)
  call run_columns(fflx, fspec, nu, dnu, kh2o, kco2)
  call heating_from_file(fflx, heat_max, heat_mean, olr_sum)
  allocate(meanspec(nband))
  call spectral_mean(fspec, meanspec)
  call write_summary(frep, nu, meanspec, olr_sum, heat_max, heat_mean)
  print '(a,f9.3,a,f8.3,a)', 'mean OLR ', olr_sum / ncol, ' W/m2, max heating ', heat_max, ' K/day'

contains

  subroutine run_columns(fflx, fspec, nu, dnu, kh2o, kco2)
    character(len=*), intent(in) :: fflx, fspec
    real(dp), intent(in) :: nu(nband), dnu(nband), kh2o(nband), kco2(nband)
    real(dp) :: t(0:nlay), p(0:nlay), qv(nlay), fup(0:nlay), fdn(0:nlay), olr(nband)
    integer :: uf, us, icol, ios, reclen
    inquire(iolength=reclen) olr
    open(newunit=uf, file=fflx, form='unformatted', access='sequential', status='replace', iostat=ios)
    if (ios /= 0) stop 'cannot create flux file'
    open(newunit=us, file=fspec, form='unformatted', access='direct', recl=reclen, status='replace', iostat=ios)
    if (ios /= 0) stop 'cannot create spectra file'
    do icol = 1, ncol
      call build_profile(icol, t, p, qv)
      call solve_column(t, p, qv, nu, dnu, kh2o, kco2, fup, fdn, olr)
      write(uf) icol, p, fup, fdn
      write(us, rec=icol) olr
    end do
    close(uf)
    close(us)
  end subroutine run_columns

  subroutine heating_from_file(fflx, hmax, hmean, olr_sum)
    character(len=*), intent(in) :: fflx
    real(dp), intent(out) :: hmax, hmean, olr_sum
    real(dp) :: p(0:nlay), fup(0:nlay), fdn(0:nlay), net(0:nlay), h
    integer :: u, icol, k, ios, nread
    open(newunit=u, file=fflx, form='unformatted', access='sequential', status='old', iostat=ios)
    if (ios /= 0) stop 'cannot open flux file'
    hmax = -huge(1.0_dp)
    hmean = 0.0_dp
    olr_sum = 0.0_dp
    nread = 0
    do
      read(u, iostat=ios) icol, p, fup, fdn
      if (ios /= 0) exit
      nread = nread + 1
      net = fup - fdn
      olr_sum = olr_sum + fup(0)
      do k = 1, nlay
        h = (net(k) - net(k - 1)) * grav / (cp * (p(k) - p(k - 1))) * 86400.0_dp
        hmax = max(hmax, -h)
        hmean = hmean - h
      end do
    end do
    close(u)
    if (nread /= ncol) stop 'short flux file'
    hmean = hmean / (ncol * nlay)
  end subroutine heating_from_file

  ! strided record access: every 7th column first, then the rest
  subroutine spectral_mean(fspec, meanspec)
    character(len=*), intent(in) :: fspec
    real(dp), intent(out) :: meanspec(nband)
    real(dp) :: olr(nband)
    integer :: u, reclen, ios, icol, pass, n
    inquire(iolength=reclen) olr
    open(newunit=u, file=fspec, form='unformatted', access='direct', recl=reclen, status='old', iostat=ios)
    if (ios /= 0) stop 'cannot open spectra'
    meanspec = 0.0_dp
    n = 0
    do pass = 0, 6
      do icol = 1 + pass, ncol, 7
        read(u, rec=icol, iostat=ios) olr
        if (ios /= 0) stop 'spectra read error'
        meanspec = meanspec + olr
        n = n + 1
      end do
    end do
    close(u)
    meanspec = meanspec / n
  end subroutine spectral_mean

  subroutine write_summary(frep, nu, meanspec, olr_sum, hmax, hmean)
    character(len=*), intent(in) :: frep
    real(dp), intent(in) :: nu(nband), meanspec(nband), olr_sum, hmax, hmean
    integer :: u, b, ios
    open(newunit=u, file=frep, status='replace', action='write', iostat=ios)
    if (ios /= 0) stop 'cannot write summary'
    write(u, '(a,i6,a,i4,a,i4)') 'columns', ncol, ' bands', nband, ' layers', nlay
    write(u, '(a,f10.3)') 'mean_olr_W_m2 ', olr_sum / ncol
    write(u, '(a,2f10.4)') 'cooling_K_day max/mean ', hmax, hmean
    do b = 1, nband
      write(u, '(f10.2,es14.5)') nu(b), meanspec(b)
    end do
    close(u)
  end subroutine write_summary

end program rt_twostream_bands
