! ocean_mixed_layer_nml: a Price-Weller-Pinkel style 1-D upper-ocean mixed
! layer model run over a set of columns with different wind/heat forcing.
! The run configuration is written as a namelist file and read back; each
! column's daily profiles go to its own formatted file, mixed-layer depth time
! series are written with stream access and later re-read by position to build
! a seasonal climatology, and the effective configuration is echoed as a
! namelist record.
module oml_config
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer :: ncol = 48, nz = 150, ndays = 240, steps_per_day = 48
  real(dp) :: dz = 2.0_dp, q_amp = 250.0_dp, tau_amp = 0.12_dp, ric = 0.65_dp, rib = 0.25_dp
  character(len=32) :: run_name = 'default'
  namelist /model_nml/ ncol, nz, ndays, steps_per_day, dz, run_name
  namelist /forcing_nml/ q_amp, tau_amp, ric, rib
contains
  subroutine write_config(fname)
    character(len=*), intent(in) :: fname
    integer :: u
    ncol = 30; nz = 150; ndays = 360; steps_per_day = 24; dz = 2.0_dp; run_name = 'subpolar_transect'
    q_amp = 220.0_dp; tau_amp = 0.15_dp; ric = 0.65_dp; rib = 0.25_dp
    open(newunit=u, file=fname, status='replace', action='write')
    write(u, nml=model_nml)
    write(u, nml=forcing_nml)
    close(u)
    ! scramble so that the read really matters
    ncol = -1; nz = -1; ndays = -1; q_amp = 0; tau_amp = 0
  end subroutine write_config

  subroutine read_config(fname)
    character(len=*), intent(in) :: fname
    integer :: u, ios
    open(newunit=u, file=fname, status='old', action='read')
    read(u, nml=model_nml, iostat=ios)
    if (ios /= 0) stop 'bad model_nml'
    rewind(u)
    read(u, nml=forcing_nml, iostat=ios)
    if (ios /= 0) stop 'bad forcing_nml'
    close(u)
  end subroutine read_config
end module oml_config

module oml_physics
  use oml_config
  implicit none
contains
  pure function density(t, s) result(rho)
    real(dp), intent(in) :: t, s
    real(dp) :: rho
    rho = 1027.0_dp * (1.0_dp - 2.0e-4_dp * (t - 10.0_dp) + 7.6e-4_dp * (s - 35.0_dp))
  end function density

  subroutine init_column(t, s, u, v, icol)
    real(dp), intent(out) :: t(:), s(:), u(:), v(:)
    integer, intent(in) :: icol
    integer :: k
    do k = 1, size(t)
       t(k) = 12.0_dp - 0.04_dp * k * dz / 2 + 0.05_dp * icol
       s(k) = 34.6_dp + 0.002_dp * k
    end do
    u = 0; v = 0
  end subroutine init_column

  ! one time step: surface fluxes, convective adjustment, bulk & gradient Ri mixing
  subroutine pwp_step(t, s, u, v, qnet, taux, dt, mld)
    real(dp), intent(inout) :: t(:), s(:), u(:), v(:)
    real(dp), intent(in) :: qnet, taux, dt
    real(dp), intent(out) :: mld
    integer :: k, m, n, it
    real(dp) :: rho(size(t)), rb, dv2, drho, h, ri, fcor, ut, mix
    n = size(t)
    fcor = 1.0e-4_dp
    t(1) = t(1) + qnet * dt / (1027.0_dp * 3990.0_dp * dz)
    s(1) = s(1) + 1.0e-7_dp * dt * s(1) / dz
    u(1) = u(1) + taux * dt / (1027.0_dp * dz)
    do k = 1, n
       ut = u(k)
       u(k) = u(k) * cos(fcor * dt) + v(k) * sin(fcor * dt)
       v(k) = v(k) * cos(fcor * dt) - ut * sin(fcor * dt)
       rho(k) = density(t(k), s(k))
    end do
    m = 1
    do k = 2, n
       if (rho(k) < rho(1) + 1.0e-4_dp) then
          m = k
       else
          exit
       end if
    end do
    call mix_to(t, s, u, v, m)
    do
       if (m >= n) exit
       h = m * dz
       drho = density(t(m + 1), s(m + 1)) - density(t(1), s(1))
       dv2 = (u(1) - u(m + 1))**2 + (v(1) - v(m + 1))**2 + 1.0e-10_dp
       rb = 9.81_dp * drho * h / (1027.0_dp * dv2)
       if (rb >= rib) exit
       m = m + 1
       call mix_to(t, s, u, v, m)
    end do
    mld = m * dz
    do it = 1, 4
       do k = m, n - 1
          drho = density(t(k + 1), s(k + 1)) - density(t(k), s(k))
          dv2 = (u(k + 1) - u(k))**2 + (v(k + 1) - v(k))**2 + 1.0e-10_dp
          ri = 9.81_dp * drho * dz / (1027.0_dp * dv2)
          if (ri < ric) then
             mix = (1.0_dp - ri / ric) / 2
             call relax_pair(t, k, mix); call relax_pair(s, k, mix)
             call relax_pair(u, k, mix); call relax_pair(v, k, mix)
          end if
       end do
    end do
    t(n) = t(n) + 0.001_dp * (8.0_dp - t(n))
  end subroutine pwp_step

  subroutine mix_to(t, s, u, v, m)
    real(dp), intent(inout) :: t(:), s(:), u(:), v(:)
    integer, intent(in) :: m
    t(1:m) = sum(t(1:m)) / m; s(1:m) = sum(s(1:m)) / m
    u(1:m) = sum(u(1:m)) / m; v(1:m) = sum(v(1:m)) / m
  end subroutine mix_to

  subroutine relax_pair(a, k, f)
    real(dp), intent(inout) :: a(:)
    integer, intent(in) :: k
    real(dp), intent(in) :: f
    real(dp) :: d
    d = f * (a(k + 1) - a(k))
    a(k) = a(k) + d
    a(k + 1) = a(k + 1) - d
  end subroutine relax_pair
end module oml_physics

program ocean_mixed_layer_nml
  use oml_config
  use oml_physics
  implicit none
  character(len=512) :: dir
  character(len=600) :: fname
  integer :: ic, ustream, ucl
  real(dp), allocatable :: clim(:,:)

  if (command_argument_count() < 1) stop 'usage: ocean_mixed_layer_nml dir'
  call get_command_argument(1, dir)
  call write_config(trim(dir)//'/oml_input.nml')
  call read_config(trim(dir)//'/oml_input.nml')

  open(newunit=ustream, file=trim(dir)//'/mld_series.bin', access='stream', form='unformatted', &
       status='replace', action='readwrite')
  write(ustream) ncol, ndays * steps_per_day
  do ic = 1, ncol
     call run_column(ic, ustream)
  end do

  allocate(clim(12, ncol))
  call monthly_climatology(ustream, clim)
  close(ustream)
  open(newunit=ucl, file=trim(dir)//'/mld_climatology.txt', status='replace', action='write')
  call write_climatology(ucl, clim)
  write(ucl, nml=model_nml)
  write(ucl, nml=forcing_nml)
  close(ucl)
  print '(A,A,A,I4,A,F8.2)', 'run ', trim(run_name), ' columns ', ncol, ' mean winter MLD ', sum(clim(3, :)) / ncol

contains

  subroutine run_column(icol, us)
    integer, intent(in) :: icol, us
    real(dp), allocatable :: t(:), s(:), u(:), v(:)
    real(dp) :: mld, qnet, taux, tday, dt
    integer :: day, st, uprof, k
    allocate(t(nz), s(nz), u(nz), v(nz))
    call init_column(t, s, u, v, icol)
    dt = 86400.0_dp / steps_per_day
    write(fname, '(A,A,I3.3,A)') trim(dir), '/profiles_col', icol, '.txt'
    open(newunit=uprof, file=trim(fname), status='replace', action='write')
    write(uprof, '(A,I4,A,F6.2,A,F6.3)') '# column ', icol, ' q_amp scale ', 1 + 0.02 * icol, ' tau ', tau_amp
    do day = 1, ndays
       do st = 1, steps_per_day
          tday = day + real(st, dp) / steps_per_day
          qnet = -q_amp * (1 + 0.02_dp * icol) * cos(2 * 3.14159265_dp * tday / 365) &
               + 150.0_dp * max(0.0_dp, sin(2 * 3.14159265_dp * tday))
          taux = tau_amp * (1 + 0.5_dp * sin(tday * 0.7_dp + icol)) * (1 + cos(2 * 3.14159265_dp * tday / 365))
          call pwp_step(t, s, u, v, qnet, taux, dt, mld)
          write(us) real(mld, kind=4)
       end do
       if (mod(day, 5) == 0) then
          do k = 1, nz, 3
             write(uprof, '(I4,F7.1,2F9.4,2ES11.3)') day, k * dz, t(k), s(k), u(k), v(k)
          end do
       end if
    end do
    close(uprof)
  end subroutine run_column

  ! random-position reads: one 30-day block of each column at a time
  subroutine monthly_climatology(us, c)
    integer, intent(in) :: us
    real(dp), intent(out) :: c(:,:)
    real(kind=4), allocatable :: blk(:)
    integer :: ic2, mon, nrec, npercol, d0
    integer(kind=8) :: p8
    read(us, pos=1) ic2, npercol
    nrec = 30 * steps_per_day
    allocate(blk(nrec))
    c = 0
    do ic2 = 1, ncol
       do mon = 1, 12
          d0 = mod((mon - 1) * 30, max(1, ndays - 29))
          p8 = 9_8 + 4_8 * (int(ic2 - 1, 8) * npercol + int(d0, 8) * steps_per_day)
          read(us, pos=p8) blk
          c(mon, ic2) = sum(real(blk, dp)) / nrec
       end do
    end do
  end subroutine monthly_climatology

  subroutine write_climatology(u, c)
    integer, intent(in) :: u
    real(dp), intent(in) :: c(:,:)
    integer :: ic2
    write(u, '(A)') '# column  mean MLD (m) for months 1..12'
    do ic2 = 1, size(c, 2)
       write(u, '(I5,12F8.2)') ic2, c(:, ic2)
    end do
  end subroutine write_climatology
end program ocean_mixed_layer_nml
