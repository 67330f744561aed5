! Aeolian dune field evolution (Kroy-Sauermann-Herrmann minimal model, 1-D).
! Bed elevation h(x) on a periodic transect; shear-stress perturbation from a
! truncated Hilbert-transform kernel plus a local slope term; saturated sand
! flux relaxes over the saturation length; Exner equation updates the bed.
! Writes formatted profile tables every NOUT steps, a per-step crest log,
! re-reads the tables to estimate dune migration speed, writes a summary.
module dune_model
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 4096
  integer, parameter :: nsteps = 1800
  integer, parameter :: nout = 40
  integer, parameter :: kw = 48
  real(dp), parameter :: dx = 0.5_dp
  real(dp), parameter :: dt = 0.02_dp
  real(dp), parameter :: tau0 = 1.0_dp, taut = 0.55_dp
  real(dp), parameter :: coefA = 3.0_dp, coefB = 1.2_dp
  real(dp), parameter :: lsat = 2.5_dp, cflux = 0.8_dp
  real(dp), parameter :: pi = 3.14159265358979324_dp
  real(dp) :: h(nx), tau(nx), qs(nx), q(nx), kern(-kw:kw)
  character(len=512) :: outdir
contains

  subroutine check(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
      write(*,'(a,a,a,i0)') 'I/O error in ', what, ': iostat=', ios
      stop 1
    end if
  end subroutine check

  subroutine init_bed()
    integer :: i, k
    real(dp) :: x, s
    integer(8) :: seed
    seed = 20240611_8
    h = 0.0_dp
    do k = 1, 9
      seed = mod(seed * 6364136223846793005_8 + 1442695040888963407_8, 9223372036854775807_8)
      x = dble(mod(abs(seed), 4096_8)) * dx
      s = 6.0_dp + dble(mod(abs(seed / 7_8), 13_8))
      do i = 1, nx
        h(i) = h(i) + (0.6_dp + 0.1_dp*k) * exp(-((dble(i-1)*dx - x)/s)**2)
      end do
    end do
    do k = -kw, kw
      if (k == 0) then
        kern(k) = 0.0_dp
      else
        kern(k) = 1.0_dp / (pi * dble(k)) * (0.5_dp + 0.5_dp*cos(pi*dble(k)/dble(kw+1)))
      end if
    end do
  end subroutine init_bed

  subroutine compute_shear()
    integer :: i, k, j
    real(dp) :: hx(nx), acc
    do i = 1, nx
      hx(i) = (h(modulo(i, nx) + 1) - h(modulo(i-2, nx) + 1)) / (2.0_dp*dx)
    end do
    do i = 1, nx
      acc = 0.0_dp
      do k = -kw, kw
        j = modulo(i - 1 - k, nx) + 1
        acc = acc + kern(k) * hx(j)
      end do
      tau(i) = tau0 * (1.0_dp + coefA*acc + coefB*hx(i))
    end do
  end subroutine compute_shear

  subroutine compute_flux()
    integer :: i, it
    real(dp) :: ex
    do i = 1, nx
      ex = max(tau(i) - taut, 0.0_dp)
      qs(i) = cflux * ex * sqrt(ex + 1.0d-12) * (1.0_dp + 0.3_dp*ex)
    end do
    ! relaxation dq/dx = (qs - q)/lsat, upwind sweeps on the periodic domain
    do it = 1, 2
      q(1) = q(nx) + dx/lsat * (qs(1) - q(nx))
      do i = 2, nx
        q(i) = q(i-1) + dx/lsat * (qs(i) - q(i-1))
      end do
    end do
  end subroutine compute_flux

  subroutine exner_update()
    integer :: i
    real(dp) :: hn(nx), slope
    do i = 1, nx
      hn(i) = h(i) - dt * (q(i) - q(modulo(i-2, nx) + 1)) / dx
    end do
    ! avalanche relaxation: limit slip face slope to angle of repose (~34 deg)
    do i = 1, nx
      slope = (hn(modulo(i, nx) + 1) - hn(i)) / dx
      if (slope < -0.67_dp) then
        hn(i) = hn(i) - 0.25_dp*(abs(slope) - 0.67_dp)*dx
        hn(modulo(i, nx) + 1) = hn(modulo(i, nx) + 1) + 0.25_dp*(abs(slope) - 0.67_dp)*dx
      end if
      if (hn(i) < 0.0_dp) hn(i) = 0.0_dp
    end do
    h = hn
  end subroutine exner_update

  subroutine write_profile_table(step, unit_no)
    integer, intent(in) :: step, unit_no
    integer :: i, ios
    character(len=600) :: fname
    write(fname, '(a,a,i5.5,a)') trim(outdir), '/profile_', step, '.txt'
    open(newunit=i, file=trim(fname), status='replace', action='write', iostat=ios)
    call check(ios, 'open profile')
    call write_table_body(i, step)
    close(i, iostat=ios)
    call check(ios, 'close profile')
    write(unit_no, '(a,i6,2x,a)', iostat=ios) 'table', step, trim(fname)
    call check(ios, 'index line')
  end subroutine write_profile_table

  subroutine write_table_body(u, step)
    integer, intent(in) :: u, step
    integer :: i, ios
    write(u, '(a,i6,a,f10.3)', iostat=ios) '# step ', step, '  time ', step*dt
    call check(ios, 'table header')
    write(u, '(a)', iostat=ios) '#        x          h        tau          qs           q'
    call check(ios, 'table header')
    do i = 1, nx
      write(u, '(f10.2,1x,f10.5,1x,f10.5,1x,es11.4,1x,es11.4)', iostat=ios) &
        dble(i-1)*dx, h(i), tau(i), qs(i), q(i)
      call check(ios, 'table row')
    end do
  end subroutine write_table_body

  subroutine log_crests(u, step)
    integer, intent(in) :: u, step
    integer :: i, ncrest, ios
    real(dp) :: vol, hmax
    ncrest = 0
    vol = 0.0_dp
    hmax = 0.0_dp
    do i = 1, nx
      vol = vol + h(i)*dx
      hmax = max(hmax, h(i))
      if (h(i) > 0.2_dp .and. h(i) >= h(modulo(i-2, nx) + 1) .and. h(i) > h(modulo(i, nx) + 1)) &
        ncrest = ncrest + 1
    end do
    write(u, '(i6,1x,f9.3,1x,i4,1x,f12.5,1x,f9.5)', iostat=ios) step, step*dt, ncrest, vol, hmax
    call check(ios, 'crest log')
  end subroutine log_crests

  ! Re-read every table, locate the highest crest, and fit migration speed.
  subroutine analyse_tables(idx_unit, nt, speed, meanh)
    integer, intent(in) :: idx_unit, nt
    real(dp), intent(out) :: speed, meanh
    character(len=600) :: fname
    character(len=8) :: tag
    character(len=128) :: line
    integer :: t, i, u, ios, step
    real(dp) :: xv, hv, tv, qsv, qv, hbest, xbest, xprev, shift, tsum, ssum, tprev
    rewind(idx_unit)
    tsum = 0.0_dp; ssum = 0.0_dp; xprev = -1.0_dp; tprev = 0.0_dp; meanh = 0.0_dp
    do t = 1, nt
      read(idx_unit, '(a5,i6,2x,a)', iostat=ios) tag, step, fname
      call check(ios, 'index read')
      open(newunit=u, file=trim(fname), status='old', action='read', iostat=ios)
      call check(ios, 'open table for read')
      read(u, '(a)', iostat=ios) line
      call check(ios, 'read header')
      read(u, '(a)', iostat=ios) line
      call check(ios, 'read header')
      hbest = -1.0_dp; xbest = 0.0_dp
      do i = 1, nx
        read(u, *, iostat=ios) xv, hv, tv, qsv, qv
        call check(ios, 'read row')
        meanh = meanh + hv
        if (hv > hbest) then
          hbest = hv; xbest = xv
        end if
      end do
      close(u)
      if (xprev >= 0.0_dp) then
        shift = xbest - xprev
        if (shift < -0.5_dp*nx*dx) shift = shift + nx*dx
        if (abs(shift) < 0.1_dp*nx*dx) then
          tsum = tsum + (step - tprev)*dt
          ssum = ssum + shift
        end if
      end if
      xprev = xbest; tprev = step
    end do
    speed = 0.0_dp
    if (tsum > 0.0_dp) speed = ssum / tsum
    meanh = meanh / dble(nt*nx)
  end subroutine analyse_tables

  subroutine write_summary(nt, speed, meanh)
    integer, intent(in) :: nt
    real(dp), intent(in) :: speed, meanh
    integer :: u, ios
    open(newunit=u, file=trim(outdir)//'/summary.txt', status='replace', iostat=ios)
    call check(ios, 'open summary')
    write(u, '(a,i0)') 'profile tables: ', nt
    write(u, '(a,f12.6)') 'crest migration speed [m/s]: ', speed
    write(u, '(a,f12.6)') 'mean bed elevation [m]: ', meanh
    write(u, '(a,f12.6)') 'final max elevation [m]: ', maxval(h)
    close(u, iostat=ios)
    call check(ios, 'close summary')
  end subroutine write_summary
end module dune_model

program dune_aeolian_saltation_profiles
  use dune_model
  implicit none
  integer :: step, ulog, uidx, ios, nt
  real(dp) :: speed, meanh
  if (command_argument_count() /= 1) then
    write(*,'(a)') 'usage: dune_aeolian_saltation_profiles OUTDIR'
    stop 2
  end if
  call get_command_argument(1, outdir)
  call init_bed()
  q = 0.0_dp
  open(newunit=ulog, file=trim(outdir)//'/crest_log.txt', status='replace', iostat=ios)
  call check(ios, 'open crest log')
  open(newunit=uidx, file=trim(outdir)//'/tables.idx', status='replace', iostat=ios)
  call check(ios, 'open index')
  nt = 0
  do step = 0, nsteps
    call compute_shear()
    call compute_flux()
    if (mod(step, nout) == 0) then
      call write_profile_table(step, uidx)
      nt = nt + 1
    end if
    call log_crests(ulog, step)
    call exner_update()
  end do
  close(ulog)
  call analyse_tables(uidx, nt, speed, meanh)
  close(uidx)
  call write_summary(nt, speed, meanh)
  write(*,'(a,i0,a,f10.5,a,f10.5)') 'dune run done: tables=', nt, ' speed=', speed, ' hmax=', maxval(h)
end program dune_aeolian_saltation_profiles
