! Barotropic vorticity equation on a beta-plane channel (periodic in x,
! free-slip walls in y). Parameters come from a namelist file; the model
! writes formatted diagnostics, formatted zonal-mean tables and unformatted
! sequential snapshots of vorticity and streamfunction.
module bv_model
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 192, ny = 96
  real(dp), parameter :: lx = 2.0_dp, ly = 1.0_dp
  real(dp), parameter :: dx = lx / nx, dy = ly / (ny + 1)

  type :: run_config
    integer  :: nsteps = 480
    real(dp) :: dt = 2.0e-3_dp
    real(dp) :: nu = 2.0e-5_dp
    real(dp) :: beta = 4.0_dp
    integer  :: sor_iters = 25
    real(dp) :: omega = 1.85_dp
    integer  :: diag_every = 2
    integer  :: snap_every = 12
    integer  :: ascii_every = 40
  end type run_config

  type :: flow_state
    real(dp) :: zeta(nx, 0:ny+1)
    real(dp) :: psi(nx, 0:ny+1)
    real(dp) :: time = 0.0_dp
    integer  :: step = 0
  end type flow_state

contains

  subroutine write_default_namelist(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '! barotropic channel run parameters'
    write(u, '(a)') '&run_params'
    write(u, '(a)') '  nsteps = 480, dt = 2.0e-3, nu = 2.0e-5, beta = 4.0,'
    write(u, '(a)') '  sor_iters = 25, omega = 1.85,'
    write(u, '(a)') '  diag_every = 2, snap_every = 12, ascii_every = 40'
    write(u, '(a)') '/'
    close(u)
  end subroutine write_default_namelist

  subroutine read_config(path, cfg)
    character(len=*), intent(in) :: path
    type(run_config), intent(out) :: cfg
    integer :: u, ios, nsteps, sor_iters, diag_every, snap_every, ascii_every
    real(dp) :: dt, nu, beta, omega
    namelist /run_params/ nsteps, dt, nu, beta, sor_iters, omega, diag_every, snap_every, ascii_every
    nsteps = cfg%nsteps; dt = cfg%dt; nu = cfg%nu; beta = cfg%beta
    sor_iters = cfg%sor_iters; omega = cfg%omega
    diag_every = cfg%diag_every; snap_every = cfg%snap_every; ascii_every = cfg%ascii_every
    open(newunit=u, file=path, status='old', action='read')
    read(u, nml=run_params, iostat=ios)
    close(u)
    if (ios /= 0) stop 'bad namelist'
    cfg%nsteps = nsteps; cfg%dt = dt; cfg%nu = nu; cfg%beta = beta
    cfg%sor_iters = sor_iters; cfg%omega = omega
    cfg%diag_every = diag_every; cfg%snap_every = snap_every; cfg%ascii_every = ascii_every
  end subroutine read_config

  subroutine init_vortices(st)
    type(flow_state), intent(inout) :: st
    integer :: i, j, k
    real(dp) :: x, y, xc, yc, r2, amp
    integer(8) :: seed
    st%zeta = 0.0_dp
    st%psi = 0.0_dp
    seed = 4711
    do k = 1, 14
      seed = mod(seed * 16807_8, 2147483647_8)
      xc = lx * real(seed, dp) / 2147483647.0_dp
      seed = mod(seed * 16807_8, 2147483647_8)
      yc = 0.15_dp + 0.7_dp * real(seed, dp) / 2147483647.0_dp
      amp = merge(40.0_dp, -40.0_dp, mod(k, 2) == 0)
      do j = 1, ny
        y = j * dy
        do i = 1, nx
          x = (i - 0.5_dp) * dx
          r2 = min((x - xc)**2, (x - xc - lx)**2, (x - xc + lx)**2) + (y - yc)**2
          st%zeta(i, j) = st%zeta(i, j) + amp * exp(-r2 / 0.004_dp)
        end do
      end do
    end do
  end subroutine init_vortices

  ! red-black SOR for lap(psi) = zeta, psi = 0 on the walls, warm-started
  subroutine solve_streamfunction(cfg, zeta, psi)
    type(run_config), intent(in) :: cfg
    real(dp), intent(in) :: zeta(nx, 0:ny+1)
    real(dp), intent(inout) :: psi(nx, 0:ny+1)
    integer :: it, i, j, colour, ip, im
    real(dp) :: cx, cy, cc, r
    cx = 1.0_dp / dx**2; cy = 1.0_dp / dy**2; cc = 2.0_dp * (cx + cy)
    do it = 1, cfg%sor_iters
      do colour = 0, 1
        do j = 1, ny
          do i = 1 + mod(j + colour, 2), nx, 2
            ip = merge(1, i + 1, i == nx); im = merge(nx, i - 1, i == 1)
            r = cx * (psi(ip, j) + psi(im, j)) + cy * (psi(i, j+1) + psi(i, j-1)) - cc * psi(i, j) - zeta(i, j)
            psi(i, j) = psi(i, j) + cfg%omega * r / cc
          end do
        end do
      end do
    end do
    psi(:, 0) = 0.0_dp; psi(:, ny+1) = 0.0_dp
  end subroutine solve_streamfunction

  ! Arakawa Jacobian J(psi, zeta), beta*v and Laplacian viscosity
  subroutine vorticity_tendency(cfg, zeta, psi, dz)
    type(run_config), intent(in) :: cfg
    real(dp), intent(in) :: zeta(nx, 0:ny+1), psi(nx, 0:ny+1)
    real(dp), intent(out) :: dz(nx, 0:ny+1)
    integer :: i, j, ip, im
    real(dp) :: j1, j2, j3, v, lap
    dz = 0.0_dp
    do j = 1, ny
      do i = 1, nx
        ip = merge(1, i + 1, i == nx); im = merge(nx, i - 1, i == 1)
        j1 = (psi(ip,j) - psi(im,j)) * (zeta(i,j+1) - zeta(i,j-1)) &
           - (psi(i,j+1) - psi(i,j-1)) * (zeta(ip,j) - zeta(im,j))
        j2 = psi(ip,j) * (zeta(ip,j+1) - zeta(ip,j-1)) - psi(im,j) * (zeta(im,j+1) - zeta(im,j-1)) &
           - psi(i,j+1) * (zeta(ip,j+1) - zeta(im,j+1)) + psi(i,j-1) * (zeta(ip,j-1) - zeta(im,j-1))
        j3 = zeta(ip,j) * (psi(ip,j+1) - psi(ip,j-1)) - zeta(im,j) * (psi(im,j+1) - psi(im,j-1)) &
           - zeta(i,j+1) * (psi(ip,j+1) - psi(im,j+1)) + zeta(i,j-1) * (psi(ip,j-1) - psi(im,j-1))
        v = (psi(ip,j) - psi(im,j)) / (2.0_dp * dx)
        lap = (zeta(ip,j) + zeta(im,j) - 2.0_dp * zeta(i,j)) / dx**2 &
            + (zeta(i,j+1) + zeta(i,j-1) - 2.0_dp * zeta(i,j)) / dy**2
        dz(i,j) = -(j1 + j2 + j3) / (12.0_dp * dx * dy) - cfg%beta * v + cfg%nu * lap
      end do
    end do
  end subroutine vorticity_tendency

  ! SSP-RK3 step
  subroutine advance(cfg, st)
    type(run_config), intent(in) :: cfg
    type(flow_state), intent(inout) :: st
    real(dp), allocatable :: z1(:,:), dz(:,:)
    allocate(z1(nx, 0:ny+1), dz(nx, 0:ny+1))
    call solve_streamfunction(cfg, st%zeta, st%psi)
    call vorticity_tendency(cfg, st%zeta, st%psi, dz)
    z1 = st%zeta + cfg%dt * dz
    call solve_streamfunction(cfg, z1, st%psi)
    call vorticity_tendency(cfg, z1, st%psi, dz)
    z1 = 0.75_dp * st%zeta + 0.25_dp * (z1 + cfg%dt * dz)
    call solve_streamfunction(cfg, z1, st%psi)
    call vorticity_tendency(cfg, z1, st%psi, dz)
    st%zeta = st%zeta / 3.0_dp + 2.0_dp / 3.0_dp * (z1 + cfg%dt * dz)
    st%time = st%time + cfg%dt
    st%step = st%step + 1
    deallocate(z1, dz)
  end subroutine advance

  subroutine write_diagnostics(u, st)
    integer, intent(in) :: u
    type(flow_state), intent(in) :: st
    real(dp) :: ke, ens, ubar(ny)
    integer :: j
    ke = 0.0_dp
    do j = 1, ny
      ubar(j) = -sum(st%psi(:, j+1) - st%psi(:, j-1)) / (2.0_dp * dy * nx)
      ke = ke + sum(((st%psi(:, j+1) - st%psi(:, j-1)) / (2*dy))**2)
    end do
    ke = 0.5_dp * ke * dx * dy
    ens = 0.5_dp * sum(st%zeta(:, 1:ny)**2) * dx * dy
    write(u, '(i6,1x,f10.5,3(1x,es15.7))') st%step, st%time, ke, ens, maxval(abs(st%zeta))
    write(u, '(a,*(1x,f9.4))') '  ubar', ubar
  end subroutine write_diagnostics

  subroutine write_snapshot(dir, st, idx)
    character(len=*), intent(in) :: dir
    type(flow_state), intent(in) :: st
    integer, intent(in) :: idx
    character(len=512) :: fname
    integer :: u
    write(fname, '(a,"/snap_",i4.4,".dat")') trim(dir), idx
    open(newunit=u, file=fname, form='unformatted', access='sequential', status='replace')
    write(u) nx, ny, st%step, st%time
    write(u) st%zeta(:, 1:ny)
    write(u) st%psi(:, 1:ny)
    close(u)
  end subroutine write_snapshot

  subroutine write_ascii_field(dir, st)
    character(len=*), intent(in) :: dir
    type(flow_state), intent(in) :: st
    character(len=512) :: fname
    integer :: u, j
    write(fname, '(a,"/zeta_",i5.5,".txt")') trim(dir), st%step
    open(newunit=u, file=fname, status='replace', action='write')
    write(u, '(a,i6,a,f10.5)') '# vorticity step ', st%step, ' time ', st%time
    do j = 1, ny
      write(u, '(*(es13.5))') st%zeta(:, j)
    end do
    close(u)
  end subroutine write_ascii_field

end module bv_model

program barotropic_vort_diag
  use bv_model
  implicit none
  type(run_config) :: cfg
  type(flow_state), allocatable :: st
  character(len=512) :: dir
  integer :: udiag, nsnap

  if (command_argument_count() /= 1) stop 'usage: barotropic_vort_diag dir'
  call get_command_argument(1, dir)
  call write_default_namelist(trim(dir) // '/run.nml')
  call read_config(trim(dir) // '/run.nml', cfg)

  allocate(st)
  call init_vortices(st)
  open(newunit=udiag, file=trim(dir) // '/diagnostics.txt', status='replace', action='write')
  write(udiag, '(a)') '# step  time  kinetic_energy  enstrophy  max|zeta|'
  nsnap = 0
  do while (st%step < cfg%nsteps)
    call advance(cfg, st)
    if (mod(st%step, cfg%diag_every) == 0) call write_diagnostics(udiag, st)
    if (mod(st%step, cfg%snap_every) == 0) then
      nsnap = nsnap + 1
      call write_snapshot(trim(dir), st, nsnap)
    end if
    if (mod(st%step, cfg%ascii_every) == 0) call write_ascii_field(trim(dir), st)
  end do
  close(udiag)
  print '(a,i5,a,i4,a,es12.4)', 'steps ', st%step, ' snapshots ', nsnap, ' max|zeta| ', maxval(abs(st%zeta))
end program barotropic_vort_diag
