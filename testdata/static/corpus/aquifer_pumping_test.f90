! aquifer_pumping_test: transient drawdown in a confined aquifer around a
! well field with stepped pumping schedules (Theis solution with spatial and
! temporal superposition).  Parameters come from a namelist file the program
! writes and reads back; drawdown grids are stored as unformatted sequential
! records, observation-well hydrographs as a formatted table; the grids are
! re-read to build an ESRI ASCII max-drawdown map and the hydrographs are
! re-read to estimate transmissivity/storativity with Cooper-Jacob fits.
module aquifer_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: max_wells = 16, max_steps = 8, n_obs = 6
  real(dp), parameter :: pi = 3.141592653589793_dp

  real(dp) :: transmissivity = 0, storativity = 0, dx = 0
  integer :: nx = 0, ny = 0, nt = 0, n_hydro = 0, nwells = 0, nsteps = 0
  real(dp) :: t_end = 0
  real(dp) :: wx(max_wells), wy(max_wells)
  real(dp) :: step_time(max_steps), rate(max_wells, max_steps)
  real(dp) :: obs_x(n_obs), obs_y(n_obs)

contains

  subroutine write_namelist(path)
    character(*), intent(in) :: path
    integer :: u, i, k
    namelist /aquifer/ transmissivity, storativity, dx, nx, ny, nt, n_hydro, t_end
    namelist /wellfield/ nwells, nsteps, wx, wy, step_time, rate
    transmissivity = 350.0_dp   ! m2/day
    storativity = 2.0e-4_dp
    dx = 25.0_dp
    nx = 160; ny = 140; nt = 80; n_hydro = 600
    t_end = 30.0_dp
    nwells = 7; nsteps = 4
    wx = 0; wy = 0; rate = 0; step_time = 0
    do i = 1, nwells
      wx(i) = 600.0_dp + 330.0_dp * mod(i * 37, 7)
      wy(i) = 500.0_dp + 290.0_dp * mod(i * 53, 6)
      do k = 1, nsteps
        rate(i, k) = 400.0_dp + 150.0_dp * mod(i + 2 * k, 5) - 120.0_dp * (k - 1)
      end do
    end do
    step_time(1:nsteps) = [0.0_dp, 3.0_dp, 9.5_dp, 18.0_dp]
    open(newunit=u, file=path, status='replace', action='write')
    write(u, nml=aquifer)
    write(u, nml=wellfield)
    close(u)
  end subroutine write_namelist

  subroutine read_namelist(path)
    character(*), intent(in) :: path
    integer :: u, i
    namelist /aquifer/ transmissivity, storativity, dx, nx, ny, nt, n_hydro, t_end
    namelist /wellfield/ nwells, nsteps, wx, wy, step_time, rate
    transmissivity = 0; nx = 0; nwells = 0
    open(newunit=u, file=path, status='old', action='read')
    read(u, nml=aquifer)
    read(u, nml=wellfield)
    close(u)
    do i = 1, n_obs
      obs_x(i) = 150.0_dp + 520.0_dp * i
      obs_y(i) = 300.0_dp + 410.0_dp * mod(i, 4)
    end do
  end subroutine read_namelist

  ! Exponential integral E1(u) = Theis well function W(u)
  pure function well_function(u) result(w)
    real(dp), intent(in) :: u
    real(dp) :: w, term
    integer :: k
    if (u > 50.0_dp) then
      w = 0.0_dp
    else if (u < 1.0_dp) then
      w = -0.5772156649015329_dp - log(u)
      term = 1.0_dp
      do k = 1, 60
        term = -term * u / k
        w = w - term / k
        if (abs(term / k) < 1.0e-14_dp * abs(w)) exit
      end do
    else
      w = e1_cf(u)
    end if
  end function well_function

  pure function e1_cf(u) result(w)
    real(dp), intent(in) :: u
    real(dp) :: w, b, c, d, h, an, del
    integer :: i
    b = u + 1.0_dp
    c = 1.0_dp / 1.0e-300_dp
    d = 1.0_dp / b
    h = d
    do i = 1, 200
      an = -real(i, dp) * real(i, dp)
      b = b + 2.0_dp
      d = 1.0_dp / (an * d + b)
      c = b + an / c
      del = c * d
      h = h * del
      if (abs(del - 1.0_dp) < 1.0e-13_dp) exit
    end do
    w = h * exp(-u)
  end function e1_cf

  pure function drawdown_at(x, y, t) result(s)
    real(dp), intent(in) :: x, y, t
    real(dp) :: s, r2, dq, u, tau
    integer :: i, k
    s = 0.0_dp
    do i = 1, nwells
      r2 = max((x - wx(i))**2 + (y - wy(i))**2, 0.01_dp)
      do k = 1, nsteps
        tau = t - step_time(k)
        if (tau <= 0.0_dp) exit
        if (k == 1) then
          dq = rate(i, 1)
        else
          dq = rate(i, k) - rate(i, k - 1)
        end if
        u = r2 * storativity / (4.0_dp * transmissivity * tau)
        s = s + dq / (4.0_dp * pi * transmissivity) * well_function(u)
      end do
    end do
  end function drawdown_at

  subroutine compute_grid(t, grid)
    real(dp), intent(in) :: t
    real(dp), intent(out) :: grid(:, :)
    integer :: i, j
    do j = 1, ny
      do i = 1, nx
        grid(i, j) = drawdown_at((i - 0.5_dp) * dx, (j - 0.5_dp) * dx, t)
      end do
    end do
  end subroutine compute_grid

  subroutine write_snapshots(path)
    character(*), intent(in) :: path
    real(dp), allocatable :: grid(:, :)
    real(dp) :: t
    integer :: u, k
    allocate(grid(nx, ny))
    open(newunit=u, file=path, form='unformatted', access='sequential', status='replace')
    write(u) nx, ny, nt, dx
    do k = 1, nt
      t = t_end * (real(k, dp) / nt)**2
      call compute_grid(t, grid)
      write(u) k, t
      write(u) grid
    end do
    close(u)
    deallocate(grid)
  end subroutine write_snapshots

  subroutine write_hydrographs(path)
    character(*), intent(in) :: path
    integer :: u, k, o
    real(dp) :: t, s(n_obs)
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '# time_day  drawdown_m at observation wells'
    write(u, '(a,6(2f9.1,2x))') '# xy ', (obs_x(o), obs_y(o), o = 1, n_obs)
    do k = 1, n_hydro
      t = 1.0e-3_dp * 10.0_dp**(4.5_dp * (k - 1) / real(n_hydro - 1, dp))
      do o = 1, n_obs
        s(o) = drawdown_at(obs_x(o), obs_y(o), t)
      end do
      write(u, '(es14.6,6f12.5)') t, s
    end do
    close(u)
  end subroutine write_hydrographs

  subroutine max_drawdown_map(snap_path, asc_path)
    character(*), intent(in) :: snap_path, asc_path
    real(dp), allocatable :: grid(:, :), smax(:, :), tmax(:, :)
    integer :: u, k, kk, mx, my, mt, j
    real(dp) :: ddx, t
    open(newunit=u, file=snap_path, form='unformatted', access='sequential', status='old')
    read(u) mx, my, mt, ddx
    allocate(grid(mx, my), smax(mx, my), tmax(mx, my))
    smax = -huge(1.0_dp); tmax = 0
    do k = 1, mt
      read(u) kk, t
      read(u) grid
      where (grid > smax)
        smax = grid
        tmax = t
      end where
    end do
    close(u)
    open(newunit=u, file=asc_path, status='replace', action='write')
    write(u, '(a,i0)') 'ncols ', mx
    write(u, '(a,i0)') 'nrows ', my
    write(u, '(a)') 'xllcorner 0.0'
    write(u, '(a)') 'yllcorner 0.0'
    write(u, '(a,f8.2)') 'cellsize ', ddx
    write(u, '(a)') 'NODATA_value -9999'
    do j = my, 1, -1
      write(u, '(*(f9.4,1x))') smax(:, j)
    end do
    close(u)
    deallocate(grid, smax, tmax)
  end subroutine max_drawdown_map

  subroutine cooper_jacob_fit(hyd_path, out_path)
    character(*), intent(in) :: hyd_path, out_path
    real(dp), allocatable :: t(:), s(:, :)
    character(len=256) :: line
    integer :: u, n, ios, o, k, m
    real(dp) :: sx, sy, sxx, sxy, slope, icpt, t0, t_est, s_est, r2
    allocate(t(n_hydro), s(n_hydro, n_obs))
    open(newunit=u, file=hyd_path, status='old', action='read')
    n = 0
    do
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (line(1:1) == '#') cycle
      n = n + 1
      read(line, *) t(n), s(n, :)
    end do
    close(u)
    open(newunit=u, file=out_path, status='replace', action='write')
    write(u, '(a)') 'obs  slope_m_per_log10  T_est_m2d  S_est  (true T, S)'
    do o = 1, n_obs
      sx = 0; sy = 0; sxx = 0; sxy = 0; m = 0
      do k = n / 2, n
        if (t(k) < 0.5_dp .or. t(k) > 2.9_dp) cycle   ! first pumping step only, late time
        sx = sx + log10(t(k)); sy = sy + s(k, o)
        sxx = sxx + log10(t(k))**2; sxy = sxy + log10(t(k)) * s(k, o)
        m = m + 1
      end do
      if (m < 3) cycle
      slope = (m * sxy - sx * sy) / (m * sxx - sx * sx)
      icpt = (sy - slope * sx) / m
      t0 = 10.0_dp**(-icpt / slope)
      t_est = 2.3_dp * sum(rate(1:nwells, 1)) / (4.0_dp * pi * slope)
      r2 = (obs_x(o) - wx(1))**2 + (obs_y(o) - wy(1))**2
      s_est = 2.25_dp * t_est * t0 / r2
      write(u, '(i3,f12.5,f12.2,es12.4,f10.1,es11.3)') o, slope, t_est, s_est, transmissivity, storativity
    end do
    close(u)
    deallocate(t, s)
  end subroutine cooper_jacob_fit

end module aquifer_mod

program aquifer_pumping_test
  use aquifer_mod
  implicit none
  character(len=512) :: dir
  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) stop 'usage: aquifer_pumping_test dir'
  call write_namelist(trim(dir)//'/aquifer.nml')
  call read_namelist(trim(dir)//'/aquifer.nml')
  call write_snapshots(trim(dir)//'/drawdown.bin')
  call write_hydrographs(trim(dir)//'/hydrographs.txt')
  call max_drawdown_map(trim(dir)//'/drawdown.bin', trim(dir)//'/max_drawdown.asc')
  call cooper_jacob_fit(trim(dir)//'/hydrographs.txt', trim(dir)//'/cooper_jacob.txt')
end program aquifer_pumping_test
