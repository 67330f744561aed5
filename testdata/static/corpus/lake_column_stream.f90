! Ensemble of 1-D lake temperature columns (implicit vertical diffusion with
! convective adjustment and penetrating shortwave). Profiles are archived in
! a single stream-access binary file; the file is then re-read by position
! to derive thermocline depth and Schmidt stability, written as CSV, and the
! archive header is patched in place with the summary.
module lake_column
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0)
  integer, parameter :: nens = 48, nz = 100
  integer, parameter :: ndays = 365, steps_per_day = 12, out_every = 3
  real(dp), parameter :: dt = 86400.0_dp / steps_per_day
  real(dp), parameter :: rho0 = 1000.0_dp, cp = 4186.0_dp
  integer, parameter :: header_bytes = 64

  type :: member_params
    real(dp) :: depth, kz_bg, extinction, wind_scale, albedo
  end type member_params

  type :: ensemble_state
    real(dp) :: temp(nz, nens)
    real(dp) :: dz(nens)
    type(member_params) :: p(nens)
  end type ensemble_state

contains

  subroutine init_ensemble(es)
    type(ensemble_state), intent(out) :: es
    integer :: m, k
    real(dp) :: r
    do m = 1, nens
      r = real(m - 1, dp) / (nens - 1)
      es%p(m)%depth = 12.0_dp + 28.0_dp * r
      es%p(m)%kz_bg = 1.0e-6_dp * (1.0_dp + 4.0_dp * mod(m * 7, 11) / 10.0_dp)
      es%p(m)%extinction = 0.3_dp + 0.9_dp * mod(m * 5, 13) / 12.0_dp
      es%p(m)%wind_scale = 0.6_dp + 0.8_dp * mod(m * 3, 7) / 6.0_dp
      es%p(m)%albedo = 0.06_dp + 0.02_dp * mod(m, 3)
      es%dz(m) = es%p(m)%depth / nz
      do k = 1, nz
        es%temp(k, m) = 4.0_dp + 0.5_dp * exp(-real(k, dp) / 20.0_dp)
      end do
    end do
  end subroutine init_ensemble

  ! seasonal + diurnal forcing for all members: shortwave, net longwave/turbulent, wind mixing
  subroutine surface_forcing(tday, es, sw, qnet, kmix)
    real(dp), intent(in) :: tday
    type(ensemble_state), intent(in) :: es
    real(dp), intent(out) :: sw(nens), qnet(nens), kmix(nens)
    real(dp), parameter :: pi = 3.14159265358979_dp
    real(dp) :: season, diurnal, tair, wind
    integer :: m
    season = -cos(2.0_dp * pi * (tday - 15.0_dp) / 365.0_dp)
    diurnal = max(0.0_dp, sin(2.0_dp * pi * (tday - floor(tday) - 0.25_dp)))
    tair = 10.0_dp + 14.0_dp * season + 4.0_dp * diurnal
    do m = 1, nens
      wind = es%p(m)%wind_scale * (3.0_dp + 2.5_dp * sin(2.0_dp * pi * tday / 4.3_dp + m) ** 2)
      sw(m) = (1.0_dp - es%p(m)%albedo) * (180.0_dp + 150.0_dp * season) * 3.1_dp * diurnal
      qnet(m) = 12.0_dp * (tair - es%temp(1, m)) - 60.0_dp - 5.0_dp * wind
      kmix(m) = 2.0e-5_dp * wind ** 3
    end do
  end subroutine surface_forcing

  ! backward-Euler diffusion (Thomas algorithm) plus convective adjustment
  subroutine step_ensemble(es, sw, qnet, kmix)
    type(ensemble_state), intent(inout) :: es
    real(dp), intent(in) :: sw(nens), qnet(nens), kmix(nens)
    real(dp) :: a(nz), b(nz), c(nz), d(nz), kz(nz), z, cprime(nz), m_, tmix
    integer :: m, k, kk
    do m = 1, nens
      do k = 1, nz
        z = (k - 0.5_dp) * es%dz(m)
        kz(k) = es%p(m)%kz_bg + kmix(m) * exp(-z / 3.0_dp)
        d(k) = es%temp(k, m) + dt / (rho0 * cp * es%dz(m)) * sw(m) * &
               (exp(-es%p(m)%extinction * (z - 0.5_dp * es%dz(m))) - exp(-es%p(m)%extinction * (z + 0.5_dp * es%dz(m))))
      end do
      d(1) = d(1) + dt * qnet(m) / (rho0 * cp * es%dz(m))
      do k = 1, nz
        a(k) = 0.0_dp; c(k) = 0.0_dp
        if (k > 1)  a(k) = -dt * 0.5_dp * (kz(k) + kz(k-1)) / es%dz(m)**2
        if (k < nz) c(k) = -dt * 0.5_dp * (kz(k) + kz(k+1)) / es%dz(m)**2
        b(k) = 1.0_dp - a(k) - c(k)
      end do
      cprime(1) = c(1) / b(1); d(1) = d(1) / b(1)
      do k = 2, nz
        m_ = b(k) - a(k) * cprime(k-1)
        cprime(k) = c(k) / m_
        d(k) = (d(k) - a(k) * d(k-1)) / m_
      end do
      do k = nz - 1, 1, -1
        d(k) = d(k) - cprime(k) * d(k+1)
      end do
      ! convective adjustment: mix downward while density inverted (max density near 4 C)
      do k = 1, nz - 1
        if (abs(d(k) - 4.0_dp) > abs(d(k+1) - 4.0_dp) + 1.0e-9_dp) cycle
        if (abs(d(k) - 4.0_dp) < abs(d(k+1) - 4.0_dp)) then
          tmix = sum(d(1:k+1)) / (k + 1)
          do kk = 1, k + 1
            d(kk) = tmix
          end do
        end if
      end do
      es%temp(:, m) = max(0.0_dp, d)
    end do
  end subroutine step_ensemble

  subroutine write_archive_header(u, nrec)
    integer, intent(in) :: u, nrec
    character(len=16) :: tag
    tag = 'LAKEPROF v1'
    write(u, pos=1) tag, int(nens, 4), int(nz, 4), int(nrec, 4), int(0, 4), 0.0_dp, 0.0_dp, 0.0_dp, 0.0_dp
  end subroutine write_archive_header

  subroutine append_profiles(u, rec, tday, es)
    integer, intent(in) :: u, rec
    real(dp), intent(in) :: tday
    type(ensemble_state), intent(in) :: es
    integer(8) :: pos
    pos = header_bytes + int(rec - 1, 8) * (8_8 + 4_8 * nz * nens) + 1
    write(u, pos=pos) tday, real(es%temp, sp)
  end subroutine append_profiles

  ! read records back by position and derive stratification metrics
  subroutine analyze_archive(u, nrec, dir, es, mean_thermo, max_schmidt, strat_days)
    integer, intent(in) :: u, nrec
    character(len=*), intent(in) :: dir
    type(ensemble_state), intent(in) :: es
    real(dp), intent(out) :: mean_thermo, max_schmidt
    integer, intent(out) :: strat_days
    real(sp) :: prof(nz, nens)
    real(dp) :: tday, rho(nz), grad, gmax, zt, zv, st, area_z
    integer :: r, m, k, uc, kt
    integer(8) :: pos
    open(newunit=uc, file=trim(dir) // '/stratification.csv', status='replace', action='write')
    write(uc, '(a)') 'day,member,thermocline_m,schmidt_J_m2,surface_C,bottom_C'
    mean_thermo = 0.0_dp; max_schmidt = 0.0_dp; strat_days = 0
    do r = 1, nrec
      pos = header_bytes + int(r - 1, 8) * (8_8 + 4_8 * nz * nens) + 1
      read(u, pos=pos) tday, prof
      do m = 1, nens
        do k = 1, nz
          rho(k) = 1000.0_dp * (1.0_dp - 6.63e-6_dp * (prof(k, m) - 4.0_dp)**2)
        end do
        gmax = 0.0_dp; kt = 1
        do k = 1, nz - 1
          grad = (rho(k+1) - rho(k)) / es%dz(m)
          if (grad > gmax) then
            gmax = grad; kt = k
          end if
        end do
        zt = kt * es%dz(m)
        zv = sum([( (k - 0.5_dp) * es%dz(m) * rho(k), k = 1, nz )]) / sum(rho)
        st = 0.0_dp
        do k = 1, nz
          area_z = 1.0_dp - ((k - 0.5_dp) / nz)**2
          st = st + 9.81_dp * ((k - 0.5_dp) * es%dz(m) - zv) * (rho(k) - sum(rho) / nz) * area_z * es%dz(m)
        end do
        mean_thermo = mean_thermo + zt
        max_schmidt = max(max_schmidt, st)
        if (gmax > 0.05_dp .and. m == 1) strat_days = strat_days + 1
        if (mod(r, 2) == 0) write(uc, '(f8.3,",",i3,",",f7.2,",",es12.4,",",f7.3,",",f7.3)') &
             tday, m, zt, st, prof(1, m), prof(nz, m)
      end do
    end do
    close(uc)
    mean_thermo = mean_thermo / (nrec * nens)
  end subroutine analyze_archive

  ! read-modify-write of the archive header with summary numbers
  subroutine patch_header(u, mean_thermo, max_schmidt, tmin, tmax)
    integer, intent(in) :: u
    real(dp), intent(in) :: mean_thermo, max_schmidt, tmin, tmax
    character(len=16) :: tag
    integer(4) :: ne, nzz, nr, flags
    read(u, pos=1) tag, ne, nzz, nr, flags
    flags = ior(flags, 1)
    write(u, pos=1) tag, ne, nzz, nr, flags, mean_thermo, max_schmidt, tmin, tmax
  end subroutine patch_header

end module lake_column

program lake_column_stream
  use lake_column
  implicit none
  type(ensemble_state), allocatable :: es
  character(len=512) :: dir
  real(dp) :: sw(nens), qnet(nens), kmix(nens), tday, mt, ms, tmin, tmax
  integer :: u, day, s, nrec, nstrat

  if (command_argument_count() /= 1) stop 'usage: lake_column_stream dir'
  call get_command_argument(1, dir)
  allocate(es)
  call init_ensemble(es)
  nrec = ndays * steps_per_day / out_every
  open(newunit=u, file=trim(dir) // '/profiles.bin', access='stream', form='unformatted', &
       status='replace', action='readwrite')
  call write_archive_header(u, nrec)
  tmin = 1.0e9_dp; tmax = -1.0e9_dp
  nrec = 0
  do day = 0, ndays - 1
    do s = 1, steps_per_day
      tday = day + real(s, dp) / steps_per_day
      call surface_forcing(tday, es, sw, qnet, kmix)
      call step_ensemble(es, sw, qnet, kmix)
      if (mod(s, out_every) == 0) then
        nrec = nrec + 1
        call append_profiles(u, nrec, tday, es)
        tmin = min(tmin, minval(es%temp)); tmax = max(tmax, maxval(es%temp))
      end if
    end do
  end do
  flush(u)
  call analyze_archive(u, nrec, trim(dir), es, mt, ms, nstrat)
  call patch_header(u, mt, ms, tmin, tmax)
  close(u)
  print '(a,i6,a,f8.3,a,es11.3,a,i5,a,2f8.3)', 'records', nrec, ' mean thermocline', mt, &
        ' max Schmidt', ms, ' stratified samples', nstrat, ' Trange', tmin, tmax
end program lake_column_stream
