! Perturbed-parameter ensemble of a seasonal 1D energy-balance climate model;
! members write unformatted histories and a shared direct-access final state,
! then a post-processing pass reads all members in lockstep for statistics.
module ebm_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nlat = 120, nmem = 24
  integer, parameter :: nyears = 20, steps_per_year = 360, out_every = 10
  integer, parameter :: nout = nyears * steps_per_year / out_every
  real(dp), parameter :: pi = 3.141592653589793_dp
  real(dp), parameter :: s0 = 1365.0_dp, heatcap = 4.0e7_dp   ! J m-2 K-1 (~10 m mixed layer)
  real(dp), parameter :: year_s = 3.15576e7_dp
  real(dp), parameter :: dtime = year_s / steps_per_year
  real(dp), parameter :: obliquity = 23.44_dp * pi / 180.0_dp

  type member_params
    real(dp) :: a_olr, b_olr, diff, alb_ice, alb_ocean
  end type member_params

contains

  subroutine lat_grid(x, lat, w)
    real(dp), intent(out) :: x(nlat), lat(nlat), w(nlat)
    integer :: j
    do j = 1, nlat
      x(j) = -1.0_dp + (2.0_dp * j - 1.0_dp) / nlat   ! sine of latitude, equal area
      lat(j) = asin(x(j)) * 180.0_dp / pi
    end do
    w = 1.0_dp / nlat
  end subroutine lat_grid

  ! Daily-mean top-of-atmosphere insolation at sin(latitude) x on day-of-year fraction.
  pure real(dp) function insolation(x, yfrac)
    real(dp), intent(in) :: x, yfrac
    real(dp) :: decl, phi, h0, arg
    decl = obliquity * sin(2.0_dp * pi * (yfrac - 0.2225_dp))
    phi = asin(x)
    arg = -tan(phi) * tan(decl)
    if (arg >= 1.0_dp) then
      h0 = 0.0_dp
    else if (arg <= -1.0_dp) then
      h0 = pi
    else
      h0 = acos(arg)
    end if
    insolation = s0 / pi * (1.0_dp + 0.0334_dp * cos(2.0_dp * pi * yfrac)) * &
                 (h0 * sin(phi) * sin(decl) + cos(phi) * cos(decl) * sin(h0))
  end function insolation

  pure real(dp) function albedo(t, par)
    real(dp), intent(in) :: t
    type(member_params), intent(in) :: par
    ! smooth transition around -10 C
    albedo = par%alb_ocean + 0.5_dp * (par%alb_ice - par%alb_ocean) * &
             (1.0_dp - tanh((t + 10.0_dp) / 3.0_dp))
  end function albedo

  ! Backward-Euler diffusion d/dx[(1-x^2) dT/dx] solved with the Thomas algorithm.
  subroutine implicit_step(t, x, forcing, par)
    real(dp), intent(inout) :: t(nlat)
    real(dp), intent(in) :: x(nlat), forcing(nlat)
    type(member_params), intent(in) :: par
    real(dp) :: lo(nlat), di(nlat), up(nlat), rhs(nlat), cp(nlat), dx, xm, xp, k
    integer :: j
    dx = 2.0_dp / nlat
    k = par%diff * dtime / (heatcap * dx * dx)
    do j = 1, nlat
      xm = x(j) - 0.5_dp * dx
      xp = x(j) + 0.5_dp * dx
      lo(j) = -k * (1.0_dp - xm * xm)
      up(j) = -k * (1.0_dp - xp * xp)
      if (j == 1) lo(j) = 0.0_dp
      if (j == nlat) up(j) = 0.0_dp
      di(j) = 1.0_dp - lo(j) - up(j) + par%b_olr * dtime / heatcap
      rhs(j) = t(j) + dtime / heatcap * (forcing(j) - par%a_olr)
    end do
    cp(1) = up(1) / di(1)
    rhs(1) = rhs(1) / di(1)
    do j = 2, nlat
      cp(j) = up(j) / (di(j) - lo(j) * cp(j - 1))
      rhs(j) = (rhs(j) - lo(j) * rhs(j - 1)) / (di(j) - lo(j) * cp(j - 1))
    end do
    t(nlat) = rhs(nlat)
    do j = nlat - 1, 1, -1
      t(j) = rhs(j) - cp(j) * t(j + 1)
    end do
  end subroutine implicit_step

  subroutine run_member(m, par, x, fname, final_unit)
    integer, intent(in) :: m, final_unit
    type(member_params), intent(in) :: par
    real(dp), intent(in) :: x(nlat)
    character(len=*), intent(in) :: fname
    real(dp) :: t(nlat), forcing(nlat), yfrac
    integer :: un, ios, step, j
    open(newunit=un, file=fname, form='unformatted', access='sequential', &
         status='replace', action='write', iostat=ios)
    if (ios /= 0) then
      write(0, '(2a)') 'ebm_ensemble_post: cannot create ', trim(fname)
      error stop 1
    end if
    write(un) m, nlat, nout, par%a_olr, par%b_olr, par%diff
    t = 12.0_dp - 30.0_dp * x * x
    do step = 1, nyears * steps_per_year
      yfrac = mod(real(step, dp), real(steps_per_year, dp)) / steps_per_year
      do j = 1, nlat
        forcing(j) = insolation(x(j), yfrac) * (1.0_dp - albedo(t(j), par))
      end do
      call implicit_step(t, x, forcing, par)
      if (mod(step, out_every) == 0) write(un) step * dtime / year_s, t
    end do
    close(un)
    write(final_unit, rec=m) t
  end subroutine run_member

end module ebm_mod

program ebm_ensemble_post
  use ebm_mod
  use iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  interface
    integer(c_int) function c_mkdir(path, mode) bind(c, name='mkdir')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: mode
    end function c_mkdir
  end interface
  character(len=1024) :: outdir
  character(len=1200) :: fname
  type(member_params) :: par(nmem)
  real(dp) :: x(nlat), lat(nlat), w(nlat), tm(nlat, nmem), yr(nmem)
  real(dp) :: emean(nlat), estd(nlat), gmean(nmem), ann(nlat), iceline(nmem)
  real(dp) :: r(5), tfinal(nlat)
  integer :: m, k, j, fun, sun, gun, ios, rc, rl, hm, hn, hnout, year, nin
  integer :: units(nmem)
  integer(8) :: fsize
  logical :: there
  real(dp) :: ha, hb, hd

  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: ebm_ensemble_post OUTDIR'
    error stop 2
  end if
  call get_command_argument(1, outdir)
  rc = c_mkdir(trim(outdir) // c_null_char, int(o'755', c_int))
  rc = c_mkdir(trim(outdir) // '/members' // c_null_char, int(o'755', c_int))

  call lat_grid(x, lat, w)
  call random_seed(put=[(314159 + 7 * k, k = 1, 64)])
  do m = 1, nmem
    call random_number(r)
    par(m)%a_olr = 203.0_dp + 8.0_dp * (r(1) - 0.5_dp)
    par(m)%b_olr = 2.09_dp + 0.3_dp * (r(2) - 0.5_dp)
    par(m)%diff = 0.55_dp + 0.3_dp * (r(3) - 0.5_dp)
    par(m)%alb_ice = 0.62_dp + 0.1_dp * (r(4) - 0.5_dp)
    par(m)%alb_ocean = 0.30_dp + 0.04_dp * (r(5) - 0.5_dp)
  end do

  inquire(iolength=rl) tfinal
  open(newunit=fun, file=trim(outdir) // '/ensemble_final.da', access='direct', &
       recl=rl, form='unformatted', status='replace', action='readwrite', iostat=ios)
  if (ios /= 0) then
    write(0, '(a)') 'ebm_ensemble_post: cannot create ensemble_final.da'
    error stop 1
  end if

  do m = 1, nmem
    write(fname, '(a,a,i3.3,a)') trim(outdir), '/members/member_', m, '.bin'
    call run_member(m, par(m), x, trim(fname), fun)
  end do

  ! ---- post-processing: read every member in lockstep ----
  do m = 1, nmem
    write(fname, '(a,a,i3.3,a)') trim(outdir), '/members/member_', m, '.bin'
    inquire(file=trim(fname), exist=there, size=fsize)
    if (.not. there .or. fsize <= 0) then
      write(0, '(2a)') 'ebm_ensemble_post: missing member file ', trim(fname)
      error stop 1
    end if
    open(newunit=units(m), file=trim(fname), form='unformatted', access='sequential', &
         status='old', action='read')
    read(units(m)) hm, hn, hnout, ha, hb, hd
    if (hm /= m .or. hn /= nlat .or. hnout /= nout) then
      write(0, '(2a)') 'ebm_ensemble_post: header mismatch in ', trim(fname)
      error stop 1
    end if
  end do

  open(newunit=sun, file=trim(outdir) // '/ensemble_annual.txt', status='replace', &
       action='write')
  write(sun, '(a)') '# year  lat  mean_T  std_T'
  open(newunit=gun, file=trim(outdir) // '/global_mean.csv', status='replace', &
       action='write')
  write(gun, '(a)', advance='no') 'time'
  do m = 1, nmem
    write(gun, '(a,i0)', advance='no') ',m', m
  end do
  write(gun, '(a)') ''

  ann = 0.0_dp
  nin = 0
  year = 1
  do k = 1, nout
    do m = 1, nmem
      read(units(m), iostat=ios) yr(m), tm(:, m)
      if (ios /= 0) then
        write(0, '(a,i0)') 'ebm_ensemble_post: short member file ', m
        error stop 1
      end if
      gmean(m) = sum(w * tm(:, m))
    end do
    write(gun, '(f9.4,*(:,",",f8.3))') yr(1), gmean
    do j = 1, nlat
      emean(j) = sum(tm(j, :)) / nmem
    end do
    ann = ann + emean
    nin = nin + 1
    if (nin == steps_per_year / out_every) then
      ann = ann / nin
      do j = 1, nlat
        estd(j) = sqrt(sum((tm(j, :) - emean(j))**2) / (nmem - 1))
        write(sun, '(i5,f8.2,2f9.3)') year, lat(j), ann(j), estd(j)
      end do
      ann = 0.0_dp
      nin = 0
      year = year + 1
    end if
  end do
  do m = 1, nmem
    close(units(m))
  end do
  close(gun)
  close(sun)

  ! ---- final states from the direct-access file: ice-line latitude ----
  do m = nmem, 1, -1
    read(fun, rec=m) tfinal
    iceline(m) = 90.0_dp
    do j = nlat / 2 + 1, nlat
      if (tfinal(j) < -10.0_dp) then
        iceline(m) = lat(j)
        exit
      end if
    end do
  end do
  close(fun)
  open(newunit=sun, file=trim(outdir) // '/iceline.txt', status='replace', action='write')
  write(sun, '(a)') '# member  A  B  D  alb_ice  iceline_lat'
  do m = 1, nmem
    write(sun, '(i4,5f10.4)') m, par(m)%a_olr, par(m)%b_olr, par(m)%diff, &
         par(m)%alb_ice, iceline(m)
  end do
  close(sun)
  write(*, '(a,i0,a,i0,a,f7.2)') 'members ', nmem, ', records per member ', nout, &
       ', mean ice line ', sum(iceline) / nmem
end program ebm_ensemble_post
