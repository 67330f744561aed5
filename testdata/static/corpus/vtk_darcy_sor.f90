! Steady Darcy flow through a heterogeneous 2D permeability field solved with
! red-black SOR.  Writes a CSV convergence history, legacy-VTK ASCII snapshots
! of pressure/permeability/velocity, and CSV particle streamlines.
module darcy_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 320, ny = 240
  integer, parameter :: max_iter = 1500, snap_every = 300
  integer, parameter :: nparticles = 400, nsteps_track = 600
  real(dp), parameter :: dx = 1.0_dp / nx, dy = 1.0_dp / ny
  real(dp), parameter :: omega = 1.92_dp, tol = 1.0e-9_dp
contains

  subroutine init_permeability(logk)
    real(dp), intent(out) :: logk(nx, ny)
    integer, parameter :: nmodes = 64
    real(dp) :: kx(nmodes), ky(nmodes), ph(nmodes), amp(nmodes), r(4)
    integer :: m, i, j
    integer, allocatable :: seed(:)
    integer :: nseed

    call random_seed(size=nseed)
    allocate(seed(nseed))
    seed = 31337
    call random_seed(put=seed)
    do m = 1, nmodes
      call random_number(r)
      kx(m) = 2.0_dp * 3.141592653589793_dp * (1.0_dp + 12.0_dp * r(1))
      ky(m) = 2.0_dp * 3.141592653589793_dp * (1.0_dp + 12.0_dp * r(2))
      ph(m) = 6.283185307179586_dp * r(3)
      amp(m) = 1.5_dp * r(4) / sqrt(real(nmodes, dp))
    end do
    do j = 1, ny
      do i = 1, nx
        logk(i, j) = 0.0_dp
        do m = 1, nmodes
          logk(i, j) = logk(i, j) + amp(m) * cos(kx(m) * (i - 0.5_dp) * dx + &
                       ky(m) * (j - 0.5_dp) * dy + ph(m))
        end do
      end do
    end do
    ! a low-permeability lens
    do j = ny / 3, ny / 2
      do i = nx / 3, nx / 2
        logk(i, j) = logk(i, j) - 3.0_dp
      end do
    end do
    deallocate(seed)
  end subroutine init_permeability

  pure real(dp) function hmean(a, b)
    real(dp), intent(in) :: a, b
    hmean = 2.0_dp * a * b / (a + b)
  end function hmean

  ! One red-black SOR sweep; pressure fixed at x=0 (1) and x=1 (0),
  ! no-flow at top/bottom.  Returns the largest update.
  real(dp) function sor_sweep(p, k) result(dmax)
    real(dp), intent(inout) :: p(0:nx + 1, 0:ny + 1)
    real(dp), intent(in) :: k(nx, ny)
    integer :: i, j, colour
    real(dp) :: tw, te, ts, tn, pnew, dpv

    dmax = 0.0_dp
    do colour = 0, 1
      do j = 1, ny
        do i = 1 + mod(j + colour, 2), nx, 2
          if (i > 1) then
            tw = hmean(k(i, j), k(i - 1, j)) / dx**2
          else
            tw = 2.0_dp * k(i, j) / dx**2
          end if
          if (i < nx) then
            te = hmean(k(i, j), k(i + 1, j)) / dx**2
          else
            te = 2.0_dp * k(i, j) / dx**2
          end if
          if (j > 1) then
            ts = hmean(k(i, j), k(i, j - 1)) / dy**2
          else
            ts = 0.0_dp
          end if
          if (j < ny) then
            tn = hmean(k(i, j), k(i, j + 1)) / dy**2
          else
            tn = 0.0_dp
          end if
          pnew = (tw * p(i - 1, j) + te * p(i + 1, j) + ts * p(i, j - 1) + &
                  tn * p(i, j + 1)) / (tw + te + ts + tn)
          dpv = omega * (pnew - p(i, j))
          p(i, j) = p(i, j) + dpv
          dmax = max(dmax, abs(dpv))
        end do
      end do
    end do
  end function sor_sweep

  subroutine velocity(p, k, u, v)
    real(dp), intent(in) :: p(0:nx + 1, 0:ny + 1), k(nx, ny)
    real(dp), intent(out) :: u(nx, ny), v(nx, ny)
    integer :: i, j
    do j = 1, ny
      do i = 1, nx
        u(i, j) = -k(i, j) * (p(i + 1, j) - p(i - 1, j)) / (2.0_dp * dx)
        if (j == 1 .or. j == ny) then
          v(i, j) = 0.0_dp
        else
          v(i, j) = -k(i, j) * (p(i, j + 1) - p(i, j - 1)) / (2.0_dp * dy)
        end if
      end do
    end do
  end subroutine velocity

  subroutine write_vtk(fname, p, logk, u, v)
    character(len=*), intent(in) :: fname
    real(dp), intent(in) :: p(0:nx + 1, 0:ny + 1), logk(nx, ny), u(nx, ny), v(nx, ny)
    integer :: un, ios, i, j

    open(newunit=un, file=fname, status='replace', action='write', &
         form='formatted', iostat=ios)
    if (ios /= 0) then
      write(0, '(a,a)') 'vtk_darcy_sor: cannot create ', trim(fname)
      error stop 1
    end if
    write(un, '(a)') '# vtk DataFile Version 3.0'
    write(un, '(a)') 'Darcy pressure solution'
    write(un, '(a)') 'ASCII'
    write(un, '(a)') 'DATASET STRUCTURED_POINTS'
    write(un, '(a,3i6)') 'DIMENSIONS ', nx, ny, 1
    write(un, '(a,3es14.6)') 'ORIGIN ', 0.5_dp * dx, 0.5_dp * dy, 0.0_dp
    write(un, '(a,3es14.6)') 'SPACING ', dx, dy, 1.0_dp
    write(un, '(a,i9)') 'POINT_DATA ', nx * ny
    write(un, '(a)') 'SCALARS pressure double 1'
    write(un, '(a)') 'LOOKUP_TABLE default'
    do j = 1, ny
      write(un, '(8es15.7)') (p(i, j), i = 1, nx)
    end do
    write(un, '(a)') 'SCALARS log_permeability double 1'
    write(un, '(a)') 'LOOKUP_TABLE default'
    do j = 1, ny
      write(un, '(8es15.7)') (logk(i, j), i = 1, nx)
    end do
    write(un, '(a)') 'VECTORS velocity double'
    do j = 1, ny
      do i = 1, nx
        write(un, '(3es15.7)') u(i, j), v(i, j), 0.0_dp
      end do
    end do
    close(un)
  end subroutine write_vtk

  ! Reads the pressure block back from a VTK file written by write_vtk.
  subroutine read_vtk_pressure(fname, pr)
    character(len=*), intent(in) :: fname
    real(dp), intent(out) :: pr(nx, ny)
    character(len=128) :: line
    integer :: un, ios, i, j, mx, my, mz

    open(newunit=un, file=fname, status='old', action='read', iostat=ios)
    if (ios /= 0) then
      write(0, '(a,a)') 'vtk_darcy_sor: cannot open ', trim(fname)
      error stop 1
    end if
    mx = 0; my = 0; mz = 0
    do
      read(un, '(a)', iostat=ios) line
      if (ios /= 0) then
        write(0, '(a)') 'vtk_darcy_sor: pressure block not found'
        error stop 1
      end if
      if (line(1:10) == 'DIMENSIONS') read(line(11:), *) mx, my, mz
      if (line(1:12) == 'LOOKUP_TABLE') exit
    end do
    if (mx /= nx .or. my /= ny) then
      write(0, '(a)') 'vtk_darcy_sor: dimension mismatch in snapshot'
      error stop 1
    end if
    do j = 1, ny
      read(un, *) (pr(i, j), i = 1, nx)
    end do
    close(un)
  end subroutine read_vtk_pressure

  ! Streamlines from the inflow boundary, midpoint rule with bilinear velocity.
  subroutine trace_particles(fname, u, v)
    character(len=*), intent(in) :: fname
    real(dp), intent(in) :: u(nx, ny), v(nx, ny)
    integer :: un, n, s
    real(dp) :: x, y, ux, vy, xm, ym, h, tt, speed

    open(newunit=un, file=fname, status='replace', action='write')
    write(un, '(a)') 'particle,step,time,x,y,speed'
    do n = 1, nparticles
      x = 0.5_dp * dx
      y = (n - 0.5_dp) / nparticles
      tt = 0.0_dp
      do s = 1, nsteps_track
        call interp(u, v, x, y, ux, vy)
        speed = sqrt(ux * ux + vy * vy)
        if (speed < 1.0e-12_dp) exit
        h = 0.5_dp * dx / speed
        xm = x + 0.5_dp * h * ux
        ym = y + 0.5_dp * h * vy
        call interp(u, v, xm, ym, ux, vy)
        x = x + h * ux
        y = min(max(y + h * vy, 0.5_dp * dy), 1.0_dp - 0.5_dp * dy)
        tt = tt + h
        if (mod(s, 4) == 0) write(un, '(i0,a,i0,4(a,es13.5))') n, ',', s, ',', tt, &
            ',', x, ',', y, ',', speed
        if (x >= 1.0_dp - dx) exit
      end do
    end do
    close(un)
  end subroutine trace_particles

  subroutine interp(u, v, x, y, ux, vy)
    real(dp), intent(in) :: u(nx, ny), v(nx, ny), x, y
    real(dp), intent(out) :: ux, vy
    real(dp) :: fx, fy
    integer :: i, j
    fx = x / dx + 0.5_dp
    fy = y / dy + 0.5_dp
    i = min(max(int(fx), 1), nx - 1)
    j = min(max(int(fy), 1), ny - 1)
    fx = min(max(fx - i, 0.0_dp), 1.0_dp)
    fy = min(max(fy - j, 0.0_dp), 1.0_dp)
    ux = (1 - fx) * (1 - fy) * u(i, j) + fx * (1 - fy) * u(i + 1, j) + &
         (1 - fx) * fy * u(i, j + 1) + fx * fy * u(i + 1, j + 1)
    vy = (1 - fx) * (1 - fy) * v(i, j) + fx * (1 - fy) * v(i + 1, j) + &
         (1 - fx) * fy * v(i, j + 1) + fx * fy * v(i + 1, j + 1)
  end subroutine interp

end module darcy_mod

program vtk_darcy_sor
  use darcy_mod
  use iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  interface
    integer(c_int) function c_mkdir(path, mode) bind(c, name='mkdir')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: mode
    end function c_mkdir
  end interface
  real(dp), allocatable :: p(:, :), logk(:, :), k(:, :), u(:, :), v(:, :), pr(:, :)
  character(len=1024) :: outdir
  character(len=1200) :: fname
  integer :: it, hun, nsnap, i, j, rc
  real(dp) :: dmax, flux_in, flux_out, err

  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: vtk_darcy_sor OUTDIR'
    error stop 2
  end if
  call get_command_argument(1, outdir)
  rc = c_mkdir(trim(outdir) // c_null_char, int(o'755', c_int))

  allocate(p(0:nx + 1, 0:ny + 1), logk(nx, ny), k(nx, ny), u(nx, ny), v(nx, ny), &
           pr(nx, ny))
  call init_permeability(logk)
  k = exp(logk)
  do i = 0, nx + 1
    p(i, :) = 1.0_dp - real(i, dp) / (nx + 1)
  end do
  p(0, :) = 1.0_dp
  p(nx + 1, :) = 0.0_dp
  ! reflect ghost rows for no-flow walls
  p(:, 0) = p(:, 1)
  p(:, ny + 1) = p(:, ny)

  open(newunit=hun, file=trim(outdir) // '/history.csv', status='replace', action='write')
  write(hun, '(a)') 'iteration,max_update,inflow,outflow'
  nsnap = 0
  do it = 1, max_iter
    dmax = sor_sweep(p, k)
    flux_in = 0.0_dp
    flux_out = 0.0_dp
    do j = 1, ny
      flux_in = flux_in + 2.0_dp * k(1, j) * (p(0, j) - p(1, j)) / dx * dy
      flux_out = flux_out + 2.0_dp * k(nx, j) * (p(nx, j) - p(nx + 1, j)) / dx * dy
    end do
    write(hun, '(i0,3(a,es16.8))') it, ',', dmax, ',', flux_in, ',', flux_out
    if (mod(it, snap_every) == 0 .or. dmax < tol) then
      call velocity(p, k, u, v)
      nsnap = nsnap + 1
      write(fname, '(a,a,i3.3,a)') trim(outdir), '/darcy_', nsnap, '.vtk'
      call write_vtk(trim(fname), p, logk, u, v)
    end if
    if (dmax < tol) exit
  end do
  close(hun)

  call read_vtk_pressure(trim(fname), pr)
  err = maxval(abs(pr - p(1:nx, 1:ny)))
  if (err > 1.0e-6_dp) then
    write(0, '(a,es12.4)') 'vtk_darcy_sor: snapshot round-trip error ', err
    error stop 1
  end if

  call velocity(p, k, u, v)
  call trace_particles(trim(outdir) // '/streamlines.csv', u, v)
  write(*, '(a,i0,a,i0,a,es11.4)') 'iterations ', min(it, max_iter), ', snapshots ', &
       nsnap, ', net flux ', flux_in - flux_out
end program vtk_darcy_sor
