! uv_visibility_gridding_stream.f90
!
! Aperture-synthesis imaging of a simulated 12-hour track of a 48-antenna
! Y-shaped interferometer at 1.4 GHz observing a field of point sources.
!  - visibilities (u,v,w, complex amplitude, weight) for every baseline are
!    computed per 1-minute integration and written as blocks to an
!    ACCESS='STREAM' file with a small header (positioned writes, POS=);
!  - the stream file is read back block by block and convolutionally gridded
!    (oversampled Gaussian-tapered kernel) onto a 512x512 uv grid;
!  - dirty image and PSF are formed by a 2-D FFT with grid correction and
!    stored row by row in unformatted DIRECT-access files;
!  - a Hogbom CLEAN deconvolves the dirty image; components go to an
!    unformatted SEQUENTIAL file, residual and restored images to direct-
!    access files;
!  - the residual image and the component list are re-read for noise and
!    flux-recovery statistics, written to a formatted summary.
!
! usage: uv_visibility_gridding_stream OUTDIR

module synth_imaging
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0)
  integer, parameter :: nant = 48, nbl = nant * (nant - 1) / 2
  integer, parameter :: ntime = 720                ! 1-minute integrations
  integer, parameter :: ngrid = 512
  integer, parameter :: nsrc = 30
  integer, parameter :: ksup = 3, kover = 32       ! kernel half-width, oversampling
  integer, parameter :: maxcomp = 1500
  real(dp), parameter :: pi = 3.141592653589793_dp
  real(dp), parameter :: lambda = 0.2141_dp        ! m at 1.4 GHz
  real(dp), parameter :: lat = 34.08_dp * pi / 180.0_dp
  real(dp), parameter :: dec0 = 45.0_dp * pi / 180.0_dp
  real(dp), parameter :: cell_arcsec = 1.2_dp
  integer, parameter :: header_bytes = 64

  character(len=512) :: outdir
  real(dp) :: ant_xyz(3, nant)
  real(dp) :: src_l(nsrc), src_m(nsrc), src_flux(nsrc)
  real(dp) :: kern(0:ksup * kover)
  complex(dp), allocatable :: vgrid(:,:), wgrid(:,:)
  real(sp), allocatable :: dirty(:,:), psf(:,:), resid(:,:)
  integer :: ncomp
  integer :: comp_x(maxcomp), comp_y(maxcomp)
  real(sp) :: comp_f(maxcomp)
  real(dp) :: du

contains

  subroutine fail(msg, ios)
    character(len=*), intent(in) :: msg
    integer, intent(in) :: ios
    write(*, '(a,a,a,i0)') 'uv_visibility_gridding_stream: ', trim(msg), ' iostat=', ios
    stop 1
  end subroutine fail

  function path(name) result(p)
    character(len=*), intent(in) :: name
    character(len=600) :: p
    p = trim(outdir) // '/' // name
  end function path

  ! Three arms at 0, 120, 240 deg (rotated 5 deg), power-law spacing; local
  ! ENU coordinates are rotated into the equatorial XYZ frame. The antenna
  ! table is written as formatted text.
  subroutine setup_array()
    integer :: a, arm, k, u, ios
    real(dp) :: r, az, e, n, up
    open(newunit=u, file=trim(path('antennas.txt')), status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('open antennas.txt', ios)
    write(u, '(a)') '#  ant        X[m]          Y[m]          Z[m]'
    do a = 1, nant
      arm = mod(a - 1, 3)
      k = (a - 1) / 3 + 1
      r = 45.0_dp * real(k, dp)**1.716_dp
      az = (5.0_dp + 120.0_dp * arm) * pi / 180.0_dp
      e = r * sin(az); n = r * cos(az); up = 0.002_dp * r
      ant_xyz(1, a) = -sin(lat) * n + cos(lat) * up
      ant_xyz(2, a) = e
      ant_xyz(3, a) = cos(lat) * n + sin(lat) * up
      write(u, '(i6,3f14.3)', iostat=ios) a, ant_xyz(:, a)
      if (ios /= 0) call fail('write antennas.txt', ios)
    end do
    close(u)
  end subroutine setup_array

  subroutine sky_model()
    integer :: k
    real(dp) :: r(3)
    do k = 1, nsrc
      call random_number(r)
      src_l(k) = (r(1) - 0.5_dp) * 0.55_dp * ngrid * cell_arcsec / 206264.806_dp
      src_m(k) = (r(2) - 0.5_dp) * 0.55_dp * ngrid * cell_arcsec / 206264.806_dp
      src_flux(k) = 0.05_dp + 1.5_dp * r(3)**3
    end do
  end subroutine sky_model

  ! Compute visibilities per integration and append them to the stream file.
  subroutine simulate_visibilities(nvis_written, umax)
    integer, intent(out) :: nvis_written
    real(dp), intent(out) :: umax
    real(sp) :: uu(nbl), vv(nbl), ww(nbl), wt(nbl)
    complex(sp) :: vis(nbl)
    real(sp) :: noise(2 * nbl)
    real(dp) :: ha, bx, by, bz, su, sv, sw, phase
    complex(dp) :: acc
    integer :: it, i, j, b, k, u, ios
    integer(kind=8) :: pos

    open(newunit=u, file=trim(path('track.vis')), access='stream', form='unformatted', &
         status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('open track.vis', ios)
    write(u, pos=1, iostat=ios) 'VISSTRM1', nant, nbl, ntime, lambda, dec0
    if (ios /= 0) call fail('write vis header', ios)
    umax = 0.0_dp
    do it = 1, ntime
      ha = (-6.0_dp + 12.0_dp * (it - 0.5_dp) / ntime) * 15.0_dp * pi / 180.0_dp
      call random_number(noise)
      b = 0
      do i = 1, nant - 1
        do j = i + 1, nant
          b = b + 1
          bx = (ant_xyz(1, j) - ant_xyz(1, i)) / lambda
          by = (ant_xyz(2, j) - ant_xyz(2, i)) / lambda
          bz = (ant_xyz(3, j) - ant_xyz(3, i)) / lambda
          su = sin(ha) * bx + cos(ha) * by
          sv = -sin(dec0) * cos(ha) * bx + sin(dec0) * sin(ha) * by + cos(dec0) * bz
          sw = cos(dec0) * cos(ha) * bx - cos(dec0) * sin(ha) * by + sin(dec0) * bz
          acc = (0.0_dp, 0.0_dp)
          do k = 1, nsrc
            phase = -2.0_dp * pi * (su * src_l(k) + sv * src_m(k))
            acc = acc + src_flux(k) * cmplx(cos(phase), sin(phase), dp)
          end do
          ! thermal noise, Box-Muller from two uniforms
          acc = acc + 0.08_dp * sqrt(-2.0_dp * log(max(real(noise(2*b-1), dp), 1.0e-12_dp))) * &
                cmplx(cos(2 * pi * noise(2*b)), sin(2 * pi * noise(2*b)), dp)
          uu(b) = real(su, sp); vv(b) = real(sv, sp); ww(b) = real(sw, sp)
          vis(b) = cmplx(acc, kind=sp)
          wt(b) = 1.0_sp
          umax = max(umax, abs(su), abs(sv))
        end do
      end do
      pos = header_bytes + 1 + int(it - 1, 8) * nbl * 24_8
      write(u, pos=pos, iostat=ios) uu, vv, ww, vis, wt
      if (ios /= 0) call fail('write vis block', ios)
    end do
    close(u, iostat=ios)
    if (ios /= 0) call fail('close track.vis', ios)
    nvis_written = nbl * ntime
  end subroutine simulate_visibilities

  ! Gaussian-tapered sinc kernel, sampled at 1/kover cell.
  subroutine make_kernel()
    integer :: i
    real(dp) :: x
    do i = 0, ksup * kover
      x = real(i, dp) / kover
      if (i == 0) then
        kern(i) = 1.0_dp
      else
        kern(i) = sin(pi * x / 1.55_dp) / (pi * x / 1.55_dp) * exp(-(x / 2.52_dp)**2)
      end if
    end do
  end subroutine make_kernel

  ! Read the stream file block by block and grid each visibility and its
  ! Hermitian conjugate (uniform-ish weighting is applied afterwards).
  subroutine grid_visibilities(umax, nread)
    real(dp), intent(in) :: umax
    integer, intent(out) :: nread
    real(sp) :: uu(nbl), vv(nbl), ww(nbl), wt(nbl)
    complex(sp) :: vis(nbl)
    character(len=8) :: magic
    integer :: hn(3), it, b, u, ios, s, iu, iv, ix, iy, ku, kv, c
    real(dp) :: hl, hd, gu, gv, w
    complex(dp) :: val
    integer(kind=8) :: pos

    du = 2.3_dp * umax / ngrid
    allocate(vgrid(ngrid, ngrid), wgrid(ngrid, ngrid))
    vgrid = (0.0_dp, 0.0_dp)
    wgrid = (0.0_dp, 0.0_dp)
    open(newunit=u, file=trim(path('track.vis')), access='stream', form='unformatted', &
         status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('reopen track.vis', ios)
    read(u, pos=1, iostat=ios) magic, hn, hl, hd
    if (ios /= 0 .or. magic /= 'VISSTRM1' .or. hn(2) /= nbl) call fail('bad vis header', ios)
    nread = 0
    do it = 1, hn(3)
      pos = header_bytes + 1 + int(it - 1, 8) * nbl * 24_8
      read(u, pos=pos, iostat=ios) uu, vv, ww, vis, wt
      if (ios /= 0) call fail('read vis block', ios)
      do b = 1, nbl
        do s = -1, 1, 2
          gu = s * uu(b) / du + ngrid / 2 + 1
          gv = s * vv(b) / du + ngrid / 2 + 1
          val = vis(b)
          if (s < 0) val = conjg(val)
          iu = nint(gu); iv = nint(gv)
          do iy = iv - ksup, iv + ksup
            kv = nint(abs(iy - gv) * kover)
            if (kv > ksup * kover) cycle
            do ix = iu - ksup, iu + ksup
              ku = nint(abs(ix - gu) * kover)
              if (ku > ksup * kover) cycle
              w = kern(ku) * kern(kv) * wt(b)
              vgrid(ix, iy) = vgrid(ix, iy) + w * val
              wgrid(ix, iy) = wgrid(ix, iy) + w
            end do
          end do
        end do
        nread = nread + 1
      end do
    end do
    close(u)
    c = 0
    ! (light) robust weighting: damp densely sampled cells
    do iy = 1, ngrid
      do ix = 1, ngrid
        if (abs(wgrid(ix, iy)) > 0.0_dp) then
          w = 1.0_dp / (1.0_dp + abs(wgrid(ix, iy)) / 40.0_dp)
          vgrid(ix, iy) = vgrid(ix, iy) * w
          wgrid(ix, iy) = wgrid(ix, iy) * w
          c = c + 1
        end if
      end do
    end do
  end subroutine grid_visibilities

  ! In-place iterative radix-2 complex FFT (isign=+1 inverse-style).
  subroutine fft1d(a, n, isign)
    integer, intent(in) :: n, isign
    complex(dp), intent(inout) :: a(n)
    integer :: i, j, k, m, len
    complex(dp) :: t, w, wl
    j = 1
    do i = 1, n
      if (i < j) then
        t = a(j); a(j) = a(i); a(i) = t
      end if
      m = n / 2
      do while (m >= 1 .and. j > m)
        j = j - m
        m = m / 2
      end do
      j = j + m
    end do
    len = 2
    do while (len <= n)
      wl = cmplx(cos(2 * pi / len), isign * sin(2 * pi / len), dp)
      do i = 1, n, len
        w = (1.0_dp, 0.0_dp)
        do k = 0, len / 2 - 1
          t = w * a(i + k + len / 2)
          a(i + k + len / 2) = a(i + k) - t
          a(i + k) = a(i + k) + t
          w = w * wl
        end do
      end do
      len = len * 2
    end do
  end subroutine fft1d

  ! Centred 2-D FFT: checkerboard-shift, rows, columns, shift back.
  subroutine fft2d(g)
    complex(dp), intent(inout) :: g(ngrid, ngrid)
    complex(dp) :: col(ngrid)
    integer :: ix, iy
    do iy = 1, ngrid
      do ix = 1, ngrid
        if (mod(ix + iy, 2) == 1) g(ix, iy) = -g(ix, iy)
      end do
    end do
    do iy = 1, ngrid
      call fft1d(g(:, iy), ngrid, 1)
    end do
    do ix = 1, ngrid
      col = g(ix, :)
      call fft1d(col, ngrid, 1)
      g(ix, :) = col
    end do
    do iy = 1, ngrid
      do ix = 1, ngrid
        if (mod(ix + iy, 2) == 1) g(ix, iy) = -g(ix, iy)
      end do
    end do
  end subroutine fft2d

  ! Dirty image and PSF with grid correction (divide by kernel transform).
  subroutine make_images()
    real(dp) :: corr(ngrid), wsum, x, s
    integer :: i, ix, iy, k
    do i = 1, ngrid
      x = real(i - ngrid / 2 - 1, dp) / ngrid
      s = 0.0_dp
      do k = -ksup * kover, ksup * kover
        s = s + kern(abs(k)) * cos(2 * pi * x * k / kover)
      end do
      corr(i) = s / kover
    end do
    wsum = real(sum(wgrid), dp)
    call fft2d(vgrid)
    call fft2d(wgrid)
    allocate(dirty(ngrid, ngrid), psf(ngrid, ngrid), resid(ngrid, ngrid))
    do iy = 1, ngrid
      do ix = 1, ngrid
        dirty(ix, iy) = real(real(vgrid(ix, iy)) / wsum / (corr(ix) * corr(iy)), sp)
        psf(ix, iy) = real(real(wgrid(ix, iy)) / wsum / (corr(ix) * corr(iy)), sp)
      end do
    end do
    deallocate(vgrid, wgrid)
  end subroutine make_images

  subroutine write_image_da(name, img)
    character(len=*), intent(in) :: name
    real(sp), intent(in) :: img(ngrid, ngrid)
    integer :: u, ios, iy, rl
    inquire(iolength=rl) img(:, 1)
    open(newunit=u, file=trim(path(name)), access='direct', recl=rl, form='unformatted', &
         status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('open image '//name, ios)
    do iy = 1, ngrid
      write(u, rec=iy, iostat=ios) img(:, iy)
      if (ios /= 0) call fail('write image row', ios)
    end do
    close(u, iostat=ios)
    if (ios /= 0) call fail('close image', ios)
  end subroutine write_image_da

  ! Hogbom CLEAN in the inner half of the image, loop gain 0.1.
  subroutine hogbom_clean(niter, threshold, peak_first)
    integer, intent(in) :: niter
    real(sp), intent(in) :: threshold
    real(sp), intent(out) :: peak_first
    integer :: it, ix, iy, px, py, c, sx, sy, x0, x1, y0, y1
    real(sp) :: peak, a, pnorm
    resid = dirty
    pnorm = psf(ngrid / 2 + 1, ngrid / 2 + 1)
    c = ngrid / 2 + 1
    ncomp = 0
    peak_first = 0.0_sp
    do it = 1, niter
      peak = 0.0_sp; px = c; py = c
      do iy = ngrid / 4, 3 * ngrid / 4
        do ix = ngrid / 4, 3 * ngrid / 4
          a = abs(resid(ix, iy))
          if (a > peak) then
            peak = a; px = ix; py = iy
          end if
        end do
      end do
      if (it == 1) peak_first = peak
      if (peak < threshold) exit
      a = 0.1_sp * resid(px, py) / pnorm
      sx = px - c; sy = py - c
      x0 = max(1, 1 + sx); x1 = min(ngrid, ngrid + sx)
      y0 = max(1, 1 + sy); y1 = min(ngrid, ngrid + sy)
      resid(x0:x1, y0:y1) = resid(x0:x1, y0:y1) - a * psf(x0 - sx:x1 - sx, y0 - sy:y1 - sy)
      if (ncomp < maxcomp) then
        ncomp = ncomp + 1
        comp_x(ncomp) = px; comp_y(ncomp) = py; comp_f(ncomp) = a
      end if
    end do
  end subroutine hogbom_clean

  subroutine write_components()
    integer :: u, ios, k
    open(newunit=u, file=trim(path('clean_components.bin')), form='unformatted', &
         access='sequential', status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('open components', ios)
    write(u, iostat=ios) ncomp, ngrid, cell_arcsec
    if (ios /= 0) call fail('write components header', ios)
    do k = 1, ncomp
      write(u, iostat=ios) comp_x(k), comp_y(k), comp_f(k)
      if (ios /= 0) call fail('write component', ios)
    end do
    close(u)
  end subroutine write_components

  ! Restored image: residual + components convolved with a Gaussian beam whose
  ! width is measured from the PSF half-power point.
  subroutine restore_image(restored, fwhm_pix)
    real(sp), intent(out) :: restored(ngrid, ngrid)
    real(dp), intent(out) :: fwhm_pix
    integer :: c, k, ix, iy, i
    real(dp) :: sig2, r2
    c = ngrid / 2 + 1
    i = c
    do while (i < ngrid .and. psf(i, c) > 0.5 * psf(c, c))
      i = i + 1
    end do
    fwhm_pix = 2.0_dp * real(i - c, dp)
    sig2 = (fwhm_pix / 2.3548_dp)**2
    restored = resid
    do k = 1, ncomp
      do iy = max(1, comp_y(k) - 12), min(ngrid, comp_y(k) + 12)
        do ix = max(1, comp_x(k) - 12), min(ngrid, comp_x(k) + 12)
          r2 = real((ix - comp_x(k))**2 + (iy - comp_y(k))**2, dp)
          restored(ix, iy) = restored(ix, iy) + comp_f(k) * real(exp(-0.5_dp * r2 / sig2), sp)
        end do
      end do
    end do
  end subroutine restore_image

  ! Re-read the residual image (direct access) and the component list
  ! (sequential) for noise and flux statistics.
  subroutine image_statistics(rms, flux_clean, nread)
    real(dp), intent(out) :: rms, flux_clean
    integer, intent(out) :: nread
    real(sp) :: row(ngrid), f
    integer :: u, ios, iy, ix, rl, n, nc, ng, cx, cy, k
    real(dp) :: s2, cell
    inquire(iolength=rl) row
    open(newunit=u, file=trim(path('residual.img')), access='direct', recl=rl, &
         form='unformatted', status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('reopen residual', ios)
    s2 = 0.0_dp; n = 0
    do iy = 1, ngrid
      read(u, rec=iy, iostat=ios) row
      if (ios /= 0) call fail('read residual row', ios)
      do ix = 1, ngrid
        if (ix < ngrid / 8 .or. ix > 7 * ngrid / 8 .or. iy < ngrid / 8 .or. iy > 7 * ngrid / 8) then
          s2 = s2 + real(row(ix), dp)**2
          n = n + 1
        end if
      end do
    end do
    close(u)
    rms = sqrt(s2 / n)
    open(newunit=u, file=trim(path('clean_components.bin')), form='unformatted', &
         access='sequential', status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('reopen components', ios)
    read(u, iostat=ios) nc, ng, cell
    if (ios /= 0) call fail('read components header', ios)
    flux_clean = 0.0_dp
    do k = 1, nc
      read(u, iostat=ios) cx, cy, f
      if (ios /= 0) call fail('read component', ios)
      flux_clean = flux_clean + f
    end do
    close(u)
    nread = nc
  end subroutine image_statistics

end module synth_imaging

program uv_visibility_gridding_stream
  use synth_imaging
  implicit none
  integer :: nvis, nread, ncr, u, ios, nseed
  integer, allocatable :: seed(:)
  real(dp) :: umax, rms, flux_clean, fwhm, flux_true
  real(sp) :: peak_first
  real(sp), allocatable :: restored(:,:)

  if (command_argument_count() /= 1) then
    write(*, '(a)') 'usage: uv_visibility_gridding_stream OUTDIR'
    stop 2
  end if
  call get_command_argument(1, outdir)
  call random_seed(size=nseed)
  allocate(seed(nseed))
  seed = 20240917
  call random_seed(put=seed)

  call setup_array()
  call sky_model()
  call simulate_visibilities(nvis, umax)
  call make_kernel()
  call grid_visibilities(umax, nread)
  call make_images()
  call write_image_da('dirty.img', dirty)
  call write_image_da('psf.img', psf)
  call hogbom_clean(1200, 0.004_sp, peak_first)
  call write_components()
  call write_image_da('residual.img', resid)
  allocate(restored(ngrid, ngrid))
  call restore_image(restored, fwhm)
  call write_image_da('restored.img', restored)
  call image_statistics(rms, flux_clean, ncr)

  flux_true = sum(src_flux)
  open(newunit=u, file=trim(path('imaging_summary.txt')), status='replace', action='write', iostat=ios)
  if (ios /= 0) call fail('open summary', ios)
  write(u, '(a,i0,a,i0)') 'visibilities written ', nvis, ', gridded ', nread
  write(u, '(a,f12.1,a,f10.3)') 'max |u|,|v| [lambda] ', umax, '  grid cell [lambda] ', du
  write(u, '(a,f8.4,a,f6.2,a)') 'dirty peak [Jy/beam] ', peak_first, '  beam FWHM ', fwhm, ' px'
  write(u, '(a,i0,a,f9.4,a,f9.4)') 'clean components ', ncr, '  clean flux ', flux_clean, &
       '  true flux ', flux_true
  write(u, '(a,es12.4)') 'residual rms off-source [Jy/beam] ', rms
  close(u)
  write(*, '(a,i0,a,i0,a)') 'synthesis imaging: ', nvis, ' visibilities, ', ncr, ' CLEAN components'
  write(*, '(a,f8.4,a,f8.4,a,es10.3)') 'clean flux ', flux_clean, ' Jy of ', flux_true, &
       ' Jy; residual rms ', rms
end program uv_visibility_gridding_stream
