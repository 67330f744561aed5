! Secondary clarifier of a wastewater treatment plant: one-dimensional layered
! solids-flux model (Takacs double-exponential settling velocity) driven by a
! synthetic influent hydrograph.  Three operating scenarios (dry weather, storm
! surge, bulking sludge) are integrated explicitly; concentration profiles are
! written as formatted tables every few minutes of simulated time, effluent and
! underflow quality as a CSV time series.  The profile files are then read back
! to build per-layer statistics and a state-point (limiting flux) analysis is
! tabulated.
program clarifier_settling_profiles
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nlay = 128          ! layers from surface (1) to bottom (nlay)
  integer, parameter :: nfeed = 52          ! feed layer
  integer, parameter :: nscen = 3
  integer, parameter :: nhyd = 4321         ! hydrograph samples (1 per minute, 3 days)
  real(dp), parameter :: depth = 4.0_dp     ! m
  real(dp), parameter :: area = 1250.0_dp   ! m2
  real(dp), parameter :: tend = 3.0_dp      ! d
  real(dp), parameter :: dt_prof = 5.0_dp/1440.0_dp   ! profile every 5 min
  real(dp), parameter :: dt_ts = 1.0_dp/1440.0_dp      ! time series every minute
  real(dp), parameter :: dz = depth / nlay

  character(len=512) :: outdir
  character(len=32), dimension(nscen) :: scen_name
  real(dp) :: qin(nhyd), xin(nhyd)
  real(dp) :: x(nlay)
  real(dp) :: v0(nscen), v0max(nscen), rh(nscen), rp(nscen), fns(nscen)
  real(dp) :: eff_mean(nscen), und_mean(nscen), blanket_max(nscen)
  integer :: nprof(nscen)
  integer :: is, ios, lenarg
  integer(8) :: seed

  call get_command_argument(1, outdir, lenarg, ios)
  if (ios /= 0 .or. lenarg == 0) then
     write(*,'(a)') 'usage: clarifier_settling_profiles OUTDIR'
     stop 2
  end if

  scen_name = [character(len=32) :: 'dry_weather', 'storm_surge', 'bulking_sludge']
  v0    = [474.0_dp, 474.0_dp, 310.0_dp]
  v0max = [250.0_dp, 250.0_dp, 170.0_dp]
  rh    = [5.76e-4_dp, 5.76e-4_dp, 8.9e-4_dp]
  rp    = [2.86e-3_dp, 2.86e-3_dp, 3.4e-3_dp]
  fns   = [2.28e-3_dp, 2.28e-3_dp, 3.1e-3_dp]

  seed = 20240611_8
  call write_config()

  do is = 1, nscen
     call build_hydrograph(is, seed, qin, xin)
     call write_hydrograph(is, qin, xin)
     x = 0.0_dp
     x(nfeed:) = 2500.0_dp
     call run_scenario(is, x, qin, xin, eff_mean(is), und_mean(is), blanket_max(is), nprof(is))
     call profile_statistics(is, nprof(is))
  end do

  call state_point_analysis()
  call write_summary()

  write(*,'(a)') 'clarifier_settling_profiles: done'
  do is = 1, nscen
     write(*,'(2x,a16,a,f8.2,a,f8.1,a,f6.2,a,i5)') scen_name(is), ' effluent TSS ', eff_mean(is), &
          ' g/m3  underflow ', und_mean(is), ' g/m3  max blanket ', blanket_max(is), ' m  profiles ', nprof(is)
  end do

contains

  function path(name) result(p)
    character(len=*), intent(in) :: name
    character(len=600) :: p
    p = trim(outdir) // '/' // trim(name)
  end function path

  subroutine check(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
       write(*,'(a,a,a,i0)') 'I/O error in ', what, ' iostat=', ios
       error stop 1
    end if
  end subroutine check

  function urand(s) result(u)
    integer(8), intent(inout) :: s
    real(dp) :: u
    ! xorshift64 generator, 53-bit uniform deviate
    s = ieor(s, ishft(s, 13))
    s = ieor(s, ishft(s, -7))
    s = ieor(s, ishft(s, 17))
    u = real(iand(ishft(s, -11), int(z'1FFFFFFFFFFFFF', 8)), dp) / 9007199254740992.0_dp
  end function urand

  subroutine write_config()
    integer :: u, ios, k
    open(newunit=u, file=path('clarifier_config.txt'), status='replace', action='write', iostat=ios)
    call check(ios, 'open config')
    write(u,'(a)', iostat=ios) '# secondary clarifier configuration'
    call check(ios, 'write config')
    write(u,'(a,f10.3)') 'depth_m          ', depth
    write(u,'(a,f10.3)') 'area_m2          ', area
    write(u,'(a,i10)')   'layers           ', nlay
    write(u,'(a,i10)')   'feed_layer       ', nfeed
    write(u,'(a,f10.5)') 'layer_dz_m       ', dz
    do k = 1, nscen
       write(u,'(a,i1,2a)') 'scenario_', k, '       ', trim(scen_name(k))
       write(u,'(a,4es12.4)', iostat=ios) '  v0 v0max rh rp  ', v0(k), v0max(k), rh(k), rp(k)
       call check(ios, 'write config')
    end do
    close(u, iostat=ios)
    call check(ios, 'close config')
  end subroutine write_config

  ! Influent flow (m3/d) and MLSS (g/m3) at one-minute resolution: diurnal
  ! pattern, red noise, and for scenario 2 a storm surge on day 2.
  subroutine build_hydrograph(is, s, q, xf)
    integer, intent(in) :: is
    integer(8), intent(inout) :: s
    real(dp), intent(out) :: q(nhyd), xf(nhyd)
    real(dp), parameter :: pi = 3.141592653589793_dp
    real(dp) :: t, noise, base, storm
    integer :: k
    noise = 0.0_dp
    do k = 1, nhyd
       t = real(k - 1, dp) / 1440.0_dp
       noise = 0.97_dp * noise + 0.03_dp * (urand(s) - 0.5_dp) * 4.0_dp
       base = 18000.0_dp * (1.0_dp + 0.35_dp * sin(2.0_dp * pi * (t - 0.3_dp)) &
            + 0.12_dp * sin(4.0_dp * pi * (t - 0.1_dp)) + 0.1_dp * noise)
       storm = 0.0_dp
       if (is == 2) storm = 26000.0_dp * exp(-((t - 1.4_dp) / 0.12_dp)**2) &
            + 12000.0_dp * exp(-((t - 2.2_dp) / 0.2_dp)**2)
       q(k) = max(base + storm, 2000.0_dp)
       xf(k) = 3200.0_dp * (1.0_dp + 0.05_dp * noise) - 0.02_dp * storm
    end do
  end subroutine build_hydrograph

  subroutine write_hydrograph(is, q, xf)
    integer, intent(in) :: is
    real(dp), intent(in) :: q(nhyd), xf(nhyd)
    character(len=64) :: fname
    integer :: u, ios, k
    write(fname,'(a,i1,a)') 'influent_s', is, '.csv'
    open(newunit=u, file=path(fname), status='replace', action='write', iostat=ios)
    call check(ios, 'open hydrograph')
    write(u,'(a)') 'minute,flow_m3d,mlss_gm3,return_m3d'
    do k = 1, nhyd
       write(u,'(i6,",",f12.3,",",f10.3,",",f12.3)', iostat=ios) k - 1, q(k), xf(k), 0.55_dp * q(k)
       call check(ios, 'write hydrograph')
    end do
    close(u, iostat=ios)
    call check(ios, 'close hydrograph')
  end subroutine write_hydrograph

  ! Gravity settling flux at every layer interface (index i: between i and i+1).
  subroutine settling_flux(is, xl, js)
    integer, intent(in) :: is
    real(dp), intent(in) :: xl(nlay)
    real(dp), intent(out) :: js(0:nlay)
    real(dp) :: vs(nlay), xmin, xs, xt
    integer :: i
    xmin = fns(is) * 3200.0_dp
    xt = 3000.0_dp
    do i = 1, nlay
       xs = max(xl(i) - xmin, 0.0_dp)
       vs(i) = max(0.0_dp, min(v0max(is), v0(is) * (exp(-rh(is) * xs) - exp(-rp(is) * xs))))
    end do
    js(0) = 0.0_dp
    js(nlay) = 0.0_dp
    do i = 1, nlay - 1
       if (i >= nfeed) then
          js(i) = min(vs(i) * xl(i), vs(i + 1) * xl(i + 1))
       else if (xl(i + 1) > xt) then
          js(i) = min(vs(i) * xl(i), vs(i + 1) * xl(i + 1))
       else
          js(i) = vs(i) * xl(i)
       end if
    end do
  end subroutine settling_flux

  function blanket_height(xl) result(h)
    real(dp), intent(in) :: xl(nlay)
    real(dp) :: h
    integer :: i
    h = 0.0_dp
    do i = 1, nlay
       if (xl(i) > 3000.0_dp) then
          h = depth - (i - 1) * dz
          return
       end if
    end do
  end function blanket_height

  subroutine write_profile(u, t, xl, js)
    integer, intent(in) :: u
    real(dp), intent(in) :: t, xl(nlay), js(0:nlay)
    integer :: i, ios
    write(u,'(a,f10.5,a,f8.4)', iostat=ios) '# t_d= ', t, ' blanket_m= ', blanket_height(xl)
    call check(ios, 'write profile header')
    do i = 1, nlay
       write(u,'(i5,f9.4,es14.6,es14.6)', iostat=ios) i, (i - 0.5_dp) * dz, xl(i), js(i)
       call check(ios, 'write profile')
    end do
  end subroutine write_profile

  subroutine run_scenario(is, xl, q, xf, effm, undm, bmax, np)
    integer, intent(in) :: is
    real(dp), intent(inout) :: xl(nlay)
    real(dp), intent(in) :: q(nhyd), xf(nhyd)
    real(dp), intent(out) :: effm, undm, bmax
    integer, intent(out) :: np
    real(dp) :: js(0:nlay), dx(nlay)
    real(dp) :: t, dt, tnext_prof, tnext_ts, qf, qe, qu, vup, vdn, w, feedflux
    integer :: up, ut, ios, i, k, nts
    character(len=64) :: fname

    write(fname,'(a,i1,a)') 'profiles_s', is, '.txt'
    open(newunit=up, file=path(fname), status='replace', action='write', iostat=ios)
    call check(ios, 'open profiles')
    write(fname,'(a,i1,a)') 'outflow_s', is, '.csv'
    open(newunit=ut, file=path(fname), status='replace', action='write', iostat=ios)
    call check(ios, 'open outflow')
    write(ut,'(a)') 't_d,q_in,x_eff,x_under,blanket_m,mass_kg'

    dt = 0.45_dp * dz / (v0max(is) + 60.0_dp)
    t = 0.0_dp
    tnext_prof = 0.0_dp
    tnext_ts = 0.0_dp
    np = 0
    nts = 0
    effm = 0.0_dp
    undm = 0.0_dp
    bmax = 0.0_dp
    do while (t < tend)
       k = min(nhyd - 1, int(t * 1440.0_dp) + 1)
       w = t * 1440.0_dp - (k - 1)
       qf = (1.0_dp - w) * q(k) + w * q(k + 1)
       feedflux = (1.0_dp - w) * xf(k) + w * xf(k + 1)
       qu = 0.55_dp * 18000.0_dp
       qf = qf + qu
       qe = qf - qu
       feedflux = feedflux * (qe + qu) / area
       vup = qe / area
       vdn = qu / area

       call settling_flux(is, xl, js)
       do i = 1, nfeed - 1
          dx(i) = (vup * (xl(i + 1) - xl(i)) + js(i - 1) - js(i)) / dz
       end do
       dx(nfeed) = (feedflux - (vup + vdn) * xl(nfeed) + js(nfeed - 1) - js(nfeed)) / dz
       do i = nfeed + 1, nlay
          dx(i) = (vdn * (xl(i - 1) - xl(i)) + js(i - 1) - js(i)) / dz
       end do
       xl = max(xl + dt * dx, 0.0_dp)

       if (t >= tnext_ts) then
          write(ut,'(f9.5,",",f11.2,",",f10.3,",",f10.2,",",f7.4,",",f12.2)', iostat=ios) t, qf - qu, &
               xl(1), xl(nlay), blanket_height(xl), sum(xl) * dz * area / 1000.0_dp
          call check(ios, 'write outflow')
          effm = effm + xl(1)
          undm = undm + xl(nlay)
          bmax = max(bmax, blanket_height(xl))
          nts = nts + 1
          tnext_ts = tnext_ts + dt_ts
       end if
       if (t >= tnext_prof) then
          call write_profile(up, t, xl, js)
          np = np + 1
          tnext_prof = tnext_prof + dt_prof
       end if
       t = t + dt
    end do
    effm = effm / max(nts, 1)
    undm = undm / max(nts, 1)
    close(up, iostat=ios)
    call check(ios, 'close profiles')
    close(ut, iostat=ios)
    call check(ios, 'close outflow')
  end subroutine run_scenario

  ! Read the formatted profile file back and compute per-layer mean, standard
  ! deviation, minimum and maximum concentration; write them as a table.
  subroutine profile_statistics(is, np)
    integer, intent(in) :: is, np
    real(dp) :: s1(nlay), s2(nlay), mn(nlay), mx(nlay), z, c, f, tt, bh
    character(len=64) :: fname
    integer :: u, v, ios, i, k, ii, nread
    write(fname,'(a,i1,a)') 'profiles_s', is, '.txt'
    open(newunit=u, file=path(fname), status='old', action='read', iostat=ios)
    call check(ios, 'reopen profiles')
    s1 = 0.0_dp
    s2 = 0.0_dp
    mn = huge(1.0_dp)
    mx = -huge(1.0_dp)
    nread = 0
    do k = 1, np
       read(u, '(7x,f10.5,12x,f8.4)', iostat=ios) tt, bh
       call check(ios, 'read profile header')
       do i = 1, nlay
          read(u, '(i5,f9.4,es14.6,es14.6)', iostat=ios) ii, z, c, f
          call check(ios, 'read profile row')
          s1(ii) = s1(ii) + c
          s2(ii) = s2(ii) + c * c
          mn(ii) = min(mn(ii), c)
          mx(ii) = max(mx(ii), c)
       end do
       nread = nread + 1
    end do
    close(u, iostat=ios)
    call check(ios, 'close profiles')

    write(fname,'(a,i1,a)') 'layer_stats_s', is, '.txt'
    open(newunit=v, file=path(fname), status='replace', action='write', iostat=ios)
    call check(ios, 'open layer stats')
    write(v,'(a,i0,a)') '# per-layer statistics over ', nread, ' profiles'
    write(v,'(a)') '# layer  depth_m      mean_gm3       std_gm3       min_gm3       max_gm3'
    do i = 1, nlay
       s1(i) = s1(i) / nread
       s2(i) = sqrt(max(s2(i) / nread - s1(i)**2, 0.0_dp))
       write(v,'(i7,f9.4,4es14.5)', iostat=ios) i, (i - 0.5_dp) * dz, s1(i), s2(i), mn(i), mx(i)
       call check(ios, 'write layer stats')
    end do
    close(v, iostat=ios)
    call check(ios, 'close layer stats')
  end subroutine profile_statistics

  ! Limiting solids flux from the settling curve for a range of underflow
  ! rates (state-point analysis), by brute-force minimisation over X.
  subroutine state_point_analysis()
    integer, parameter :: nx = 20000, nq = 120
    real(dp) :: xs, vs, gflux, tflux, lim, xlim, qu, vdn
    integer :: u, ios, is, iq, ix
    open(newunit=u, file=path('state_point.txt'), status='replace', action='write', iostat=ios)
    call check(ios, 'open state point')
    write(u,'(a)') '# scenario  qu_m3d  vdn_md  limiting_flux_kg_m2d  x_limit_gm3  max_mlss_gm3'
    do is = 1, nscen
       do iq = 1, nq
          qu = 2000.0_dp + (iq - 1) * 200.0_dp
          vdn = qu / area
          lim = huge(1.0_dp)
          xlim = 0.0_dp
          do ix = 1, nx
             xs = 2000.0_dp + ix * 0.75_dp
             vs = max(0.0_dp, min(v0max(is), v0(is) * (exp(-rh(is) * (xs - fns(is) * 3200.0_dp)) &
                  - exp(-rp(is) * (xs - fns(is) * 3200.0_dp)))))
             gflux = vs * xs
             tflux = gflux + vdn * xs
             if (tflux < lim .and. xs > 2500.0_dp) then
                lim = tflux
                xlim = xs
             end if
          end do
          write(u,'(i3,f11.1,f9.3,f14.4,f12.2,f12.2)', iostat=ios) is, qu, vdn, lim / 1000.0_dp, xlim, &
               lim * area / (18000.0_dp + qu)
          call check(ios, 'write state point')
       end do
    end do
    close(u, iostat=ios)
    call check(ios, 'close state point')
  end subroutine state_point_analysis

  subroutine write_summary()
    integer :: u, ios, k
    open(newunit=u, file=path('summary.txt'), status='replace', action='write', iostat=ios)
    call check(ios, 'open summary')
    write(u,'(a)') 'scenario            mean_effluent_gm3  mean_underflow_gm3  max_blanket_m  profiles'
    do k = 1, nscen
       write(u,'(a20,f18.3,f20.2,f15.3,i10)', iostat=ios) scen_name(k), eff_mean(k), und_mean(k), &
            blanket_max(k), nprof(k)
       call check(ios, 'write summary')
    end do
    close(u, iostat=ios)
    call check(ios, 'close summary')
  end subroutine write_summary

end program clarifier_settling_profiles
