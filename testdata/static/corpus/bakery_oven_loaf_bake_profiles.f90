! bakery_oven_loaf_bake_profiles.f90
!
! Batch baking of cylindrical loaves on the two decks of a bakery oven.
! Each loaf is modelled as an axisymmetric (r,z) body with coupled heat and
! moisture transport; evaporation pins the temperature at 100 C while free
! water is available, and a Maillard browning index accumulates at the crust.
! The oven has hot and cold spots, so every tray position bakes differently.
!
! Output (all formatted):
!   oven_zones.txt          - tray positions and local oven air temperature
!   profiles_LL.txt         - per loaf, radial and axial profiles every NPROF steps
!   fields_LL.txt           - per loaf, the full (r,z) field every NSNAP steps
!   batch_summary.txt       - fixed-column table of the end-of-bake state
!   bake_quality.txt        - report built by re-reading the profile files
!
! Usage: bakery_oven_loaf_bake_profiles OUTDIR
module bake_model
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: NLOAF = 16          ! loaves per batch (2 decks x 8 trays)
  integer, parameter :: NR = 40, NZ = 40    ! grid cells
  integer, parameter :: NSTEP = 1800        ! time steps
  integer, parameter :: NPROF = 30          ! profile interval (steps)
  integer, parameter :: NSNAP = 360         ! full-field interval (steps)
  real(dp), parameter :: DT = 1.0_dp        ! s
  real(dp), parameter :: RLOAF = 0.06_dp, HLOAF = 0.08_dp
  real(dp), parameter :: RHO = 400.0_dp, CP = 2800.0_dp, KCOND = 0.50_dp
  real(dp), parameter :: DMOIST = 2.0e-9_dp
  real(dp), parameter :: LATENT = 2.26e6_dp
  real(dp), parameter :: HCONV = 22.0_dp, EMISS = 0.90_dp, SIGMA = 5.670e-8_dp
  real(dp), parameter :: XINIT = 0.45_dp, XMIN = 0.02_dp
  real(dp), parameter :: BROWN_K0 = 1.1e4_dp, BROWN_EA = 6.0e4_dp, RGAS = 8.314_dp

  type loaf_t
     real(dp) :: t(NR, NZ)       ! temperature, C
     real(dp) :: x(NR, NZ)       ! moisture, kg water / kg dry
     real(dp) :: brown(NR, NZ)   ! browning index at boundary cells
     real(dp) :: tair            ! local oven air temperature
     real(dp) :: twall           ! radiating wall temperature
     real(dp) :: water_lost      ! kg
     integer  :: deck, tray
  end type loaf_t

  character(len=512) :: outdir
contains

  subroutine fail(msg, ios)
    character(len=*), intent(in) :: msg
    integer, intent(in) :: ios
    write(*, '(a,a,a,i0)') 'error: ', trim(msg), ' iostat=', ios
    error stop 2
  end subroutine fail

  ! Deterministic oven temperature field: burner side is hotter, door side
  ! cooler, lower deck sees more bottom heat.  Writes a small formatted table.
  subroutine setup_oven_zones(loaves)
    type(loaf_t), intent(inout) :: loaves(NLOAF)
    integer :: i, u, ios
    real(dp) :: xpos, base
    integer(8) :: seed
    real(dp) :: jitter

    seed = 20240611_8
    open(newunit=u, file=trim(outdir)//'/oven_zones.txt', status='replace', &
         action='write', form='formatted', iostat=ios)
    if (ios /= 0) call fail('open oven_zones.txt', ios)
    write(u, '(a)', iostat=ios) '# deck tray  x_pos_m   T_air_C  T_wall_C'
    if (ios /= 0) call fail('write oven_zones.txt', ios)
    do i = 1, NLOAF
       loaves(i)%deck = (i - 1) / 8 + 1
       loaves(i)%tray = mod(i - 1, 8) + 1
       xpos = 0.1_dp * real(loaves(i)%tray - 1, dp)
       seed = mod(seed * 6364136223846793005_8 + 1442695040888963407_8, huge(seed))
       jitter = real(mod(abs(seed), 1000_8), dp) / 1000.0_dp - 0.5_dp
       base = 225.0_dp - 18.0_dp * xpos / 0.7_dp
       if (loaves(i)%deck == 1) base = base + 8.0_dp
       loaves(i)%tair = base + 4.0_dp * jitter
       loaves(i)%twall = loaves(i)%tair + 15.0_dp - 10.0_dp * xpos
       write(u, '(2i5,3f10.3)', iostat=ios) loaves(i)%deck, loaves(i)%tray, xpos, &
            loaves(i)%tair, loaves(i)%twall
       if (ios /= 0) call fail('write oven_zones.txt', ios)
    end do
    close(u)
  end subroutine setup_oven_zones

  subroutine init_dough(loaves)
    type(loaf_t), intent(inout) :: loaves(NLOAF)
    integer :: i, ir, iz
    real(dp) :: r, z
    do i = 1, NLOAF
       do iz = 1, NZ
          z = (real(iz, dp) - 0.5_dp) / real(NZ, dp)
          do ir = 1, NR
             r = (real(ir, dp) - 0.5_dp) / real(NR, dp)
             ! proofed dough straight from the proving cabinet, slightly warmer core
             loaves(i)%t(ir, iz) = 30.0_dp + 2.0_dp * (1.0_dp - r*r) * sin(3.14159265_dp * z)
             loaves(i)%x(ir, iz) = XINIT - 0.01_dp * r
          end do
       end do
       loaves(i)%brown = 0.0_dp
       loaves(i)%water_lost = 0.0_dp
    end do
  end subroutine init_dough

  ! One explicit step of the axisymmetric heat/moisture equations for a loaf.
  subroutine step_loaf(lf)
    type(loaf_t), intent(inout) :: lf
    real(dp) :: tn(NR, NZ), xn(NR, NZ)
    real(dp) :: dr, dz, alpha, rc, rp, rm, lap, lapx, qs, tk, tw4
    real(dp) :: excess, dx, cellvol
    integer :: ir, iz
    dr = RLOAF / NR
    dz = HLOAF / NZ
    alpha = KCOND / (RHO * CP)
    tw4 = (lf%twall + 273.15_dp)**4
    do iz = 1, NZ
       do ir = 1, NR
          rc = (real(ir, dp) - 0.5_dp) * dr
          rp = real(ir, dp) * dr
          rm = real(ir - 1, dp) * dr
          lap = 0.0_dp
          lapx = 0.0_dp
          ! radial fluxes
          if (ir < NR) then
             lap  = lap  + rp * (lf%t(ir+1, iz) - lf%t(ir, iz)) / (rc * dr * dr)
             lapx = lapx + rp * (lf%x(ir+1, iz) - lf%x(ir, iz)) / (rc * dr * dr)
          else
             tk = lf%t(ir, iz) + 273.15_dp
             qs = HCONV * (lf%tair - lf%t(ir, iz)) + EMISS * SIGMA * (tw4 - tk**4)
             lap = lap + rp * qs / KCOND / (rc * dr)
             lapx = lapx - rp * 4.0e-6_dp * lf%x(ir, iz) / DMOIST * &
                  max(0.0_dp, lf%t(ir, iz) - 60.0_dp) / 100.0_dp / (rc * dr)
          end if
          if (ir > 1) then
             lap  = lap  - rm * (lf%t(ir, iz) - lf%t(ir-1, iz)) / (rc * dr * dr)
             lapx = lapx - rm * (lf%x(ir, iz) - lf%x(ir-1, iz)) / (rc * dr * dr)
          end if
          ! axial fluxes; bottom sits on the hot deck stone
          if (iz < NZ) then
             lap  = lap  + (lf%t(ir, iz+1) - lf%t(ir, iz)) / (dz * dz)
             lapx = lapx + (lf%x(ir, iz+1) - lf%x(ir, iz)) / (dz * dz)
          else
             tk = lf%t(ir, iz) + 273.15_dp
             qs = HCONV * (lf%tair - lf%t(ir, iz)) + EMISS * SIGMA * (tw4 - tk**4)
             lap = lap + qs / KCOND / dz
          end if
          if (iz > 1) then
             lap  = lap  - (lf%t(ir, iz) - lf%t(ir, iz-1)) / (dz * dz)
             lapx = lapx - (lf%x(ir, iz) - lf%x(ir, iz-1)) / (dz * dz)
          else
             qs = 180.0_dp * (lf%tair + 10.0_dp * lf%deck - lf%t(ir, iz))
             lap = lap + qs / KCOND / dz
          end if
          tn(ir, iz) = lf%t(ir, iz) + DT * alpha * lap
          xn(ir, iz) = max(0.0_dp, lf%x(ir, iz) + DT * DMOIST * lapx)
       end do
    end do
    ! evaporation: energy above the boiling point goes into latent heat
    do iz = 1, NZ
       do ir = 1, NR
          if (tn(ir, iz) > 100.0_dp .and. xn(ir, iz) > XMIN) then
             excess = tn(ir, iz) - 100.0_dp
             dx = min(xn(ir, iz) - XMIN, CP * excess / LATENT)
             xn(ir, iz) = xn(ir, iz) - dx
             tn(ir, iz) = tn(ir, iz) - dx * LATENT / CP
             rc = (real(ir, dp) - 0.5_dp) * dr
             cellvol = 2.0_dp * 3.14159265_dp * rc * dr * dz
             lf%water_lost = lf%water_lost + dx * RHO * cellvol
          end if
       end do
    end do
    lf%t = tn
    lf%x = xn
  end subroutine step_loaf

  ! Arrhenius browning index on the crust (outer radial ring, top and bottom).
  subroutine update_crust(lf)
    type(loaf_t), intent(inout) :: lf
    integer :: ir, iz
    real(dp) :: rate
    do iz = 1, NZ
       do ir = 1, NR
          if (ir >= NR - 1 .or. iz <= 2 .or. iz >= NZ - 1) then
             if (lf%x(ir, iz) < 0.25_dp) then
                rate = BROWN_K0 * exp(-BROWN_EA / (RGAS * (lf%t(ir, iz) + 273.15_dp)))
                lf%brown(ir, iz) = lf%brown(ir, iz) + 4.0_dp * DT * rate * (0.25_dp - lf%x(ir, iz))
             end if
          end if
       end do
    end do
  end subroutine update_crust

  subroutine open_loaf_files(uprof, ufield)
    integer, intent(out) :: uprof(NLOAF), ufield(NLOAF)
    integer :: i, ios
    character(len=600) :: fname
    do i = 1, NLOAF
       write(fname, '(a,a,i2.2,a)') trim(outdir), '/profiles_', i, '.txt'
       open(newunit=uprof(i), file=trim(fname), status='replace', action='write', &
            form='formatted', iostat=ios)
       if (ios /= 0) call fail('open '//trim(fname), ios)
       write(uprof(i), '(a,i3)', iostat=ios) '# loaf ', i
       if (ios /= 0) call fail('write '//trim(fname), ios)
       write(fname, '(a,a,i2.2,a)') trim(outdir), '/fields_', i, '.txt'
       open(newunit=ufield(i), file=trim(fname), status='replace', action='write', &
            form='formatted', iostat=ios)
       if (ios /= 0) call fail('open '//trim(fname), ios)
    end do
  end subroutine open_loaf_files

  ! Radial profile at mid height and axial profile on the axis.
  subroutine write_profiles(u, lf, step)
    integer, intent(in) :: u, step
    type(loaf_t), intent(in) :: lf
    integer :: ir, iz, ios
    real(dp) :: time
    time = step * DT
    write(u, '(a,i6,a,f9.2,a,f8.4)', iostat=ios) 'STEP ', step, ' t= ', time, &
         ' lost_kg= ', lf%water_lost
    if (ios /= 0) call fail('write profile header', ios)
    do ir = 1, NR
       write(u, '(a,i4,f9.5,3f10.4)', iostat=ios) 'R', ir, (ir - 0.5_dp) * RLOAF / NR, &
            lf%t(ir, NZ/2), lf%x(ir, NZ/2), lf%brown(ir, NZ/2)
       if (ios /= 0) call fail('write radial profile', ios)
    end do
    do iz = 1, NZ
       write(u, '(a,i4,f9.5,3f10.4)', iostat=ios) 'Z', iz, (iz - 0.5_dp) * HLOAF / NZ, &
            lf%t(1, iz), lf%x(1, iz), lf%brown(1, iz)
       if (ios /= 0) call fail('write axial profile', ios)
    end do
  end subroutine write_profiles

  subroutine write_field_snapshot(u, lf, step)
    integer, intent(in) :: u, step
    type(loaf_t), intent(in) :: lf
    integer :: ir, iz, ios
    write(u, '(a,i6,a,i4,a,i4)', iostat=ios) '# step ', step, ' nr ', NR, ' nz ', NZ
    if (ios /= 0) call fail('write field header', ios)
    do iz = 1, NZ
       do ir = 1, NR
          write(u, '(2i4,2es14.6,f9.4)', iostat=ios) ir, iz, lf%t(ir, iz), &
               lf%x(ir, iz), lf%brown(ir, iz)
          if (ios /= 0) call fail('write field', ios)
       end do
    end do
  end subroutine write_field_snapshot

  subroutine write_batch_summary(loaves)
    type(loaf_t), intent(in) :: loaves(NLOAF)
    integer :: i, u, ios
    real(dp) :: tcore, tmean, xmean, crust
    open(newunit=u, file=trim(outdir)//'/batch_summary.txt', status='replace', &
         action='write', form='formatted', iostat=ios)
    if (ios /= 0) call fail('open batch_summary.txt', ios)
    write(u, '(a)') 'loaf deck tray   T_air    T_core    T_mean   X_mean   lost_g  crust'
    do i = 1, NLOAF
       tcore = loaves(i)%t(1, NZ/2)
       tmean = sum(loaves(i)%t) / real(NR*NZ, dp)
       xmean = sum(loaves(i)%x) / real(NR*NZ, dp)
       crust = maxval(loaves(i)%brown)
       write(u, '(3i5,4f9.3,f9.2,f8.3)', iostat=ios) i, loaves(i)%deck, loaves(i)%tray, &
            loaves(i)%tair, tcore, tmean, xmean, 1000.0_dp * loaves(i)%water_lost, crust
       if (ios /= 0) call fail('write batch_summary.txt', ios)
    end do
    close(u)
  end subroutine write_batch_summary

  ! Re-read every profile file: find when the loaf centre passed 94 C (done),
  ! the peak crust browning and the mid-height moisture gradient.
  subroutine reread_profiles(done_time, crust_max, xgrad)
    real(dp), intent(out) :: done_time(NLOAF), crust_max(NLOAF), xgrad(NLOAF)
    integer :: i, u, ios, step, idx
    character(len=600) :: fname
    character(len=128) :: line
    character(len=1) :: tag
    real(dp) :: time, lost, pos, tv, xv, bv, xcore
    do i = 1, NLOAF
       write(fname, '(a,a,i2.2,a)') trim(outdir), '/profiles_', i, '.txt'
       open(newunit=u, file=trim(fname), status='old', action='read', &
            form='formatted', iostat=ios)
       if (ios /= 0) call fail('reopen '//trim(fname), ios)
       done_time(i) = -1.0_dp
       crust_max(i) = 0.0_dp
       xgrad(i) = 0.0_dp
       xcore = 0.0_dp
       time = 0.0_dp
       read(u, '(a)', iostat=ios) line
       do
          read(u, '(a)', iostat=ios) line
          if (ios < 0) exit
          if (ios > 0) call fail('read '//trim(fname), ios)
          if (line(1:4) == 'STEP') then
             read(line(5:), *, iostat=ios) step, tag, time, tag, lost
             if (ios /= 0) then
                read(line(5:10), *) step
                time = step * DT
             end if
          else
             tag = line(1:1)
             read(line(2:), *, iostat=ios) idx, pos, tv, xv, bv
             if (ios /= 0) call fail('parse '//trim(fname), ios)
             if (tag == 'R') then
                if (idx == 1) xcore = xv
                if (idx == NR) xgrad(i) = xcore - xv
                crust_max(i) = max(crust_max(i), bv)
             else if (tag == 'Z' .and. idx == NZ/2) then
                if (done_time(i) < 0.0_dp .and. tv >= 94.0_dp) done_time(i) = time
             end if
          end if
       end do
       close(u)
    end do
  end subroutine reread_profiles

  subroutine write_quality_report(loaves, done_time, crust_max, xgrad)
    type(loaf_t), intent(in) :: loaves(NLOAF)
    real(dp), intent(in) :: done_time(NLOAF), crust_max(NLOAF), xgrad(NLOAF)
    integer :: i, u, ios, nunder, nburnt
    character(len=12) :: verdict
    nunder = 0
    nburnt = 0
    open(newunit=u, file=trim(outdir)//'/bake_quality.txt', status='replace', &
         action='write', form='formatted', iostat=ios)
    if (ios /= 0) call fail('open bake_quality.txt', ios)
    write(u, '(a)') 'loaf deck tray  done_s  crust  dX_core_skin  verdict'
    do i = 1, NLOAF
       if (done_time(i) < 0.0_dp) then
          verdict = 'underbaked'
          nunder = nunder + 1
       else if (crust_max(i) > 0.22_dp) then
          verdict = 'dark'
          nburnt = nburnt + 1
       else
          verdict = 'ok'
       end if
       write(u, '(3i5,f9.1,f8.3,f12.4,2x,a)', iostat=ios) i, loaves(i)%deck, &
            loaves(i)%tray, done_time(i), crust_max(i), xgrad(i), trim(verdict)
       if (ios /= 0) call fail('write bake_quality.txt', ios)
    end do
    write(u, '(a,i3,a,i3)') 'underbaked: ', nunder, '  dark: ', nburnt
    close(u)
    write(*, '(a,i3,a,i3,a,i3)') 'loaves: ', NLOAF, '  underbaked: ', nunder, '  dark: ', nburnt
  end subroutine write_quality_report
end module bake_model

program bakery_oven_loaf_bake_profiles
  use bake_model
  implicit none
  type(loaf_t), allocatable :: loaves(:)
  integer :: uprof(NLOAF), ufield(NLOAF)
  integer :: step, i
  real(dp) :: done_time(NLOAF), crust_max(NLOAF), xgrad(NLOAF)

  if (command_argument_count() /= 1) then
     write(*, '(a)') 'usage: bakery_oven_loaf_bake_profiles OUTDIR'
     stop 1
  end if
  call get_command_argument(1, outdir)
  allocate(loaves(NLOAF))

  call setup_oven_zones(loaves)
  call init_dough(loaves)
  call open_loaf_files(uprof, ufield)
  do i = 1, NLOAF
     call write_profiles(uprof(i), loaves(i), 0)
     call write_field_snapshot(ufield(i), loaves(i), 0)
  end do
  do step = 1, NSTEP
     do i = 1, NLOAF
        call step_loaf(loaves(i))
        if (mod(step, 4) == 0) call update_crust(loaves(i))
        if (mod(step, NPROF) == 0) call write_profiles(uprof(i), loaves(i), step)
        if (mod(step, NSNAP) == 0) call write_field_snapshot(ufield(i), loaves(i), step)
     end do
  end do
  do i = 1, NLOAF
     close(uprof(i))
     close(ufield(i))
  end do
  call write_batch_summary(loaves)
  call reread_profiles(done_time, crust_max, xgrad)
  call write_quality_report(loaves, done_time, crust_max, xgrad)
  write(*, '(a,f8.1,a)') 'bake time ', NSTEP * DT, ' s done'
end program bakery_oven_loaf_bake_profiles
