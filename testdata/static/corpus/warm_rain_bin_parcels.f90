! warm_rain_bin_parcels.f90
!
! Spectral (bin) warm-rain microphysics for an ensemble of rising cloud
! parcels.  Each parcel carries a droplet number distribution on NBIN
! mass bins (mass doubling every second bin, 2 um .. ~3 mm radius).  Per
! time step the distribution is updated for
!   * diffusional growth under a quasi-steady supersaturation set by the
!     parcel updraft (upwind remapping in mass),
!   * collision-coalescence with Long's (1974) kernel, remapped into the two
!     bins bracketing the coalesced mass so that number and mass are conserved.
!
! I/O under the output directory:
!   spectra.useq     unformatted SEQUENTIAL: per output step one header record
!                    and one record per parcel (step, parcel, n(NBIN)) --
!                    read back afterwards for radar reflectivity histories
!   parcels.da       unformatted DIRECT access, one record per parcel,
!                    read-modify-written every step with running maxima and
!                    the rain-onset time; re-read in CCN order at the end
!   rain_report.txt  formatted summary
!
program warm_rain_bin_parcels
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nbin = 56
  integer, parameter :: npar = 48
  integer, parameter :: nstep = 1500
  integer, parameter :: nout = 2
  real(dp), parameter :: dt = 2.0_dp
  real(dp), parameter :: pi = 3.141592653589793_dp
  real(dp), parameter :: rhow = 1000.0_dp
  real(dp), parameter :: r0 = 2.0e-6_dp

  type parcel_rec
     integer :: id
     integer :: onset_step
     real(dp) :: w, ccn, lwc_max, rwc_max, zmax_dbz, rmean_last
  end type parcel_rec

  real(dp) :: xm(nbin), rad(nbin), kern(nbin, nbin)
  real(dp) :: n(nbin, npar), w(npar), ccn(npar)
  character(len=512) :: outdir
  integer :: ustep, uda, ios, step, p, reclen, noutrec
  real(dp) :: t, tot0(npar), tot1(npar), precip(npar)
  type(parcel_rec) :: rec

  if (command_argument_count() /= 1) then
     write(*,'(A)') 'usage: warm_rain_bin_parcels OUTDIR'
     stop 2
  end if
  call get_command_argument(1, outdir)

  call setup_bins(xm, rad, kern)
  call init_parcels(n, w, ccn)
  do p = 1, npar
     tot0(p) = sum(n(:, p) * xm)
  end do
  precip = 0.0_dp

  inquire(iolength=reclen) rec
  open(newunit=uda, file=trim(outdir)//'/parcels.da', access='direct', form='unformatted', &
       recl=reclen, status='replace', action='readwrite', iostat=ios)
  if (ios /= 0) call fail('cannot create parcels.da')
  do p = 1, npar
     rec = parcel_rec(p, -1, w(p), ccn(p), 0.0_dp, 0.0_dp, -99.0_dp, 0.0_dp)
     write(uda, rec=p, iostat=ios) rec
     if (ios /= 0) call fail('write parcels.da')
  end do

  open(newunit=ustep, file=trim(outdir)//'/spectra.useq', form='unformatted', access='sequential', &
       status='replace', action='write', iostat=ios)
  if (ios /= 0) call fail('cannot create spectra.useq')
  write(ustep, iostat=ios) nbin, npar, nstep / nout
  if (ios /= 0) call fail('write spectra header')
  write(ustep, iostat=ios) xm, rad
  if (ios /= 0) call fail('write spectra bins')

  t = 0.0_dp
  noutrec = 0
  do step = 1, nstep
     t = t + dt
     call condensation_step(n, w, xm, rad)
     call collision_step(n, xm, kern)
     call sedimentation_step(n, xm, rad, precip)
     call update_state_records(uda, step, n, xm, rad)
     if (mod(step, nout) == 0) then
        call write_spectra(ustep, step, t, n)
        noutrec = noutrec + 1
     end if
  end do
  close(ustep, iostat=ios)
  if (ios /= 0) call fail('close spectra.useq')

  do p = 1, npar
     tot1(p) = sum(n(:, p) * xm) + precip(p) / 500.0_dp
  end do

  call reread_spectra_reflectivity(trim(outdir), noutrec, rad)
  call rain_onset_report(trim(outdir), uda, tot0, tot1, precip)
  close(uda, iostat=ios)
  if (ios /= 0) call fail('close parcels.da')

contains

  subroutine fail(msg)
    use, intrinsic :: iso_fortran_env, only: error_unit
    character(len=*), intent(in) :: msg
    write(error_unit,'(A,A)') 'error: ', msg
    error stop 1
  end subroutine fail

  ! mass grid, radii and the Long collection kernel (m^3/s)
  subroutine setup_bins(x, r, k)
    real(dp), intent(out) :: x(nbin), r(nbin), k(nbin, nbin)
    integer :: i, j
    real(dp) :: v1, v2, rl
    x(1) = 4.0_dp / 3.0_dp * pi * rhow * r0**3
    do i = 2, nbin
       x(i) = x(i-1) * sqrt(2.0_dp)
    end do
    r = (3.0_dp * x / (4.0_dp * pi * rhow))**(1.0_dp / 3.0_dp)
    do j = 1, nbin
       do i = 1, nbin
          v1 = x(i) / rhow * 1.0e6_dp          ! cm^3
          v2 = x(j) / rhow * 1.0e6_dp
          rl = max(r(i), r(j))
          if (rl < 50.0e-6_dp) then
             k(i, j) = 9.44e9_dp * (v1 * v1 + v2 * v2)
          else
             k(i, j) = 5.78e3_dp * (v1 + v2)
          end if
          k(i, j) = k(i, j) * 1.0e-6_dp         ! cm^3/s -> m^3/s
       end do
    end do
  end subroutine setup_bins

  ! lognormal cloud droplet spectra; continental to maritime CCN, random
  ! updraft speeds
  subroutine init_parcels(nn, ww, cc)
    real(dp), intent(out) :: nn(nbin, npar), ww(npar), cc(npar)
    integer :: i, j
    integer(kind=8) :: s
    real(dp) :: u, rm, sg, lr, tot
    s = 987654321_8
    do j = 1, npar
       s = mod(s * 48271_8, 2147483647_8)
       u = real(s, dp) / 2147483647.0_dp
       cc(j) = 40.0e6_dp * exp(2.3_dp * u)           ! 40 .. 400 per cm^3
       s = mod(s * 48271_8, 2147483647_8)
       ww(j) = 0.5_dp + 3.0_dp * real(s, dp) / 2147483647.0_dp
       ! fixed initial LWC of 0.6 g/m3: fewer CCN -> larger droplets
       rm = (3.0_dp * 0.6e-3_dp / (4.0_dp * pi * rhow * cc(j)))**(1.0_dp / 3.0_dp)
       sg = log(1.35_dp)
       tot = 0.0_dp
       do i = 1, nbin
          lr = log(rad(i) / rm)
          nn(i, j) = exp(-0.5_dp * (lr / sg)**2)
          tot = tot + nn(i, j)
       end do
       nn(:, j) = nn(:, j) / tot * cc(j)
    end do
  end subroutine init_parcels

  ! diffusional growth dm/dt = 4 pi r G S rho_w with quasi-steady
  ! supersaturation; mass-upwind remap between neighbouring bins
  subroutine condensation_step(nn, ww, x, r)
    real(dp), intent(inout) :: nn(nbin, npar)
    real(dp), intent(in) :: ww(npar), x(nbin), r(nbin)
    real(dp), parameter :: g = 1.0e-10_dp
    real(dp) :: sup, snr, dm, c, flux(nbin)
    integer :: j, i
    do j = 1, npar
       snr = sum(nn(:, j) * r)
       sup = 4.0e-4_dp * ww(j) / max(snr / 2.0e3_dp, 0.05_dp)
       sup = min(sup, 3.0e-3_dp)
       flux = 0.0_dp
       do i = 1, nbin - 1
          dm = 4.0_dp * pi * r(i) * g * sup * rhow * dt
          c = min(dm / (x(i+1) - x(i)), 0.5_dp)
          flux(i) = c * nn(i, j)
       end do
       ! number-conserving upwind shift; the mass gained is the condensate
       do i = 1, nbin - 1
          nn(i, j) = nn(i, j) - flux(i)
          nn(i+1, j) = nn(i+1, j) + flux(i)
       end do
    end do
  end subroutine condensation_step

  ! explicit collision-coalescence, two-bin linear remap of each pair
  subroutine collision_step(nn, x, k)
    real(dp), intent(inout) :: nn(nbin, npar)
    real(dp), intent(in) :: x(nbin), k(nbin, nbin)
    real(dp) :: gain(nbin), loss(nbin), c, mnew, f
    integer :: j, i1, i2, kb
    do j = 1, npar
       gain = 0.0_dp
       loss = 0.0_dp
       do i1 = 1, nbin
          if (nn(i1, j) < 1.0e-3_dp) cycle
          do i2 = i1, nbin
             if (nn(i2, j) < 1.0e-3_dp) cycle
             c = k(i1, i2) * nn(i1, j) * nn(i2, j) * dt
             if (i1 == i2) c = 0.5_dp * c
             c = min(c, 0.25_dp * nn(i1, j), 0.25_dp * nn(i2, j))
             mnew = x(i1) + x(i2)
             kb = i2
             do while (kb < nbin)
                if (x(kb+1) > mnew) exit
                kb = kb + 1
             end do
             loss(i1) = loss(i1) + c
             loss(i2) = loss(i2) + c
             if (kb >= nbin) then
                gain(nbin) = gain(nbin) + c * mnew / x(nbin)
             else
                f = (mnew - x(kb)) / (x(kb+1) - x(kb))
                gain(kb) = gain(kb) + c * (1.0_dp - f)
                gain(kb+1) = gain(kb+1) + c * f
             end if
          end do
       end do
       nn(:, j) = max(nn(:, j) - loss + gain, 0.0_dp)
    end do
  end subroutine collision_step

  ! drops fall out of a parcel of depth 500 m at their terminal velocity
  ! (linear Stokes/intermediate fit, capped at 9 m/s); accumulated
  ! precipitation in kg/m2 (= mm)
  subroutine sedimentation_step(nn, x, r, pr)
    real(dp), intent(inout) :: nn(nbin, npar), pr(npar)
    real(dp), intent(in) :: x(nbin), r(nbin)
    real(dp), parameter :: depth = 500.0_dp
    real(dp) :: vt, frac, lost
    integer :: i, j
    do j = 1, npar
       lost = 0.0_dp
       do i = 1, nbin
          if (r(i) < 30.0e-6_dp) then
             vt = 1.19e8_dp * r(i)**2
          else
             vt = min(9.0_dp, 8.0e3_dp * r(i))
          end if
          frac = min(vt * dt / depth, 1.0_dp)
          lost = lost + frac * nn(i, j) * x(i)
          nn(i, j) = nn(i, j) * (1.0_dp - frac)
       end do
       pr(j) = pr(j) + lost * depth
    end do
  end subroutine sedimentation_step

  ! direct-access read-modify-write of every parcel's running record
  subroutine update_state_records(u, step, nn, x, r)
    integer, intent(in) :: u, step
    real(dp), intent(in) :: nn(nbin, npar), x(nbin), r(nbin)
    type(parcel_rec) :: pr
    integer :: j, ios2, i
    real(dp) :: lwc, rwc, z, nsum
    do j = 1, npar
       read(u, rec=j, iostat=ios2) pr
       if (ios2 /= 0) call fail('read parcels.da')
       lwc = 0.0_dp; rwc = 0.0_dp; z = 0.0_dp; nsum = 0.0_dp
       do i = 1, nbin
          if (r(i) < 40.0e-6_dp) then
             lwc = lwc + nn(i, j) * x(i)
          else
             rwc = rwc + nn(i, j) * x(i)
          end if
          z = z + nn(i, j) * (2.0_dp * r(i))**6
          nsum = nsum + nn(i, j)
       end do
       pr%lwc_max = max(pr%lwc_max, lwc)
       pr%rwc_max = max(pr%rwc_max, rwc)
       pr%zmax_dbz = max(pr%zmax_dbz, 10.0_dp * log10(max(z * 1.0e18_dp, 1.0e-10_dp)))
       pr%rmean_last = sum(nn(:, j) * r) / max(nsum, 1.0_dp)
       if (pr%onset_step < 0 .and. rwc > 5.0e-5_dp) pr%onset_step = step
       write(u, rec=j, iostat=ios2) pr
       if (ios2 /= 0) call fail('write parcels.da')
    end do
  end subroutine update_state_records

  subroutine write_spectra(u, step, tt, nn)
    integer, intent(in) :: u, step
    real(dp), intent(in) :: tt, nn(nbin, npar)
    integer :: j, ios2
    write(u, iostat=ios2) step, tt
    if (ios2 /= 0) call fail('write spectra step header')
    do j = 1, npar
       write(u, iostat=ios2) step, j, nn(:, j)
       if (ios2 /= 0) call fail('write spectra record')
    end do
  end subroutine write_spectra

  ! read the sequential spectra file back; reflectivity and effective
  ! radius histories; compare the spectral moments with the record data
  subroutine reread_spectra_reflectivity(dir, nrec, r)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: nrec
    real(dp), intent(in) :: r(nbin)
    integer :: u, ios2, nb, np, no, k, j, st, st2, jj, i
    real(dp) :: tt, spec(nbin), xb(nbin), rb(nbin), z, m2, m3
    real(dp), allocatable :: zdbz(:, :), reff(:, :), tim(:)
    integer :: uo
    allocate(zdbz(npar, nrec), reff(npar, nrec), tim(nrec))
    open(newunit=u, file=dir//'/spectra.useq', form='unformatted', access='sequential', &
         status='old', action='read', iostat=ios2)
    if (ios2 /= 0) call fail('open spectra.useq for reading')
    read(u, iostat=ios2) nb, np, no
    if (ios2 /= 0 .or. nb /= nbin .or. np /= npar .or. no /= nrec) call fail('spectra header mismatch')
    read(u, iostat=ios2) xb, rb
    if (ios2 /= 0) call fail('read spectra bins')
    if (maxval(abs(rb - r)) > 0.0_dp) call fail('bin radii mismatch')
    do k = 1, nrec
       read(u, iostat=ios2) st, tt
       if (ios2 /= 0) call fail('read spectra step header')
       tim(k) = tt
       do j = 1, npar
          read(u, iostat=ios2) st2, jj, spec
          if (ios2 /= 0 .or. st2 /= st .or. jj /= j) call fail('read spectra record')
          z = 0.0_dp; m2 = 0.0_dp; m3 = 0.0_dp
          do i = 1, nbin
             z = z + spec(i) * (2.0_dp * rb(i))**6
             m2 = m2 + spec(i) * rb(i)**2
             m3 = m3 + spec(i) * rb(i)**3
          end do
          zdbz(j, k) = 10.0_dp * log10(max(z * 1.0e18_dp, 1.0e-10_dp))
          reff(j, k) = m3 / max(m2, 1.0e-30_dp)
       end do
    end do
    close(u, iostat=ios2)

    open(newunit=uo, file=dir//'/reflectivity.txt', status='replace', action='write', iostat=ios2)
    if (ios2 /= 0) call fail('cannot create reflectivity.txt')
    write(uo, '(A)', iostat=ios2) '# time_s  then Z_dBZ for parcels 1,9,17,25,33,41  then r_eff_um same parcels'
    do k = 1, nrec, 5
       write(uo, '(F8.1,6F8.2,6F8.2)', iostat=ios2) tim(k), (zdbz(j, k), j = 1, npar, 8), &
            (reff(j, k) * 1.0e6_dp, j = 1, npar, 8)
       if (ios2 /= 0) call fail('write reflectivity.txt')
    end do
    close(uo, iostat=ios2)
    if (ios2 /= 0) call fail('close reflectivity.txt')
    deallocate(zdbz, reff, tim)
  end subroutine reread_spectra_reflectivity

  ! read the direct-access records in order of increasing CCN and tabulate
  subroutine rain_onset_report(dir, u, m0, m1, prc)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: u
    real(dp), intent(in) :: m0(npar), m1(npar), prc(npar)
    type(parcel_rec) :: pr
    integer :: order(npar), i, j, tmp, uo, ios2, nrain
    real(dp) :: cc(npar)
    do i = 1, npar
       read(u, rec=i, iostat=ios2) pr
       if (ios2 /= 0) call fail('read parcels.da for sorting')
       cc(i) = pr%ccn
       order(i) = i
    end do
    do i = 2, npar
       tmp = order(i)
       j = i - 1
       do while (j >= 1)
          if (cc(order(j)) <= cc(tmp)) exit
          order(j+1) = order(j)
          j = j - 1
       end do
       order(j+1) = tmp
    end do
    open(newunit=uo, file=dir//'/rain_report.txt', status='replace', action='write', iostat=ios2)
    if (ios2 /= 0) call fail('cannot create rain_report.txt')
    write(uo, '(A,A)', iostat=ios2) '# parcel  CCN_cm3  w_m_s  onset_min  LWCmax_g_m3  RWCmax_g_m3', &
         '  Zmax_dBZ  rmean_um  mass_ratio  rain_mm'
    nrain = 0
    do i = 1, npar
       read(u, rec=order(i), iostat=ios2) pr
       if (ios2 /= 0) call fail('read parcels.da')
       if (pr%onset_step > 0) nrain = nrain + 1
       write(uo, '(I6,F9.1,F7.2,F10.2,2F13.5,F10.2,F10.3,F11.4,F10.4)', iostat=ios2) pr%id, pr%ccn * 1.0e-6_dp, &
            pr%w, merge(pr%onset_step * dt / 60.0_dp, -1.0_dp, pr%onset_step > 0), pr%lwc_max * 1.0e3_dp, &
            pr%rwc_max * 1.0e3_dp, pr%zmax_dbz, pr%rmean_last * 1.0e6_dp, m1(pr%id) / m0(pr%id), prc(pr%id)
       if (ios2 /= 0) call fail('write rain_report.txt')
    end do
    close(uo, iostat=ios2)
    if (ios2 /= 0) call fail('close rain_report.txt')
    write(*,'(A,I0,A,I0,A,I0,A)') 'warm_rain_bin_parcels: ', npar, ' parcels, ', nstep, ' steps, ', &
         nrain, ' produced rain'
  end subroutine rain_onset_report

end program warm_rain_bin_parcels
