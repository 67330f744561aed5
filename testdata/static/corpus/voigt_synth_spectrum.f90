! voigt_synth_spectrum.f90
!
! Synthetic absorption spectrum of a cool stellar atmosphere slab.  A setup
! file and a formatted atomic line list (wavelength, log gf, excitation
! potential, damping) are written and read back.  The optical depth on a
! fine wavelength grid is accumulated from Voigt profiles (Humlicek W4
! complex probability function), converted to a normalised flux, and
! convolved with a Gaussian instrumental profile.  Both spectra are stored
! in a binary stream file written in chunks at explicit byte positions;
! equivalent widths of the strongest lines are then measured by reading
! only the needed windows back with positioned stream reads, and a
! decimated ASCII spectrum plus an equivalent-width table are written.
module synth_kinds
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  real(dp), parameter :: c_kms = 299792.458_dp
end module synth_kinds

module synth_setup
  use synth_kinds
  implicit none
  real(dp) :: lam_min, lam_max, dlam, teff, vturb, resolution, ew_window
  integer :: nlines, n_ew, chunk, n_models
  real(dp) :: teff_grid(8)
contains
  subroutine write_setup(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '# lam_min lam_max dlam [A]'
    write(u, '(a)') '5000.0 5400.0 0.001'
    write(u, '(a)') '# vturb[km/s] resolution'
    write(u, '(a)') '1.2 60000.0'
    write(u, '(a)') '# n_models, then teff[K] of each model'
    write(u, '(a)') '3'
    write(u, '(a)') '5500.0 5777.0 6100.0'
    write(u, '(a)') '# nlines n_ew chunk ew_window[A]'
    write(u, '(a)') '9000 150 8192 0.6'
    close(u)
  end subroutine write_setup

  subroutine read_setup(path)
    character(len=*), intent(in) :: path
    integer :: u
    character(len=128) :: comment
    open(newunit=u, file=path, status='old', action='read')
    read(u, '(a)') comment
    read(u, *) lam_min, lam_max, dlam
    read(u, '(a)') comment
    read(u, *) vturb, resolution
    read(u, '(a)') comment
    read(u, *) n_models
    read(u, *) teff_grid(1:n_models)
    read(u, '(a)') comment
    read(u, *) nlines, n_ew, chunk, ew_window
    close(u)
  end subroutine read_setup
end module synth_setup

module line_list
  use synth_kinds
  use synth_setup
  implicit none
  type :: line_t
     real(dp) :: lam, loggf, chi, gamma, mass
     character(len=4) :: species
  end type line_t
contains
  subroutine generate_line_list(path)
    character(len=*), intent(in) :: path
    character(len=4), parameter :: sp(6) = ['FeI ', 'FeII', 'TiI ', 'CrI ', 'NiI ', 'CaI ']
    real(dp), parameter :: mass(6) = [55.85_dp, 55.85_dp, 47.87_dp, 52.0_dp, 58.69_dp, 40.08_dp]
    integer :: u, k, s
    real(dp) :: r(4)
    integer(8) :: seed
    seed = 20240101_8
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '#  lambda[A]   log_gf   chi[eV]     log_a species  mass'
    do k = 1, nlines
       call rnd4(seed, r)
       s = 1 + int(6 * r(4))
       write(u, '(f12.4,f9.3,f9.3,f10.3,2x,a4,f8.2)') lam_min + 0.5_dp + (lam_max - lam_min - 1.0_dp) * r(1), &
            -4.5_dp + 4.8_dp * r(2)**0.7_dp, 5.0_dp * r(3), -2.6_dp + 1.8_dp * r(2), sp(s), mass(s)
    end do
    close(u)
  contains
    subroutine rnd4(st, x)
      integer(8), intent(inout) :: st
      real(dp), intent(out) :: x(4)
      integer :: i
      do i = 1, 4
         st = modulo(st * 48271_8, 2147483647_8)
         x(i) = real(st, dp) / 2147483647.0_dp
      end do
    end subroutine rnd4
  end subroutine generate_line_list

  subroutine read_line_list(path, lines)
    character(len=*), intent(in) :: path
    type(line_t), intent(out) :: lines(:)
    integer :: u, k
    character(len=128) :: hdr
    open(newunit=u, file=path, status='old', action='read')
    read(u, '(a)') hdr
    do k = 1, size(lines)
       read(u, '(f12.4,f9.3,f9.3,f10.3,2x,a4,f8.2)') lines(k)%lam, lines(k)%loggf, lines(k)%chi, &
            lines(k)%gamma, lines(k)%species, lines(k)%mass
    end do
    close(u)
  end subroutine read_line_list
end module line_list

module voigt
  use synth_kinds
  implicit none
contains
  ! Humlicek (1982) W4 rational approximation of w(z), z = x + i y; returns Re w.
  elemental function humlicek(x, y) result(k)
    real(dp), intent(in) :: x, y
    real(dp) :: k
    complex(dp) :: t, u, w
    real(dp) :: s
    t = cmplx(y, -x, dp)
    s = abs(x) + y
    if (s >= 15.0_dp) then
       w = t * 0.5641896_dp / (0.5_dp + t * t)
    else if (s >= 5.5_dp) then
       u = t * t
       w = t * (1.410474_dp + u * 0.5641896_dp) / (0.75_dp + u * (3.0_dp + u))
    else if (y >= 0.195_dp * abs(x) - 0.176_dp) then
       w = (16.4955_dp + t * (20.20933_dp + t * (11.96482_dp + t * (3.778987_dp + t * 0.5642236_dp)))) / &
            (16.4955_dp + t * (38.82363_dp + t * (39.27121_dp + t * (21.69274_dp + t * (6.699398_dp + t)))))
    else
       u = t * t
       w = exp(u) - t * (36183.31_dp - u * (3321.9905_dp - u * (1540.787_dp - u * (219.0313_dp - u * &
            (35.76683_dp - u * (1.320522_dp - u * 0.56419_dp)))))) / &
            (32066.6_dp - u * (24322.84_dp - u * (9022.228_dp - u * (2186.181_dp - u * (364.2191_dp - u * &
            (61.57037_dp - u * (1.841439_dp - u)))))))
    end if
    k = real(w, dp)
  end function humlicek
end module voigt

module spectrum_ops
  use synth_kinds
  use synth_setup
  use line_list
  use voigt
  implicit none
contains
  subroutine accumulate_opacity(lines, lam, tau)
    type(line_t), intent(in) :: lines(:)
    real(dp), intent(in) :: lam(:)
    real(dp), intent(inout) :: tau(:)
    integer :: k, i, i0, i1, npix
    real(dp) :: dop, a, strength, theta, x, half
    npix = size(lam)
    theta = 5040.0_dp / teff
    do k = 1, size(lines)
       ! Doppler width (A): thermal + microturbulence
       dop = lines(k)%lam / c_kms * sqrt(2.0_dp * 8.314e-3_dp * teff / lines(k)%mass + vturb**2)
       a = 10.0_dp**lines(k)%gamma                       ! Voigt damping parameter
       strength = 10.0_dp**(lines(k)%loggf - theta * lines(k)%chi) * 30.0_dp
       half = dop * (40.0_dp + 400.0_dp * sqrt(a * strength))
       i0 = max(1, int((lines(k)%lam - half - lam_min) / dlam) + 1)
       i1 = min(npix, int((lines(k)%lam + half - lam_min) / dlam) + 1)
       do i = i0, i1
          x = (lam(i) - lines(k)%lam) / dop
          tau(i) = tau(i) + strength / (sqrt(pi) * dop) * dlam * 40.0_dp * humlicek(x, a)
       end do
    end do
  end subroutine accumulate_opacity

  subroutine instrumental_broadening(flux, out, lam_c)
    real(dp), intent(in) :: flux(:), lam_c
    real(dp), intent(out) :: out(:)
    real(dp), allocatable :: ker(:)
    real(dp) :: sig
    integer :: m, i, j, n
    n = size(flux)
    sig = lam_c / resolution / 2.3548_dp / dlam       ! pixels
    m = int(4.0_dp * sig) + 1
    allocate(ker(-m:m))
    do j = -m, m
       ker(j) = exp(-0.5_dp * (j / sig)**2)
    end do
    ker = ker / sum(ker)
    do i = 1, n
       if (i <= m .or. i > n - m) then
          out(i) = flux(i)
       else
          out(i) = dot_product(ker, flux(i - m:i + m))
       end if
    end do
  end subroutine instrumental_broadening

  ! Header (3 values) then two spectra, written chunk-wise at explicit positions.
  subroutine write_stream(path, f1, f2)
    character(len=*), intent(in) :: path
    real(dp), intent(in) :: f1(:), f2(:)
    integer :: u, n, i0, i1
    integer(8) :: pos, base2
    n = size(f1)
    open(newunit=u, file=path, access='stream', form='unformatted', status='replace', action='write')
    write(u, pos=1) n, lam_min, dlam
    base2 = 1_8 + 4_8 + 16_8 + 8_8 * n
    do i0 = 1, n, chunk
       i1 = min(n, i0 + chunk - 1)
       pos = 1_8 + 4_8 + 16_8 + 8_8 * (i0 - 1)
       write(u, pos=pos) f1(i0:i1)
       write(u, pos=base2 + 8_8 * (i0 - 1)) f2(i0:i1)
    end do
    close(u)
  end subroutine write_stream

  ! Equivalent widths of the strongest lines from windows read back at positions.
  subroutine measure_equivalent_widths(path, lines, out_path)
    character(len=*), intent(in) :: path, out_path
    type(line_t), intent(in) :: lines(:)
    integer :: u, v, n, k, idx, w, i0, i1, npw, j
    integer(8) :: base2
    real(dp) :: l0, dl, ew, cont, depth, theta
    real(dp), allocatable :: seg(:), score(:)
    integer, allocatable :: order(:)
    theta = 5040.0_dp / teff
    allocate(score(size(lines)), order(n_ew))
    score = lines%loggf - theta * lines%chi
    do k = 1, n_ew
       order(k) = maxloc(score, 1)
       score(order(k)) = -huge(1.0_dp)
    end do
    open(newunit=u, file=path, access='stream', form='unformatted', status='old', action='read')
    read(u, pos=1) n, l0, dl
    base2 = 1_8 + 4_8 + 16_8 + 8_8 * n
    npw = int(ew_window / dl)
    allocate(seg(2 * npw + 1))
    open(newunit=v, file=out_path, status='replace', action='write')
    write(v, '(a)') '# species  lambda[A]   log_gf  chi[eV]    EW[mA]   depth   continuum'
    do k = 1, n_ew
       idx = order(k)
       w = int((lines(idx)%lam - l0) / dl) + 1
       i0 = max(1, w - npw); i1 = min(n, w + npw)
       read(u, pos=base2 + 8_8 * (i0 - 1)) seg(1:i1 - i0 + 1)
       ! pseudo-continuum: mean of the upper decile of the window
       cont = 0
       do j = 1, 20
          cont = max(cont, maxval(seg(1 + (j - 1) * (i1 - i0 + 1) / 20:j * (i1 - i0 + 1) / 20)))
       end do
       ew = sum(1.0_dp - seg(1:i1 - i0 + 1) / cont) * dl * 1000.0_dp
       depth = 1.0_dp - minval(seg(1:i1 - i0 + 1)) / cont
       write(v, '(2x,a4,f12.4,f9.3,f9.3,f10.2,f8.4,f10.5)') lines(idx)%species, lines(idx)%lam, &
            lines(idx)%loggf, lines(idx)%chi, ew, depth, cont
    end do
    close(v)
    close(u)
  end subroutine measure_equivalent_widths

  subroutine write_ascii_spectrum(path, lam, flux, step)
    character(len=*), intent(in) :: path
    real(dp), intent(in) :: lam(:), flux(:)
    integer, intent(in) :: step
    integer :: u, i
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '# lambda[A]  normalised_flux'
    do i = 1, size(lam), step
       write(u, '(f11.4,f10.6)') lam(i), flux(i)
    end do
    close(u)
  end subroutine write_ascii_spectrum
end module spectrum_ops

program voigt_synth_spectrum
  use synth_kinds
  use synth_setup
  use line_list
  use spectrum_ops
  implicit none
  character(len=1024) :: dir
  type(line_t), allocatable :: lines(:)
  real(dp), allocatable :: lam(:), tau(:), flux(:), conv(:)
  integer :: npix, i, m
  character(len=16) :: tag

  if (command_argument_count() /= 1) stop 'usage: voigt_synth_spectrum DIR'
  call get_command_argument(1, dir)
  call write_setup(trim(dir) // '/setup.dat')
  call read_setup(trim(dir) // '/setup.dat')
  call generate_line_list(trim(dir) // '/linelist.dat')
  allocate(lines(nlines))
  call read_line_list(trim(dir) // '/linelist.dat', lines)

  npix = nint((lam_max - lam_min) / dlam) + 1
  allocate(lam(npix), tau(npix), flux(npix), conv(npix))
  do i = 1, npix
     lam(i) = lam_min + (i - 1) * dlam
  end do
  do m = 1, n_models
     teff = teff_grid(m)
     write(tag, '(a,i4.4)') 't', nint(teff)
     tau = 0
     call accumulate_opacity(lines, lam, tau)
     flux = exp(-tau)
     call instrumental_broadening(flux, conv, 0.5_dp * (lam_min + lam_max))
     call write_stream(trim(dir) // '/spectrum_' // trim(tag) // '.bin', flux, conv)
     call measure_equivalent_widths(trim(dir) // '/spectrum_' // trim(tag) // '.bin', lines, &
          trim(dir) // '/ew_' // trim(tag) // '.txt')
     call write_ascii_spectrum(trim(dir) // '/spectrum_' // trim(tag) // '_r60k.txt', lam, conv, 4)
     print '(a,f7.1,a,i0,a,i0,a,f8.5)', 'Teff ', teff, ': synthesised ', npix, ' pixels from ', nlines, &
          ' lines; mean flux ', sum(conv) / npix
  end do
end program voigt_synth_spectrum
