! orchard_frost_inversion_profiles.f90
!
! Radiation-frost night in a set of orchard blocks.  Each block is a 1-D
! column of air (stable boundary layer with Richardson-number-limited
! mixing length diffusivity and layer-to-layer longwave exchange) coupled
! to a conducting soil column.  When the canopy-height temperature drops
! below the alarm threshold a wind machine switches on and mixes warm
! inversion air down.  Every NOUT steps a formatted profile table is
! written; alarm switching is logged; afterwards the profile file is read
! back to build a per-block frost summary.
!
! usage: orchard_frost_inversion_profiles OUTDIR
module frost_mod
  use, intrinsic :: iso_fortran_env, only: dp => real64, int64, error_unit
  implicit none

  integer, parameter :: nblk = 16          ! orchard blocks
  integer, parameter :: nza = 72           ! air levels
  integer, parameter :: nzs = 30           ! soil levels
  integer, parameter :: nstep = 2880       ! 8 h at dt = 10 s
  integer, parameter :: nout = 30          ! profile every 5 min
  integer, parameter :: nrad = 3           ! longwave update interval
  real(dp), parameter :: dt = 10.0_dp
  real(dp), parameter :: dza = 0.6_dp, dzs = 0.03_dp
  real(dp), parameter :: sigma = 5.670374e-8_dp, vk = 0.4_dp
  real(dp), parameter :: rhocp = 1.2_dp * 1005.0_dp
  real(dp), parameter :: t_alarm = 273.15_dp - 0.5_dp
  real(dp), parameter :: t_off = 273.15_dp + 0.8_dp
  integer, parameter :: k_canopy = 3       ! ~1.5 m

  type site_t
     character(len=16) :: name
     real(dp) :: ustar_wind      ! geostrophic-ish wind at top [m/s]
     real(dp) :: t_air0          ! evening air temperature [K]
     real(dp) :: lapse           ! initial lapse [K/m]
     real(dp) :: sky_emis        ! effective sky emissivity
     real(dp) :: soil_k          ! soil conductivity [W/m/K]
     real(dp) :: soil_c          ! volumetric heat capacity [J/m3/K]
     real(dp) :: z0              ! roughness length [m]
  end type site_t

  type(site_t) :: sites(nblk)
  character(len=512) :: outdir
  integer(int64) :: seed = 20240611_int64

contains

  subroutine die(msg)
    character(len=*), intent(in) :: msg
    write(error_unit, '(a)') 'orchard_frost: ' // trim(msg)
    error stop 2
  end subroutine die

  real(dp) function urand()
    seed = mod(seed * 48271_int64, 2147483647_int64)
    urand = real(seed, dp) / 2147483647.0_dp
  end function urand

  ! generate the site description file (formatted, fixed columns)
  subroutine write_site_file(path)
    character(len=*), intent(in) :: path
    integer :: u, ios, b
    open(newunit=u, file=path, status='replace', action='write', iostat=ios)
    if (ios /= 0) call die('cannot create ' // trim(path))
    write(u, '(a)', iostat=ios) '# block            wind   t_air0   lapse  skyemis  soil_k   soil_c      z0'
    if (ios /= 0) call die('write error on site file')
    do b = 1, nblk
       write(u, '(a,i3.3,10x,f6.2,f9.3,f8.4,f9.4,f8.3,es10.3,f8.4)', iostat=ios) &
            'blk', b, 1.0_dp + 2.5_dp * urand(), 276.0_dp + 5.0_dp * urand(), &
            0.02_dp + 0.06_dp * urand(), 0.62_dp + 0.15_dp * urand(), &
            0.6_dp + 1.2_dp * urand(), 1.6e6_dp + 1.0e6_dp * urand(), &
            0.02_dp + 0.2_dp * urand()
       if (ios /= 0) call die('write error on site file')
    end do
    close(u, iostat=ios)
    if (ios /= 0) call die('close error on site file')
  end subroutine write_site_file

  subroutine read_site_file(path)
    character(len=*), intent(in) :: path
    integer :: u, ios, b
    character(len=128) :: line
    open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) call die('cannot open ' // trim(path))
    read(u, '(a)', iostat=ios) line
    if (ios /= 0) call die('site header missing')
    do b = 1, nblk
       read(u, '(a)', iostat=ios) line
       if (ios /= 0) call die('site file truncated')
       sites(b)%name = line(1:6)
       read(line(7:), *, iostat=ios) sites(b)%ustar_wind, sites(b)%t_air0, sites(b)%lapse, &
            sites(b)%sky_emis, sites(b)%soil_k, sites(b)%soil_c, sites(b)%z0
       if (ios /= 0) call die('bad site record: ' // trim(line))
    end do
    close(u, iostat=ios)
  end subroutine read_site_file

  subroutine init_column(s, ta, ts, za)
    type(site_t), intent(in) :: s
    real(dp), intent(out) :: ta(nza), ts(nzs), za(nza)
    integer :: k
    do k = 1, nza
       za(k) = (real(k, dp) - 0.5_dp) * dza
       ta(k) = s%t_air0 + s%lapse * 0.2_dp * za(k) - 1.5_dp * exp(-za(k) / 2.0_dp)
    end do
    do k = 1, nzs
       ts(k) = s%t_air0 + 2.0_dp + 3.0_dp * (1.0_dp - exp(-real(k, dp) * dzs / 0.3_dp))
    end do
  end subroutine init_column

  ! layer-to-layer longwave exchange (grey gas, exponential transmission)
  subroutine longwave_divergence(s, ta, tg, za, q)
    type(site_t), intent(in) :: s
    real(dp), intent(in) :: ta(nza), tg, za(nza)
    real(dp), intent(out) :: q(nza)
    real(dp), parameter :: kap = 0.035_dp, eps = 0.02_dp
    real(dp) :: e(nza), tr, acc, sky
    integer :: i, j
    do i = 1, nza
       e(i) = sigma * ta(i)**4
    end do
    sky = s%sky_emis * sigma * ta(nza)**4
    do i = 1, nza
       acc = 0.0_dp
       do j = 1, nza
          if (j == i) cycle
          tr = exp(-kap * abs(za(i) - za(j)))
          acc = acc + eps * eps * tr * (e(j) - e(i))
       end do
       acc = acc + eps * exp(-kap * za(i)) * (sigma * tg**4 - e(i))
       acc = acc + eps * exp(-kap * (za(nza) + 50.0_dp - za(i))) * (sky - e(i))
       q(i) = acc / (rhocp * dza)
    end do
  end subroutine longwave_divergence

  subroutine eddy_diffusivity(s, ta, za, fan_on, kh, ri)
    type(site_t), intent(in) :: s
    real(dp), intent(in) :: ta(nza), za(nza)
    logical, intent(in) :: fan_on
    real(dp), intent(out) :: kh(nza), ri(nza)
    real(dp) :: dudz, dthdz, l, fri, zf
    integer :: k
    do k = 1, nza - 1
       zf = 0.5_dp * (za(k) + za(k + 1))
       dudz = 0.07_dp * s%ustar_wind / (vk * (zf + s%z0))
       dthdz = (ta(k + 1) - ta(k)) / dza + 0.0098_dp
       ri(k) = 9.81_dp / ta(k) * dthdz / max(dudz * dudz, 1.0e-6_dp)
       if (ri(k) > 0.0_dp) then
          fri = 1.0_dp / (1.0_dp + 10.0_dp * ri(k))**2
       else
          fri = sqrt(1.0_dp - 16.0_dp * ri(k))
       end if
       l = vk * zf / (1.0_dp + vk * zf / 20.0_dp)
       kh(k) = max(l * l * dudz * fri, 0.01_dp)
       if (fan_on .and. zf < 10.0_dp) kh(k) = kh(k) + 1.5_dp * exp(-zf / 6.0_dp)
    end do
    kh(nza) = kh(nza - 1)
    ri(nza) = ri(nza - 1)
  end subroutine eddy_diffusivity

  subroutine solve_tridiag(n, a, b, c, d, x)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n), b(n), c(n), d(n)
    real(dp), intent(out) :: x(n)
    real(dp) :: cp(n), dp_(n), m
    integer :: i
    cp(1) = c(1) / b(1)
    dp_(1) = d(1) / b(1)
    do i = 2, n
       m = b(i) - a(i) * cp(i - 1)
       cp(i) = c(i) / m
       dp_(i) = (d(i) - a(i) * dp_(i - 1)) / m
    end do
    x(n) = dp_(n)
    do i = n - 1, 1, -1
       x(i) = dp_(i) - cp(i) * x(i + 1)
    end do
  end subroutine solve_tridiag

  ! implicit diffusion step for air and soil with surface energy balance
  subroutine step_column(s, ta, ts, kh, q)
    type(site_t), intent(in) :: s
    real(dp), intent(inout) :: ta(nza), ts(nzs)
    real(dp), intent(in) :: kh(nza), q(nza)
    real(dp) :: a(nza), b(nza), c(nza), d(nza)
    real(dp) :: as(nzs), bs(nzs), cs(nzs), ds(nzs)
    real(dp) :: r, h, lnet, g, ch, alpha
    integer :: k
    ch = (vk / log(1.0_dp / s%z0 + 1.0_dp))**2 * max(s%ustar_wind * 0.3_dp, 0.1_dp)
    h = rhocp * ch * (ts(1) - ta(1))
    lnet = 0.97_dp * (s%sky_emis * sigma * ta(nza)**4 - sigma * ts(1)**4)
    do k = 1, nza
       r = dt / (dza * dza)
       a(k) = 0.0_dp; c(k) = 0.0_dp
       if (k > 1) a(k) = -r * kh(k - 1)
       if (k < nza) c(k) = -r * kh(k)
       b(k) = 1.0_dp - a(k) - c(k)
       d(k) = ta(k) + dt * q(k)
    end do
    d(1) = d(1) + dt * h / (rhocp * dza)
    d(nza) = d(nza) + 0.0_dp
    call solve_tridiag(nza, a, b, c, d, ta)
    alpha = s%soil_k / s%soil_c
    g = lnet - h
    do k = 1, nzs
       r = alpha * dt / (dzs * dzs)
       as(k) = -r; cs(k) = -r
       bs(k) = 1.0_dp + 2.0_dp * r
       ds(k) = ts(k)
    end do
    as(1) = 0.0_dp
    bs(1) = 1.0_dp + r
    ds(1) = ds(1) + dt * g / (s%soil_c * dzs)
    cs(nzs) = 0.0_dp
    bs(nzs) = 1.0_dp + r
    call solve_tridiag(nzs, as, bs, cs, ds, ts)
  end subroutine step_column

  subroutine write_profile_table(u, blk, step, ta, ts, za, kh, ri, fan_on)
    integer, intent(in) :: u, blk, step
    real(dp), intent(in) :: ta(nza), ts(nzs), za(nza), kh(nza), ri(nza)
    logical, intent(in) :: fan_on
    integer :: k, ios
    write(u, '(a,i3.3,a,i6,a,f8.2,a,l1)', iostat=ios) '# blk', blk, ' step', step, &
         ' t_min', real(step, dp) * dt / 60.0_dp, ' fan ', fan_on
    if (ios /= 0) call die('profile header write failed')
    do k = 1, nza
       write(u, '(a1,f8.3,f10.4,f9.3,es12.4,f10.4)', iostat=ios) 'A', za(k), ta(k), &
            ta(k) - 273.15_dp, kh(k), ri(k)
       if (ios /= 0) call die('profile write failed')
    end do
    do k = 1, nzs
       write(u, '(a1,f8.3,f10.4,f9.3)', iostat=ios) 'S', -real(k, dp) * dzs, ts(k), ts(k) - 273.15_dp
       if (ios /= 0) call die('profile write failed')
    end do
  end subroutine write_profile_table

  subroutine log_alarm(u, blk, step, tcan, on)
    integer, intent(in) :: u, blk, step
    real(dp), intent(in) :: tcan
    logical, intent(in) :: on
    integer :: ios
    character(len=3) :: state
    state = 'OFF'
    if (on) state = 'ON '
    write(u, '(a,i3.3,1x,i6,1x,f9.2,1x,f8.3,1x,a)', iostat=ios) 'blk', blk, step, &
         real(step, dp) * dt / 60.0_dp, tcan - 273.15_dp, state
    if (ios /= 0) call die('alarm log write failed')
    flush(u, iostat=ios)
    if (ios /= 0) call die('alarm log flush failed')
  end subroutine log_alarm

  subroutine run_block(blk, up, ua, fan_minutes)
    integer, intent(in) :: blk, up, ua
    real(dp), intent(out) :: fan_minutes
    real(dp) :: ta(nza), ts(nzs), za(nza), kh(nza), ri(nza), q(nza)
    logical :: fan_on
    integer :: n
    call init_column(sites(blk), ta, ts, za)
    fan_on = .false.
    fan_minutes = 0.0_dp
    q = 0.0_dp
    do n = 1, nstep
       if (mod(n - 1, nrad) == 0) call longwave_divergence(sites(blk), ta, ts(1), za, q)
       call eddy_diffusivity(sites(blk), ta, za, fan_on, kh, ri)
       call step_column(sites(blk), ta, ts, kh, q)
       if (.not. fan_on .and. ta(k_canopy) < t_alarm) then
          fan_on = .true.
          call log_alarm(ua, blk, n, ta(k_canopy), fan_on)
       else if (fan_on .and. ta(k_canopy) > t_off) then
          fan_on = .false.
          call log_alarm(ua, blk, n, ta(k_canopy), fan_on)
       end if
       if (fan_on) fan_minutes = fan_minutes + dt / 60.0_dp
       if (mod(n, nout) == 0) call write_profile_table(up, blk, n, ta, ts, za, kh, ri, fan_on)
    end do
  end subroutine run_block

  ! re-read the profile tables and derive frost statistics per block
  subroutine summarize_profiles(path, tmin, below, inv_max)
    character(len=*), intent(in) :: path
    real(dp), intent(out) :: tmin(nblk), below(nblk), inv_max(nblk)
    integer :: u, ios, blk, step, nlines
    character(len=96) :: line
    real(dp) :: z, tk, tc, kk, rr, tcan, ttop
    blk = 0
    tmin = 999.0_dp; below = 0.0_dp; inv_max = -999.0_dp
    tcan = 0.0_dp; ttop = 0.0_dp; nlines = 0
    open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) call die('cannot reopen profiles')
    do
       read(u, '(a)', iostat=ios) line
       if (ios /= 0) exit
       nlines = nlines + 1
       if (line(1:1) == '#') then
          read(line(6:8), '(i3)', iostat=ios) blk
          if (ios /= 0) call die('bad profile header')
          read(line(14:19), '(i6)', iostat=ios) step
          if (ios /= 0) call die('bad profile header')
       else if (line(1:1) == 'A') then
          read(line(2:), *, iostat=ios) z, tk, tc, kk, rr
          if (ios /= 0) call die('bad air record')
          if (abs(z - (real(k_canopy, dp) - 0.5_dp) * dza) < 1.0e-3_dp) then
             tcan = tc
             tmin(blk) = min(tmin(blk), tc)
             if (tc < 0.0_dp) below(blk) = below(blk) + real(nout, dp) * dt / 60.0_dp
          end if
          if (abs(z - 15.0_dp) < 0.31_dp) then
             ttop = tc
             inv_max(blk) = max(inv_max(blk), ttop - tcan)
          end if
       end if
    end do
    if (.not. is_iostat_end(ios)) call die('read error on profiles')
    close(u)
    if (nlines < nblk) call die('profile file too short')
  end subroutine summarize_profiles

  subroutine write_summary(path, fanmin, tmin, below, inv_max)
    character(len=*), intent(in) :: path
    real(dp), intent(in) :: fanmin(nblk), tmin(nblk), below(nblk), inv_max(nblk)
    integer :: u, ios, b
    open(newunit=u, file=path, status='replace', action='write', iostat=ios)
    if (ios /= 0) call die('cannot create summary')
    write(u, '(a)', iostat=ios) 'block   wind  skyemis   Tmin_can[C]  min_below0  max_inv[K]  fan_min'
    do b = 1, nblk
       write(u, '(a6,f7.2,f9.3,f14.3,f12.1,f12.3,f9.1)', iostat=ios) sites(b)%name, &
            sites(b)%ustar_wind, sites(b)%sky_emis, tmin(b), below(b), inv_max(b), fanmin(b)
       if (ios /= 0) call die('summary write failed')
    end do
    close(u, iostat=ios)
    if (ios /= 0) call die('summary close failed')
  end subroutine write_summary

end module frost_mod

program orchard_frost_inversion_profiles
  use frost_mod
  implicit none
  integer :: up, ua, ios, b, nargs
  real(dp) :: fanmin(nblk), tmin(nblk), below(nblk), inv_max(nblk)

  nargs = command_argument_count()
  if (nargs /= 1) call die('usage: orchard_frost_inversion_profiles OUTDIR')
  call get_command_argument(1, outdir)

  call write_site_file(trim(outdir) // '/sites.txt')
  call read_site_file(trim(outdir) // '/sites.txt')

  open(newunit=up, file=trim(outdir) // '/profiles.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) call die('cannot create profiles.txt')
  open(newunit=ua, file=trim(outdir) // '/alarms.log', status='replace', action='write', iostat=ios)
  if (ios /= 0) call die('cannot create alarms.log')
  do b = 1, nblk
     call run_block(b, up, ua, fanmin(b))
  end do
  close(up, iostat=ios)
  if (ios /= 0) call die('close profiles failed')
  close(ua, iostat=ios)
  if (ios /= 0) call die('close alarms failed')

  call summarize_profiles(trim(outdir) // '/profiles.txt', tmin, below, inv_max)
  call write_summary(trim(outdir) // '/frost_summary.txt', fanmin, tmin, below, inv_max)

  write(*, '(a,i0,a,i0,a)') 'orchard frost: ', nblk, ' blocks, ', nstep, ' steps each'
  write(*, '(a,f8.3,a,f8.3)') 'coldest canopy minimum [C]: ', minval(tmin), '  warmest: ', maxval(tmin)
  write(*, '(a,f10.1)') 'total wind-machine minutes: ', sum(fanmin)
end program orchard_frost_inversion_profiles
