! Tephra fallout from a sustained Plinian eruption column.
! Ash of several grain-size classes is released along a vertical line source,
! transported by a time-varying wind with eddy diffusion (2-D vertically
! integrated plume per class), and removed by settling onto the ground.
! Every NOUT steps the ground deposit (kg/m^2) is written as a formatted table,
! together with downwind axis profiles; at the end the tables are re-read to
! build isopach areas and a mass-balance check.
module tephra_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 200, ny = 150, ncls = 6
  integer, parameter :: nstep = 400, nout = 50
  real(dp), parameter :: dx = 2000.0_dp, dt = 20.0_dp
  real(dp), parameter :: kdiff = 1500.0_dp         ! horizontal eddy diffusivity m^2/s
  real(dp), parameter :: vent_x = 30.0_dp * dx, vent_y = 75.0_dp * dx
  real(dp), parameter :: col_height = 18000.0_dp   ! m
  real(dp), parameter :: mer = 2.0e6_dp            ! mass eruption rate kg/s
  real(dp) :: phi(ncls), vset(ncls), frac(ncls), relh(ncls)
  real(dp), allocatable :: conc(:,:,:)   ! column load kg/m^2 in air
  real(dp), allocatable :: dep(:,:,:)    ! deposit kg/m^2 per class
  real(dp) :: erupted_mass = 0.0_dp
contains

  subroutine init_grain_classes()
    integer :: k
    real(dp) :: d, rho, mu, g, vs, re, cd, s
    ! grain sizes phi = -1..4 ; Gaussian total grain size distribution
    g = 9.81_dp; rho = 2300.0_dp; mu = 1.8e-5_dp
    s = 0.0_dp
    do k = 1, ncls
      phi(k) = real(k - 2, dp)
      d = 1.0e-3_dp * 2.0_dp**(-phi(k))
      ! iterate on drag coefficient (Ganser-like) for terminal velocity
      vs = rho * g * d * d / (18.0_dp * mu)
      do
        re = 1.2_dp * vs * d / mu
        cd = 24.0_dp / max(re, 1.0e-6_dp) * (1.0_dp + 0.15_dp * re**0.687_dp) + 0.42_dp / (1.0_dp + 42500.0_dp / re**1.16_dp)
        if (abs(sqrt(4.0_dp * rho * g * d / (3.0_dp * cd * 1.2_dp)) - vs) < 1.0e-6_dp) exit
        vs = 0.5_dp * (vs + sqrt(4.0_dp * rho * g * d / (3.0_dp * cd * 1.2_dp)))
      end do
      vset(k) = vs
      frac(k) = exp(-0.5_dp * ((phi(k) - 1.0_dp) / 1.5_dp)**2)
      s = s + frac(k)
      ! fine ash is released higher in the umbrella cloud
      relh(k) = col_height * (0.55_dp + 0.07_dp * real(k, dp))
    end do
    frac = frac / s
  end subroutine init_grain_classes

  subroutine wind_at(t, u, v)
    real(dp), intent(in) :: t
    real(dp), intent(out) :: u, v
    real(dp) :: spd, dir
    spd = 14.0_dp + 5.0_dp * sin(2.0_dp * 3.14159265_dp * t / 7200.0_dp)
    dir = 0.25_dp * sin(2.0_dp * 3.14159265_dp * t / 5400.0_dp + 0.7_dp)
    u = spd * cos(dir)
    v = spd * sin(dir)
  end subroutine wind_at

  subroutine inject_source(step)
    integer, intent(in) :: step
    integer :: k, i0, j0, di, dj
    real(dp) :: m, w, ws
    i0 = nint(vent_x / dx); j0 = nint(vent_y / dx)
    m = mer * dt * (1.0_dp + 0.3_dp * sin(real(step, dp) * 0.05_dp))
    erupted_mass = erupted_mass + m
    do k = 1, ncls
      ws = 0.0_dp
      do dj = -2, 2
        do di = -2, 2
          ws = ws + exp(-real(di*di + dj*dj, dp) / 2.0_dp)
        end do
      end do
      do dj = -2, 2
        do di = -2, 2
          w = exp(-real(di*di + dj*dj, dp) / 2.0_dp) / ws
          conc(i0+di, j0+dj, k) = conc(i0+di, j0+dj, k) + m * frac(k) * w / (dx * dx)
        end do
      end do
    end do
  end subroutine inject_source

  subroutine advect_diffuse(u, v)
    real(dp), intent(in) :: u, v
    real(dp), allocatable, save :: tmp(:,:)
    integer :: i, j, k
    real(dp) :: cx, cy, dd, fx, fy
    if (.not. allocated(tmp)) allocate(tmp(nx, ny))
    cx = u * dt / dx; cy = v * dt / dx; dd = kdiff * dt / (dx * dx)
    do k = 1, ncls
      tmp = 0.0_dp
      do j = 2, ny - 1
        do i = 2, nx - 1
          if (cx >= 0.0_dp) then
            fx = cx * (conc(i,j,k) - conc(i-1,j,k))
          else
            fx = cx * (conc(i+1,j,k) - conc(i,j,k))
          end if
          if (cy >= 0.0_dp) then
            fy = cy * (conc(i,j,k) - conc(i,j-1,k))
          else
            fy = cy * (conc(i,j+1,k) - conc(i,j,k))
          end if
          tmp(i,j) = conc(i,j,k) - fx - fy + dd * (conc(i+1,j,k) + conc(i-1,j,k) &
                     + conc(i,j+1,k) + conc(i,j-1,k) - 4.0_dp * conc(i,j,k))
        end do
      end do
      conc(:,:,k) = max(tmp, 0.0_dp)
    end do
  end subroutine advect_diffuse

  subroutine settle_deposit()
    integer :: i, j, k
    real(dp) :: rate, f
    do k = 1, ncls
      rate = vset(k) * dt / relh(k)
      f = 1.0_dp - exp(-rate)
      do j = 1, ny
        do i = 1, nx
          dep(i,j,k) = dep(i,j,k) + f * conc(i,j,k)
          conc(i,j,k) = (1.0_dp - f) * conc(i,j,k)
        end do
      end do
    end do
  end subroutine settle_deposit

  subroutine write_deposit_table(dir, iout, t)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: iout
    real(dp), intent(in) :: t
    character(len=512) :: fname
    integer :: u, ios, i, j
    write(fname, '(a,"/deposit_",i3.3,".tab")') trim(dir), iout
    open(newunit=u, file=trim(fname), status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('cannot open '//trim(fname))
    write(u, '(a,f10.1,a,i5,a,i5)', iostat=ios) '# tephra deposit t=', t, ' s  nx=', nx, ' ny=', ny
    write(u, '(a)', iostat=ios) '#     x_km      y_km   total_kgm2   coarse_kgm2   fine_kgm2   thick_mm'
    do j = 1, ny
      do i = 1, nx
        write(u, '(2f10.2,3es14.5,f11.4)', iostat=ios) real(i-1,dp)*dx/1000.0_dp, real(j-1,dp)*dx/1000.0_dp, &
             sum(dep(i,j,:)), sum(dep(i,j,1:3)), sum(dep(i,j,4:ncls)), sum(dep(i,j,:)) / 1000.0_dp
        if (ios /= 0) call fail('write error on '//trim(fname))
      end do
    end do
    close(u, iostat=ios)
    if (ios /= 0) call fail('close error on '//trim(fname))
  end subroutine write_deposit_table

  subroutine write_axis_profiles(u, t, uw, vw)
    integer, intent(in) :: u
    real(dp), intent(in) :: t, uw, vw
    integer :: i, j, k, ios
    real(dp) :: airload(ncls)
    j = nint(vent_y / dx)
    write(u, '(a,f10.1,a,2f8.3)', iostat=ios) '# t=', t, ' wind=', uw, vw
    if (ios /= 0) call fail('profile write error')
    do i = 1, nx
      do k = 1, ncls
        airload(k) = conc(i,j,k)
      end do
      write(u, '(f9.2,6es12.4,6es12.4)', iostat=ios) real(i-1,dp)*dx/1000.0_dp, dep(i,j,:), airload
      if (ios /= 0) call fail('profile write error')
    end do
    write(u, '(a)', iostat=ios) ''
  end subroutine write_axis_profiles

  subroutine isopach_from_tables(dir, nfile, su)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: nfile, su
    integer, parameter :: nlev = 5
    real(dp), parameter :: lev(nlev) = [0.1_dp, 1.0_dp, 10.0_dp, 50.0_dp, 100.0_dp]
    character(len=512) :: fname, line
    integer :: u, ios, f, n, l
    real(dp) :: x, y, tot, co, fi, th, area(nlev), mass, maxd
    do f = 1, nfile
      write(fname, '(a,"/deposit_",i3.3,".tab")') trim(dir), f
      open(newunit=u, file=trim(fname), status='old', action='read', iostat=ios)
      if (ios /= 0) call fail('cannot reopen '//trim(fname))
      read(u, '(a)', iostat=ios) line
      read(u, '(a)', iostat=ios) line
      area = 0.0_dp; mass = 0.0_dp; maxd = 0.0_dp; n = 0
      do
        read(u, '(2f10.2,3es14.5,f11.4)', iostat=ios) x, y, tot, co, fi, th
        if (ios < 0) exit
        if (ios > 0) call fail('read error on '//trim(fname))
        n = n + 1
        mass = mass + tot * dx * dx
        maxd = max(maxd, tot)
        do l = 1, nlev
          if (tot >= lev(l)) area(l) = area(l) + dx * dx / 1.0e6_dp
        end do
      end do
      close(u)
      if (n /= nx * ny) call fail('short table '//trim(fname))
      write(su, '(i4,es13.4,f11.3,5f11.1)', iostat=ios) f, mass, maxd, area
      if (ios /= 0) call fail('summary write error')
    end do
  end subroutine isopach_from_tables

  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    write(0, '(a)') 'tephra: '//trim(msg)
    error stop 1
  end subroutine fail
end module tephra_mod

program tephra_fallout
  use tephra_mod
  implicit none
  character(len=400) :: dir
  integer :: step, iout, pu, su, ios, nargs
  real(dp) :: t, u, v, airborne, deposited

  nargs = command_argument_count()
  if (nargs /= 1) then
    write(0, '(a)') 'usage: tephra_fallout_isopach_tables DIR'
    error stop 2
  end if
  call get_command_argument(1, dir)

  allocate(conc(nx, ny, ncls), dep(nx, ny, ncls))
  conc = 0.0_dp; dep = 0.0_dp
  call init_grain_classes()

  open(newunit=pu, file=trim(dir)//'/axis_profiles.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) call fail('cannot open axis_profiles.txt')

  iout = 0
  t = 0.0_dp
  do step = 1, nstep
    t = real(step, dp) * dt
    call wind_at(t, u, v)
    if (step <= (3 * nstep) / 4) call inject_source(step)
    call advect_diffuse(u, v)
    call settle_deposit()
    if (mod(step, nout) == 0) then
      iout = iout + 1
      call write_deposit_table(trim(dir), iout, t)
      call write_axis_profiles(pu, t, u, v)
    end if
  end do
  close(pu)

  open(newunit=su, file=trim(dir)//'/isopach_summary.txt', status='replace', action='write', iostat=ios)
  if (ios /= 0) call fail('cannot open isopach_summary.txt')
  write(su, '(a)') '# out   mass_kg   max_kgm2  A>0.1  A>1  A>10  A>50  A>100 (km^2)'
  call isopach_from_tables(trim(dir), iout, su)
  airborne = sum(conc) * dx * dx
  deposited = sum(dep) * dx * dx
  write(su, '(a,3es14.5)') '# erupted, deposited, airborne/out: ', erupted_mass, deposited, erupted_mass - deposited
  close(su)

  write(*, '(a,i0,a)') 'tephra: ', iout, ' deposit tables written'
  write(*, '(a,es12.4,a,f7.2,a)') 'tephra: erupted ', erupted_mass, ' kg, deposited ', &
       100.0_dp * deposited / erupted_mass, ' %'
  write(*, '(a,es12.4)') 'tephra: still airborne in domain ', airborne
end program tephra_fallout
