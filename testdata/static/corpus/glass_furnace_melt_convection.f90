! glass_furnace_melt_convection.f90
!
! Infinite-Prandtl (Stokes) thermal convection in a longitudinal section of a
! float-glass melting tank.  Vorticity / stream-function formulation on a
! uniform grid, explicit upwind advection-diffusion of temperature, SOR Poisson
! solves.  Heat enters through the crown (radiative exchange with a port-firing
! temperature profile) and through submerged electrode boosting; the batch
! blanket at the doghouse end keeps the surface cold.  Massless tracers are
! released under the batch blanket to estimate the residence-time distribution
! at the throat.
!
! Output (all formatted): a run log every LOGEVERY steps, vertical profile
! tables at the furnace stations and full field tables every DUMPEVERY steps,
! tracer snapshots, the residence-time histogram and a summary.
!
! usage: glass_furnace_melt_convection OUTDIR

module furnace
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: NZ = 32             ! cells over the depth
  integer, parameter :: ASPECT = 6          ! tank length / depth
  integer, parameter :: NX = NZ * ASPECT
  integer, parameter :: NSTEPS = 2200
  integer, parameter :: LOGEVERY = 10, PROFEVERY = 80, DUMPEVERY = 150
  integer, parameter :: NTRACER = 3000
  integer, parameter :: NSTATION = 9
  integer, parameter :: NBIN = 60
  real(dp), parameter :: RA = 1.0e4_dp       ! Rayleigh number
  real(dp), parameter :: BIOT = 6.0_dp       ! crown exchange coefficient
  real(dp), parameter :: QBOOST = 60.0_dp    ! electrode boosting power density
  real(dp), parameter :: XBATCH = 1.2_dp     ! batch blanket length (depths)
  real(dp), parameter :: PULL = 40.0_dp     ! net throughput velocity seen by tracers
  real(dp), parameter :: SORW = 1.82_dp
  integer, parameter :: NSOR = 12          ! warm-started SOR sweeps per solve

  real(dp) :: h, dt, time
  real(dp) :: T(0:NX, 0:NZ), psi(0:NX, 0:NZ), omg(0:NX, 0:NZ)
  real(dp) :: u(0:NX, 0:NZ), w(0:NX, 0:NZ), src(0:NX, 0:NZ)
  real(dp) :: work(0:NX, 0:NZ)     ! scratch: Poisson right-hand side / new temperature
  real(dp) :: tcrown(0:NX)
  real(dp) :: px(NTRACER), pz(NTRACER), page(NTRACER)
  logical  :: palive(NTRACER)
  integer  :: rtd(NBIN), nexited
  integer(8) :: seed = 20240611_8
  character(len=512) :: outdir
  integer :: ulog

contains

  subroutine fail(msg, ios)
    character(len=*), intent(in) :: msg
    integer, intent(in) :: ios
    write(0, '(a,a,a,i0)') 'glass_furnace: ', trim(msg), ' iostat=', ios
    stop 2
  end subroutine fail

  real(dp) function urand()
    ! 64-bit LCG (Knuth MMIX constants), top 53 bits
    seed = seed * 6364136223846793005_8 + 1442695040888963407_8
    urand = real(ishft(seed, -11), dp) / 9007199254740992.0_dp
  end function urand

  subroutine init_tank()
    integer :: i, k
    real(dp) :: x, z
    h = 1.0_dp / NZ
    dt = 0.2_dp * h * h
    time = 0.0_dp
    do i = 0, NX
      x = i * h
      ! port-firing crown profile with hot spot at 60 % of the tank length
      tcrown(i) = 0.55_dp + 0.45_dp * exp(-((x - 0.6_dp * ASPECT) / 1.3_dp)**2)
      if (x < XBATCH) tcrown(i) = 0.0_dp
      do k = 0, NZ
        z = k * h
        T(i, k) = 0.45_dp + 0.1_dp * z + 0.01_dp * (urand() - 0.5_dp)
        src(i, k) = 0.0_dp
        ! two rows of electrodes near the bottom, upstream of the hot spot
        if (abs(x - 2.3_dp) < 0.25_dp .and. z < 0.35_dp) src(i, k) = QBOOST
        if (abs(x - 3.1_dp) < 0.20_dp .and. z < 0.30_dp) src(i, k) = 0.7_dp * QBOOST
      end do
    end do
    psi = 0.0_dp; omg = 0.0_dp; u = 0.0_dp; w = 0.0_dp
    do i = 1, NTRACER
      px(i) = 0.05_dp + (XBATCH - 0.1_dp) * urand()
      pz(i) = 1.0_dp - 0.08_dp * urand()
      page(i) = 0.0_dp
      palive(i) = .true.
    end do
    rtd = 0
    nexited = 0
  end subroutine init_tank

  subroutine sor_poisson(f, rhs, niter, resid)
    ! solve lap(f) = rhs with f = 0 on the boundary, red-black SOR, warm start
    real(dp), intent(inout) :: f(0:NX, 0:NZ)
    real(dp), intent(in) :: rhs(0:NX, 0:NZ)
    integer, intent(in) :: niter
    real(dp), intent(out) :: resid
    integer :: it, i, k, colour
    real(dp) :: r, h2
    h2 = h * h
    do it = 1, niter
      do colour = 0, 1
        do k = 1, NZ - 1
          do i = 1 + mod(k + colour, 2), NX - 1, 2
            r = 0.25_dp * (f(i+1,k) + f(i-1,k) + f(i,k+1) + f(i,k-1) - h2 * rhs(i,k)) - f(i,k)
            f(i, k) = f(i, k) + SORW * r
          end do
        end do
      end do
    end do
    resid = 0.0_dp
    do k = 1, NZ - 1
      do i = 1, NX - 1
        r = (f(i+1,k) + f(i-1,k) + f(i,k+1) + f(i,k-1) - 4.0_dp * f(i,k)) / h2 - rhs(i,k)
        resid = max(resid, abs(r))
      end do
    end do
  end subroutine sor_poisson

  subroutine solve_flow(res_w, res_p)
    ! Stokes: lap(omega) = Ra dT/dx ; lap(psi) = omega ; u = dpsi/dz, w = -dpsi/dx
    real(dp), intent(out) :: res_w, res_p
    integer :: i, k
    work = 0.0_dp
    do k = 1, NZ - 1
      do i = 1, NX - 1
        work(i, k) = RA * (T(i+1,k) - T(i-1,k)) / (2.0_dp * h)
      end do
    end do
    call sor_poisson(omg, work, NSOR, res_w)
    call sor_poisson(psi, omg, NSOR, res_p)
    u = 0.0_dp; w = 0.0_dp
    do k = 1, NZ - 1
      do i = 1, NX - 1
        u(i, k) = (psi(i,k+1) - psi(i,k-1)) / (2.0_dp * h)
        w(i, k) = -(psi(i+1,k) - psi(i-1,k)) / (2.0_dp * h)
      end do
    end do
    ! free-slip walls: tangential velocity from one-sided differences
    do i = 1, NX - 1
      u(i, 0)  = psi(i, 1) / h
      u(i, NZ) = -psi(i, NZ-1) / h
    end do
    do k = 1, NZ - 1
      w(0, k)  = -psi(1, k) / h
      w(NX, k) = psi(NX-1, k) / h
    end do
  end subroutine solve_flow

  subroutine step_temperature(umax)
    real(dp), intent(out) :: umax
    real(dp) :: adv, dif, ux, wz
    integer :: i, k
    umax = max(maxval(abs(u)), maxval(abs(w)))
    ! explicit stability limit for upwind advection + 5-point diffusion
    dt = 0.8_dp / (4.0_dp / (h*h) + 2.0_dp * umax / h)
    do k = 1, NZ - 1
      do i = 1, NX - 1
        ux = u(i, k); wz = w(i, k)
        if (ux > 0.0_dp) then
          adv = ux * (T(i,k) - T(i-1,k))
        else
          adv = ux * (T(i+1,k) - T(i,k))
        end if
        if (wz > 0.0_dp) then
          adv = adv + wz * (T(i,k) - T(i,k-1))
        else
          adv = adv + wz * (T(i,k+1) - T(i,k))
        end if
        dif = T(i+1,k) + T(i-1,k) + T(i,k+1) + T(i,k-1) - 4.0_dp * T(i,k)
        work(i, k) = T(i,k) + dt * (dif / (h*h) - adv / h + src(i,k))
      end do
    end do
    ! crown: Robin exchange; batch blanket held at the melting temperature 0
    do i = 0, NX
      if (i * h < XBATCH) then
        work(i, NZ) = 0.0_dp
      else
        work(i, NZ) = (work(i, NZ-1) + BIOT * h * tcrown(i)) / (1.0_dp + BIOT * h)
      end if
    end do
    ! insulated bottom (weak loss through refractory) and side walls
    do i = 0, NX
      work(i, 0) = work(i, 1) / (1.0_dp + 0.3_dp * h)
    end do
    do k = 0, NZ
      work(0, k) = work(1, k)
      work(NX, k) = work(NX-1, k)
    end do
    T(1:NX-1, 1:NZ-1) = work(1:NX-1, 1:NZ-1)
    T(:, NZ) = work(:, NZ); T(:, 0) = work(:, 0)
    T(0, :) = work(0, :);   T(NX, :) = work(NX, :)
    time = time + dt
  end subroutine step_temperature

  subroutine interp_vel(x, z, uu, ww)
    real(dp), intent(in) :: x, z
    real(dp), intent(out) :: uu, ww
    integer :: i, k
    real(dp) :: fx, fz
    i = min(max(int(x / h), 0), NX - 1)
    k = min(max(int(z / h), 0), NZ - 1)
    fx = x / h - i; fz = z / h - k
    uu = (1-fx)*(1-fz)*u(i,k) + fx*(1-fz)*u(i+1,k) + (1-fx)*fz*u(i,k+1) + fx*fz*u(i+1,k+1)
    ww = (1-fx)*(1-fz)*w(i,k) + fx*(1-fz)*w(i+1,k) + (1-fx)*fz*w(i,k+1) + fx*fz*w(i+1,k+1)
  end subroutine interp_vel

  subroutine advect_tracers()
    ! midpoint rule; tracers leaving through the throat into the working end
    ! are binned by age.  Tracers get a small random walk for diffusion.
    integer :: n, b
    real(dp) :: u1, w1, u2, w2, xm, zm, sdev
    real(dp), parameter :: tbinw = 0.004_dp
    sdev = sqrt(2.0_dp * dt) * 0.05_dp   ! weak molecular diffusion of tracers
    do n = 1, NTRACER
      if (.not. palive(n)) cycle
      call interp_vel(px(n), pz(n), u1, w1)
      xm = px(n) + 0.5_dp * dt * (u1 + PULL)
      zm = pz(n) + 0.5_dp * dt * w1
      call interp_vel(xm, zm, u2, w2)
      px(n) = px(n) + dt * (u2 + PULL) + sdev * (urand() - 0.5_dp)
      pz(n) = pz(n) + dt * w2 + sdev * (urand() - 0.5_dp)
      px(n) = min(max(px(n), 1.0e-6_dp), ASPECT - 1.0e-6_dp)
      pz(n) = min(max(pz(n), 1.0e-6_dp), 1.0_dp - 1.0e-6_dp)
      page(n) = page(n) + dt
      if (px(n) > ASPECT - 0.15_dp) then
        palive(n) = .false.
        nexited = nexited + 1
        b = min(int(page(n) / tbinw) + 1, NBIN)
        rtd(b) = rtd(b) + 1
      end if
    end do
  end subroutine advect_tracers

  subroutine diagnostics(tmean, tmax, nusselt, tthroat)
    real(dp), intent(out) :: tmean, tmax, nusselt, tthroat
    integer :: i
    tmean = sum(T) / real((NX+1)*(NZ+1), dp)
    tmax = maxval(T)
    nusselt = 0.0_dp
    do i = 0, NX
      nusselt = nusselt + (T(i, NZ) - T(i, NZ-1)) / h
    end do
    nusselt = nusselt / (NX + 1)
    tthroat = sum(T(NX-3:NX, 0:NZ/4)) / real(4 * (NZ/4 + 1), dp)
  end subroutine diagnostics

  subroutine open_log()
    integer :: ios
    open(newunit=ulog, file=trim(outdir)//'/furnace_log.txt', status='replace', &
         action='write', form='formatted', iostat=ios)
    if (ios /= 0) call fail('cannot open furnace_log.txt', ios)
    write(ulog, '(a)', iostat=ios) '#   step        time       T_mean        T_max        u_max' // &
         '     Nu_crown     T_throat  resid_omega    resid_psi  exited'
    if (ios /= 0) call fail('write log header', ios)
  end subroutine open_log

  subroutine write_log(istep, umax, rw, rp)
    integer, intent(in) :: istep
    real(dp), intent(in) :: umax, rw, rp
    real(dp) :: tmean, tmax, nus, tthr
    integer :: ios
    call diagnostics(tmean, tmax, nus, tthr)
    write(ulog, '(i8,es12.4,5f13.6,2es13.4,i8)', iostat=ios) istep, time, tmean, tmax, umax, &
         nus, tthr, rw, rp, nexited
    if (ios /= 0) call fail('write log line', ios)
  end subroutine write_log

  subroutine write_profiles(istep)
    ! vertical T, u, w profiles at the furnace stations (doghouse .. throat)
    integer, intent(in) :: istep
    character(len=600) :: fname
    integer :: up, ios, s, k, ist(NSTATION)
    do s = 1, NSTATION
      ist(s) = nint(real(s, dp) / (NSTATION + 1) * NX)
    end do
    write(fname, '(a,a,i5.5,a)') trim(outdir), '/profiles_', istep, '.txt'
    open(newunit=up, file=trim(fname), status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('open '//trim(fname), ios)
    write(up, '(a,i6,a,es12.5)', iostat=ios) '# step ', istep, '   time ', time
    if (ios /= 0) call fail('write profile header', ios)
    do s = 1, NSTATION
      write(up, '(a,i2,a,f8.4)', iostat=ios) '# station ', s, '  x/H = ', ist(s) * h
      write(up, '(a)', iostat=ios) '#      z/H            T            u            w          psi'
      do k = 0, NZ
        write(up, '(f10.5,4es13.5)', iostat=ios) k * h, T(ist(s),k), u(ist(s),k), w(ist(s),k), psi(ist(s),k)
        if (ios /= 0) call fail('write profile row', ios)
      end do
      write(up, '(a)', iostat=ios)
    end do
    close(up, iostat=ios)
    if (ios /= 0) call fail('close profile', ios)
  end subroutine write_profiles

  subroutine write_field(istep)
    integer, intent(in) :: istep
    character(len=600) :: fname
    integer :: uf, ios, i, k
    write(fname, '(a,a,i5.5,a)') trim(outdir), '/field_', istep, '.dat'
    open(newunit=uf, file=trim(fname), status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('open '//trim(fname), ios)
    write(uf, '(a,i6,a,es12.5,a,i4,a,i4)', iostat=ios) '# step ', istep, ' time ', time, &
         ' nx ', NX + 1, ' nz ', NZ + 1
    write(uf, '(a)', iostat=ios) '#     x/H      z/H            T          psi        omega' // &
         '            u            w'
    do k = 0, NZ
      do i = 0, NX
        write(uf, '(2f9.4,5es13.5)', iostat=ios) i*h, k*h, T(i,k), psi(i,k), omg(i,k), u(i,k), w(i,k)
        if (ios /= 0) call fail('write field row', ios)
      end do
      write(uf, '(a)', iostat=ios)
    end do
    close(uf, iostat=ios)
    if (ios /= 0) call fail('close field', ios)
  end subroutine write_field

  subroutine write_tracers(istep)
    integer, intent(in) :: istep
    character(len=600) :: fname
    integer :: ut, ios, n
    write(fname, '(a,a,i5.5,a)') trim(outdir), '/tracers_', istep, '.txt'
    open(newunit=ut, file=trim(fname), status='replace', action='write', iostat=ios)
    if (ios /= 0) call fail('open '//trim(fname), ios)
    do n = 1, NTRACER
      if (palive(n)) then
        write(ut, '(i6,3f11.6)', iostat=ios) n, px(n), pz(n), page(n)
        if (ios /= 0) call fail('write tracer', ios)
      end if
    end do
    close(ut, iostat=ios)
    if (ios /= 0) call fail('close tracers', ios)
  end subroutine write_tracers

  subroutine write_rtd_summary(umax)
    real(dp), intent(in) :: umax
    integer :: ur, ios, b, cum
    real(dp) :: tmean, tmax, nus, tthr, tbar
    real(dp), parameter :: tbinw = 0.004_dp
    open(newunit=ur, file=trim(outdir)//'/residence_time.txt', status='replace', &
         action='write', iostat=ios)
    if (ios /= 0) call fail('open residence_time.txt', ios)
    write(ur, '(a)', iostat=ios) '#   t_lo      t_hi   count  cumulative'
    cum = 0
    tbar = 0.0_dp
    do b = 1, NBIN
      cum = cum + rtd(b)
      tbar = tbar + rtd(b) * (b - 0.5_dp) * tbinw
      write(ur, '(2f10.4,i8,f12.6)', iostat=ios) (b-1)*tbinw, b*tbinw, rtd(b), &
           real(cum, dp) / NTRACER
      if (ios /= 0) call fail('write rtd', ios)
    end do
    close(ur, iostat=ios)
    if (ios /= 0) call fail('close rtd', ios)
    call diagnostics(tmean, tmax, nus, tthr)
    if (nexited > 0) tbar = tbar / nexited
    write(*, '(a,i0,a,i0,a,f8.5)') 'glass furnace: ', NX+1, ' x ', NZ+1, ' grid, t_end = ', time
    write(*, '(a,f8.5,a,f8.5,a,f9.3)') '  mean T ', tmean, '  throat T ', tthr, '  max speed ', umax
    write(*, '(a,f9.4)') '  crown Nusselt ', nus
    write(*, '(a,i0,a,i0,a,f8.5)') '  tracers exited ', nexited, ' of ', NTRACER, &
         ', mean residence ', tbar
  end subroutine write_rtd_summary

end module furnace

program glass_furnace_melt_convection
  use furnace
  implicit none
  integer :: istep, ios
  real(dp) :: umax, rw, rp

  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: glass_furnace_melt_convection OUTDIR'
    stop 1
  end if
  call get_command_argument(1, outdir)

  call init_tank()
  call open_log()
  umax = 0.0_dp
  do istep = 1, NSTEPS
    call solve_flow(rw, rp)
    call step_temperature(umax)
    call advect_tracers()
    if (mod(istep, LOGEVERY) == 0) call write_log(istep, umax, rw, rp)
    if (mod(istep, PROFEVERY) == 0) call write_profiles(istep)
    if (mod(istep, DUMPEVERY) == 0) then
      call write_field(istep)
      call write_tracers(istep)
    end if
  end do
  close(ulog, iostat=ios)
  if (ios /= 0) call fail('close log', ios)
  call write_rtd_summary(umax)
end program glass_furnace_melt_convection
