! powder_xrd_debye: powder X-ray diffraction of a thermally disordered fcc
! gold nanocrystal via the Debye scattering equation.  The cluster is written
! as an XYZ text file and parsed back; thermal snapshots are appended to a
! binary stream trajectory (header + frame offsets) and later re-read with
! explicit pos= seeks; for each frame a pair-distance histogram and the Debye
! sum are computed; patterns are stored in a binary stream file and a
! formatted two-theta table, which is re-read for peak picking, fcc indexing
! and a Scherrer crystallite-size estimate.
module debye_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: pi = 3.141592653589793_dp
  real(dp), parameter :: a_lat = 4.078_dp, radius = 24.0_dp, sigma_u = 0.085_dp
  real(dp), parameter :: lambda = 1.5406_dp          ! Cu K-alpha, Angstrom
  real(dp), parameter :: dr = 0.005_dp
  integer, parameter :: n_frames = 6, nq = 1800
  real(dp), parameter :: q_min = 1.0_dp, q_max = 7.2_dp
  integer(8) :: rs = 2463534242_8
contains

  real(dp) function gauss()
    real(dp) :: u1, u2
    rs = ieor(rs, ishft(rs, 13)); rs = ieor(rs, ishft(rs, -7)); rs = ieor(rs, ishft(rs, 17))
    u1 = (real(iand(ishft(rs, -11), 9007199254740991_8), dp) + 1.0_dp) / 9007199254740993.0_dp
    rs = ieor(rs, ishft(rs, 13)); rs = ieor(rs, ishft(rs, -7)); rs = ieor(rs, ishft(rs, 17))
    u2 = real(iand(ishft(rs, -11), 9007199254740991_8), dp) / 9007199254740992.0_dp
    gauss = sqrt(-2.0_dp * log(u1)) * cos(2.0_dp * pi * u2)
  end function gauss

  subroutine write_cluster_xyz(path, natoms)
    character(*), intent(in) :: path
    integer, intent(out) :: natoms
    real(dp), parameter :: basis(3, 4) = reshape([0.0_dp, 0.0_dp, 0.0_dp, 0.5_dp, 0.5_dp, 0.0_dp, &
                                                   0.5_dp, 0.0_dp, 0.5_dp, 0.0_dp, 0.5_dp, 0.5_dp], [3, 4])
    real(dp), allocatable :: xyz(:, :)
    real(dp) :: p(3)
    integer :: i, j, k, b, u, nmax, m
    m = ceiling(radius / a_lat) + 1
    nmax = 4 * (2 * m + 1)**3
    allocate(xyz(3, nmax))
    natoms = 0
    do k = -m, m
      do j = -m, m
        do i = -m, m
          do b = 1, 4
            p = a_lat * ([real(i, dp), real(j, dp), real(k, dp)] + basis(:, b))
            if (sum(p * p) <= radius**2) then
              natoms = natoms + 1
              xyz(:, natoms) = p
            end if
          end do
        end do
      end do
    end do
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(i0)') natoms
    write(u, '(a,f6.3,a,f6.2)') 'Au fcc cluster a=', a_lat, ' R=', radius
    do i = 1, natoms
      write(u, '(a,3f12.5)') 'Au', xyz(:, i)
    end do
    close(u)
    deallocate(xyz)
  end subroutine write_cluster_xyz

  subroutine read_cluster_xyz(path, xyz)
    character(*), intent(in) :: path
    real(dp), allocatable, intent(out) :: xyz(:, :)
    character(len=8) :: el
    integer :: u, n, i
    open(newunit=u, file=path, status='old', action='read')
    read(u, *) n
    read(u, *)
    allocate(xyz(3, n))
    do i = 1, n
      read(u, *) el, xyz(:, i)
    end do
    close(u)
  end subroutine read_cluster_xyz

  ! stream trajectory: header (magic, natoms, nframes), offset table, frames
  subroutine write_trajectory(path, xyz)
    character(*), intent(in) :: path
    real(dp), intent(in) :: xyz(:, :)
    real(dp), allocatable :: frame(:, :)
    integer(8) :: offsets(n_frames)
    integer :: u, f, i, k, n, p
    n = size(xyz, 2)
    allocate(frame(3, n))
    open(newunit=u, file=path, access='stream', form='unformatted', status='replace')
    write(u) 'DEBYETRJ', n, n_frames
    inquire(u, pos=p)
    write(u) (0_8, f = 1, n_frames)           ! placeholder offset table
    do f = 1, n_frames
      do i = 1, n
        do k = 1, 3
          frame(k, i) = xyz(k, i) + sigma_u * (0.6_dp + 0.1_dp * f) * gauss()
        end do
      end do
      inquire(u, pos=offsets(f))
      write(u) frame
    end do
    write(u, pos=p) offsets                   ! patch offset table
    close(u)
    deallocate(frame)
  end subroutine write_trajectory

  subroutine read_frame(u, f, frame)
    integer, intent(in) :: u, f
    real(dp), intent(out) :: frame(:, :)
    integer(8) :: off
    read(u, pos=17 + 8 * (f - 1)) off
    read(u, pos=off) frame
  end subroutine read_frame

  subroutine pair_histogram(frame, hist)
    real(dp), intent(in) :: frame(:, :)
    real(dp), intent(inout) :: hist(:)
    integer :: i, j, n, b
    real(dp) :: d(3), r
    n = size(frame, 2)
    do i = 1, n - 1
      do j = i + 1, n
        d = frame(:, i) - frame(:, j)
        r = sqrt(d(1) * d(1) + d(2) * d(2) + d(3) * d(3))
        b = int(r / dr) + 1
        if (b <= size(hist)) hist(b) = hist(b) + 1.0_dp
      end do
    end do
  end subroutine pair_histogram

  ! Debye sum with a Cromer-Mann-like atomic form factor and Debye-Waller damping
  subroutine debye_intensity(hist, natoms, q, iq)
    real(dp), intent(in) :: hist(:), q(:)
    integer, intent(in) :: natoms
    real(dp), intent(out) :: iq(:)
    integer :: k, b
    real(dp) :: s, f, r, qr
    do k = 1, size(q)
      s = 0
      do b = 1, size(hist)
        if (hist(b) == 0.0_dp) cycle
        r = (b - 0.5_dp) * dr
        qr = q(k) * r
        s = s + hist(b) * sin(qr) / qr
      end do
      f = 79.0_dp * exp(-0.25_dp * (q(k) / (4 * pi))**2 * 40.0_dp)
      iq(k) = f * f * (natoms + 2.0_dp * s)
    end do
  end subroutine debye_intensity

  subroutine write_pdf(u, f, hist, natoms)
    integer, intent(in) :: u, f, natoms
    real(dp), intent(in) :: hist(:)
    integer :: b
    real(dp) :: r, rho0, g
    rho0 = natoms / (4.0_dp / 3.0_dp * pi * radius**3)
    write(u, '(a,i0)') '# frame ', f
    do b = 1, size(hist)
      r = (b - 0.5_dp) * dr
      g = 2.0_dp * hist(b) / (natoms * 4.0_dp * pi * r * r * dr) - 4.0_dp * pi * r * rho0
      write(u, '(f9.4,es14.6,f12.1)') r, g, hist(b)
    end do
  end subroutine write_pdf

  subroutine compute_patterns(traj, pat_bin, pat_xy, pdf_path, natoms)
    character(*), intent(in) :: traj, pat_bin, pat_xy, pdf_path
    integer, intent(in) :: natoms
    real(dp), allocatable :: frame(:, :), hist(:)
    real(dp) :: q(nq), iq(nq), mean_iq(nq), tth
    integer :: ut, ub, ux, up, f, k, nb
    nb = int(2.2_dp * radius / dr) + 10
    allocate(frame(3, natoms), hist(nb))
    do k = 1, nq
      q(k) = q_min + (q_max - q_min) * (k - 1) / real(nq - 1, dp)
    end do
    open(newunit=ut, file=traj, access='stream', form='unformatted', status='old', action='read')
    open(newunit=ub, file=pat_bin, access='stream', form='unformatted', status='replace')
    write(ub) nq, n_frames, q
    open(newunit=up, file=pdf_path, status='replace', action='write')
    mean_iq = 0
    do f = n_frames, 1, -1                  ! deliberately walk frames backwards
      call read_frame(ut, f, frame)
      hist = 0
      call pair_histogram(frame, hist)
      call write_pdf(up, f, hist, natoms)
      call debye_intensity(hist, natoms, q, iq)
      write(ub) f, iq
      mean_iq = mean_iq + iq / n_frames
    end do
    close(ut)
    close(ub)
    close(up)
    open(newunit=ux, file=pat_xy, status='replace', action='write')
    write(ux, '(a)') '# two_theta_deg  q_invA  intensity (frame average)'
    do k = 1, nq
      if (q(k) * lambda / (4 * pi) >= 1.0_dp) exit
      tth = 2.0_dp * asin(q(k) * lambda / (4 * pi)) * 180.0_dp / pi
      write(ux, '(f10.4,f10.5,es16.7)') tth, q(k), mean_iq(k)
    end do
    close(ux)
    deallocate(frame, hist)
  end subroutine compute_patterns

  subroutine pick_peaks(pat_xy, out_path)
    character(*), intent(in) :: pat_xy, out_path
    real(dp), allocatable :: tt(:), qq(:), yy(:)
    character(len=200) :: line
    integer :: u, n, ios, k, j, hkl2, best
    real(dp) :: d, a_est, half, fwhm, lo, hi, size_nm, bg
    integer, parameter :: allowed(8) = [3, 4, 8, 11, 12, 16, 19, 20]
    allocate(tt(nq), qq(nq), yy(nq))
    open(newunit=u, file=pat_xy, status='old', action='read')
    n = 0
    do
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (line(1:1) == '#') cycle
      n = n + 1
      read(line, *) tt(n), qq(n), yy(n)
    end do
    close(u)
    open(newunit=u, file=out_path, status='replace', action='write')
    write(u, '(a)') '# 2theta   d_A    hkl^2  a_est_A  fwhm_deg  scherrer_nm'
    do k = 6, n - 5
      if (tt(k) < 30.0_dp) cycle                ! skip low-angle size fringes
      if (yy(k) < maxval(yy(k - 5:k + 5))) cycle
      bg = min(minval(yy(max(1, k - 60):k)), minval(yy(k:min(n, k + 60))))
      if (yy(k) < 1.3_dp * bg) cycle
      half = bg + 0.5_dp * (yy(k) - bg)
      lo = tt(k); hi = tt(k)
      do j = k, 2, -1
        if (yy(j) < half) then; lo = tt(j); exit; end if
      end do
      do j = k, n - 1
        if (yy(j) < half) then; hi = tt(j); exit; end if
      end do
      fwhm = hi - lo
      d = 2 * pi / qq(k)
      best = 1
      do j = 2, size(allowed)
        if (abs(sqrt(real(allowed(j), dp)) * d - a_lat) < abs(sqrt(real(allowed(best), dp)) * d - a_lat)) best = j
      end do
      hkl2 = allowed(best)
      a_est = d * sqrt(real(hkl2, dp))
      size_nm = 0.1_dp * 0.9_dp * lambda / (fwhm * pi / 180.0_dp * cos(tt(k) * pi / 360.0_dp))
      write(u, '(f9.3,f8.4,i6,f9.4,f9.3,f10.2)') tt(k), d, hkl2, a_est, fwhm, size_nm
    end do
    close(u)
    deallocate(tt, qq, yy)
  end subroutine pick_peaks

end module debye_mod

program powder_xrd_debye
  use debye_mod
  implicit none
  character(len=512) :: dir
  real(dp), allocatable :: xyz(:, :)
  integer :: natoms
  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) stop 'usage: powder_xrd_debye dir'
  call write_cluster_xyz(trim(dir)//'/cluster.xyz', natoms)
  call read_cluster_xyz(trim(dir)//'/cluster.xyz', xyz)
  call write_trajectory(trim(dir)//'/thermal.traj', xyz)
  call compute_patterns(trim(dir)//'/thermal.traj', trim(dir)//'/pattern.bin', trim(dir)//'/pattern.xy', &
                        trim(dir)//'/pdf_frames.dat', natoms)
  call pick_peaks(trim(dir)//'/pattern.xy', trim(dir)//'/peaks.txt')
end program powder_xrd_debye
