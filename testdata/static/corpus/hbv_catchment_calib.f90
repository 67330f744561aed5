! hbv_catchment_calib.f90 -- Monte Carlo calibration and GLUE uncertainty
! analysis of an HBV-type conceptual rainfall-runoff model.
!
! For NCATCH synthetic catchments a daily weather series (precipitation,
! temperature, potential evaporation) is generated and written as a
! formatted text file, together with "observed" discharge produced by a
! hidden parameter set plus noise.  Both files are read back with
! formatted READ.  NSETS random parameter sets are then simulated per
! catchment; every set and its Nash-Sutcliffe efficiency is written as one
! record of an unformatted sequential file.  The GLUE step re-reads these
! records, keeps the NKEEP best behavioural sets, re-runs them and derives
! likelihood-weighted 5/50/95 % discharge bounds, which are written as a
! formatted table per catchment, plus a summary of the best parameters.
!
! Usage: hbv_catchment_calib OUTDIR
module dir_util
  use iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  interface
    integer(c_int) function c_mkdir(path, mode) bind(C, name='mkdir')
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: path
      integer(c_int), value :: mode
    end function c_mkdir
  end interface
contains
  ! Create the output directory (mode 0755); an existing directory is fine.
  subroutine make_dir(path)
    character(len=*), intent(in) :: path
    integer(c_int) :: rc
    rc = c_mkdir(trim(path) // c_null_char, int(o'755', c_int))
  end subroutine make_dir
end module dir_util

module hbv_kinds
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: ncatch = 5, ndays = 3650, nsets = 1600, nkeep = 60
  integer, parameter :: npar = 9
  real(dp), parameter :: nse_behavioural = 0.5_dp
end module hbv_kinds

module hbv_model
  use hbv_kinds
  implicit none
  ! parameter order: TT CFMAX FC LP BETA K0 K1 K2 PERC
  real(dp), parameter :: plo(npar) = [-1.5_dp, 1.0_dp,  80.0_dp, 0.3_dp, 1.0_dp, 0.10_dp, 0.01_dp, 0.001_dp, 0.2_dp]
  real(dp), parameter :: phi(npar) = [ 1.5_dp, 6.0_dp, 400.0_dp, 1.0_dp, 5.0_dp, 0.50_dp, 0.30_dp, 0.050_dp, 3.0_dp]
  real(dp), parameter :: uzl = 20.0_dp
contains

  subroutine simulate(par, prec, temp, pet, q)
    real(dp), intent(in) :: par(npar), prec(ndays), temp(ndays), pet(ndays)
    real(dp), intent(out) :: q(ndays)
    real(dp) :: snow, melt, sm, suz, slz, rain, recharge, eact, q0, q1, q2, perc, inflow
    integer :: d
    snow = 0.0_dp; sm = 0.5_dp * par(3); suz = 0.0_dp; slz = 10.0_dp
    do d = 1, ndays
      ! snow routine (degree-day)
      if (temp(d) < par(1)) then
        snow = snow + prec(d)
        rain = 0.0_dp
      else
        rain = prec(d)
      end if
      melt = min(snow, max(0.0_dp, par(2) * (temp(d) - par(1))))
      snow = snow - melt
      inflow = rain + melt
      ! soil moisture routine
      recharge = inflow * (sm / par(3))**par(5)
      sm = sm + inflow - recharge
      eact = pet(d) * min(1.0_dp, sm / (par(4) * par(3)))
      sm = max(0.0_dp, sm - eact)
      if (sm > par(3)) then
        recharge = recharge + sm - par(3)
        sm = par(3)
      end if
      ! response routine
      suz = suz + recharge
      perc = min(suz, par(9))
      suz = suz - perc
      slz = slz + perc
      q0 = par(6) * max(0.0_dp, suz - uzl)
      q1 = par(7) * suz
      q2 = par(8) * slz
      suz = suz - q0 - q1
      slz = slz - q2
      q(d) = q0 + q1 + q2
    end do
  end subroutine simulate

  real(dp) function nse(sim, obs)
    real(dp), intent(in) :: sim(ndays), obs(ndays)
    real(dp) :: mo
    mo = sum(obs(366:)) / (ndays - 365)
    nse = 1.0_dp - sum((sim(366:) - obs(366:))**2) / sum((obs(366:) - mo)**2)
  end function nse
end module hbv_model

module catchment_io
  use hbv_kinds
  implicit none
  integer(8) :: seed = 1122334455_8
contains
  real(dp) function urand()
    seed = ieor(seed, ishft(seed, 13))
    seed = ieor(seed, ishft(seed, -7))
    seed = ieor(seed, ishft(seed, 17))
    urand = real(ishft(seed, -11), dp) / 9007199254740992.0_dp
  end function urand

  subroutine write_forcing(fname, ic)
    character(len=*), intent(in) :: fname
    integer, intent(in) :: ic
    integer :: u, d, yr, doy
    real(dp) :: t, p, pet, wet
    open(newunit=u, file=fname, status='replace', action='write')
    write(u, '(a,i3)') '# synthetic forcing, catchment ', ic
    write(u, '(a)') '# year doy   prec_mm   temp_C   pet_mm'
    wet = 0.0_dp
    do d = 1, ndays
      yr = 2000 + (d - 1) / 365
      doy = mod(d - 1, 365) + 1
      t = 6.0_dp + 2.0_dp * ic - 11.0_dp * cos(2.0_dp * 3.14159265_dp * (doy - 15) / 365.0_dp) &
          + 3.0_dp * (urand() - 0.5_dp)
      if (urand() < 0.35_dp + 0.3_dp * wet) then
        p = -(6.0_dp + ic) * log(1.0_dp - urand())
        wet = 1.0_dp
      else
        p = 0.0_dp
        wet = 0.0_dp
      end if
      pet = max(0.0_dp, 0.15_dp * (t + 5.0_dp))
      write(u, '(i5,i4,3f10.3)') yr, doy, p, t, pet
    end do
    close(u)
  end subroutine write_forcing

  subroutine read_forcing(fname, prec, temp, pet)
    character(len=*), intent(in) :: fname
    real(dp), intent(out) :: prec(ndays), temp(ndays), pet(ndays)
    integer :: u, d, yr, doy
    character(len=128) :: hdr
    open(newunit=u, file=fname, status='old', action='read')
    read(u, '(a)') hdr
    read(u, '(a)') hdr
    do d = 1, ndays
      read(u, '(i5,i4,3f10.3)') yr, doy, prec(d), temp(d), pet(d)
    end do
    close(u)
  end subroutine read_forcing

  subroutine write_series(fname, q, label)
    character(len=*), intent(in) :: fname, label
    real(dp), intent(in) :: q(ndays)
    integer :: u, d
    open(newunit=u, file=fname, status='replace', action='write')
    write(u, '(2a)') '# ', label
    do d = 1, ndays
      write(u, '(i6,es14.6)') d, q(d)
    end do
    close(u)
  end subroutine write_series

  subroutine read_series(fname, q)
    character(len=*), intent(in) :: fname
    real(dp), intent(out) :: q(ndays)
    integer :: u, d, k
    character(len=128) :: hdr
    open(newunit=u, file=fname, status='old', action='read')
    read(u, '(a)') hdr
    do d = 1, ndays
      read(u, *) k, q(d)
    end do
    close(u)
  end subroutine read_series
end module catchment_io

module glue
  use hbv_kinds
  use hbv_model
  use catchment_io
  implicit none
contains
  subroutine monte_carlo(fname, prec, temp, pet, obs, best_par, best_nse)
    character(len=*), intent(in) :: fname
    real(dp), intent(in) :: prec(ndays), temp(ndays), pet(ndays), obs(ndays)
    real(dp), intent(out) :: best_par(npar), best_nse
    real(dp) :: par(npar), q(ndays), e
    integer :: u, k, j
    open(newunit=u, file=fname, form='unformatted', access='sequential', status='replace', &
         action='write')
    write(u) nsets, npar
    best_nse = -huge(1.0_dp)
    do k = 1, nsets
      do j = 1, npar
        par(j) = plo(j) + (phi(j) - plo(j)) * urand()
      end do
      call simulate(par, prec, temp, pet, q)
      e = nse(q, obs)
      write(u) k, par, e
      if (e > best_nse) then
        best_nse = e
        best_par = par
      end if
    end do
    close(u)
  end subroutine monte_carlo

  subroutine sort_desc(v, idx, n)
    integer, intent(in) :: n
    real(dp), intent(inout) :: v(n)
    integer, intent(inout) :: idx(n)
    integer :: i, j, ti
    real(dp) :: tv
    do i = 2, n
      tv = v(i); ti = idx(i)
      j = i - 1
      do while (j >= 1)
        if (v(j) >= tv) exit
        v(j + 1) = v(j); idx(j + 1) = idx(j)
        j = j - 1
      end do
      v(j + 1) = tv; idx(j + 1) = ti
    end do
  end subroutine sort_desc

  subroutine glue_bounds(fname, boundsname, prec, temp, pet, obs, nbeh)
    character(len=*), intent(in) :: fname, boundsname
    real(dp), intent(in) :: prec(ndays), temp(ndays), pet(ndays), obs(ndays)
    integer, intent(out) :: nbeh
    real(dp), allocatable :: allpar(:,:), alle(:), qs(:,:)
    integer, allocatable :: idx(:)
    real(dp) :: w(nkeep), col(nkeep), cw, lo, mid, hi, par(npar), e
    integer :: u, k, n, np, d, j, ord(nkeep), kk, nk
    open(newunit=u, file=fname, form='unformatted', access='sequential', status='old', &
         action='read')
    read(u) n, np
    allocate(allpar(npar, n), alle(n), idx(n))
    do k = 1, n
      read(u) kk, par, e
      allpar(:, k) = par
      alle(k) = e
      idx(k) = k
    end do
    close(u)
    call sort_desc(alle, idx, n)
    nbeh = count(alle >= nse_behavioural)
    nk = max(1, min(nkeep, nbeh))
    allocate(qs(ndays, nk))
    do k = 1, nk
      call simulate(allpar(:, idx(k)), prec, temp, pet, qs(:, k))
      w(k) = max(alle(k), 0.0_dp) + 1.0e-6_dp
    end do
    w(1:nk) = w(1:nk) / sum(w(1:nk))
    open(newunit=u, file=boundsname, status='replace', action='write')
    write(u, '(a)') '#  day        obs          q05          q50          q95'
    do d = 1, ndays
      col(1:nk) = qs(d, 1:nk)
      do j = 1, nk
        ord(j) = j
      end do
      call sort_desc(col, ord, nk)
      cw = 0.0_dp
      lo = col(nk); mid = col(nk); hi = col(1)
      do j = nk, 1, -1                  ! ascending order
        cw = cw + w(ord(j))
        if (cw < 0.05_dp) lo = col(j)
        if (cw < 0.50_dp) mid = col(j)
        if (cw < 0.95_dp) hi = col(j)
      end do
      write(u, '(i6,4es13.5)') d, obs(d), lo, mid, hi
    end do
    close(u)
  end subroutine glue_bounds
end module glue

program hbv_catchment_calib
  use hbv_kinds
  use hbv_model
  use catchment_io
  use glue
  use dir_util
  implicit none
  character(len=512) :: dir
  character(len=600) :: ff, fo, fm, fb
  real(dp) :: prec(ndays), temp(ndays), pet(ndays), obs(ndays), q(ndays)
  real(dp) :: truth(npar), best(npar), bnse
  integer :: ic, j, us, nbeh

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) stop 'usage: hbv_catchment_calib OUTDIR'
  call make_dir(dir)
  open(newunit=us, file=trim(dir) // '/calibration_summary.txt', status='replace', action='write')
  write(us, '(a)') '# catch  NSE_best  n_behav   TT  CFMAX    FC    LP  BETA    K0    K1     K2  PERC'

  do ic = 1, ncatch
    write(ff, '(a,"/forcing_",i2.2,".txt")') trim(dir), ic
    write(fo, '(a,"/qobs_",i2.2,".txt")') trim(dir), ic
    write(fm, '(a,"/mc_runs_",i2.2,".bin")') trim(dir), ic
    write(fb, '(a,"/glue_bounds_",i2.2,".txt")') trim(dir), ic
    call write_forcing(trim(ff), ic)
    call read_forcing(trim(ff), prec, temp, pet)
    do j = 1, npar
      truth(j) = plo(j) + (phi(j) - plo(j)) * (0.25_dp + 0.5_dp * urand())
    end do
    call simulate(truth, prec, temp, pet, q)
    do j = 1, ndays
      q(j) = q(j) * (1.0_dp + 0.15_dp * (urand() - 0.5_dp))
    end do
    call write_series(trim(fo), q, 'observed discharge mm/d')
    call read_series(trim(fo), obs)
    call monte_carlo(trim(fm), prec, temp, pet, obs, best, bnse)
    call glue_bounds(trim(fm), trim(fb), prec, temp, pet, obs, nbeh)
    write(us, '(i6,f10.4,i9,f6.2,f7.2,f7.1,f6.2,f6.2,f6.3,f6.3,f7.4,f6.2)') ic, bnse, nbeh, best
    print '(a,i2,a,f8.4,a,i5)', 'catchment ', ic, ' best NSE ', bnse, ' behavioural ', nbeh
  end do
  close(us)
end program hbv_catchment_calib
