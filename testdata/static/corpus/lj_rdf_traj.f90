! Lennard-Jones fluid in a periodic box (velocity Verlet, reduced units): writes an XYZ
! trajectory and a thermodynamics log, saves an unformatted restart, then re-reads the
! trajectory to compute the radial distribution function g(r).
module lj_md
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: natoms = 500
  integer, parameter :: nsteps = 900
  integer, parameter :: frame_every = 10
  integer, parameter :: nbins = 200
  real(dp), parameter :: rho = 0.8_dp, temp0 = 1.2_dp, dt = 0.004_dp, rcut = 2.5_dp
  real(dp) :: box
  real(dp) :: pos(3, natoms), vel(3, natoms), frc(3, natoms)
contains

  subroutine init_lattice()
    integer :: ncell, i, j, k, n
    real(dp) :: a, r(3), vcm(3), scale, ekin
    integer :: seed_size
    integer, allocatable :: seed(:)
    box = (natoms / rho)**(1.0_dp / 3.0_dp)
    ncell = ceiling((natoms / 4.0_dp)**(1.0_dp / 3.0_dp))
    a = box / ncell
    n = 0
    outer: do i = 0, ncell - 1
      do j = 0, ncell - 1
        do k = 0, ncell - 1
          call place(i, j, k, 0.0_dp, 0.0_dp, 0.0_dp)
          call place(i, j, k, 0.5_dp, 0.5_dp, 0.0_dp)
          call place(i, j, k, 0.5_dp, 0.0_dp, 0.5_dp)
          call place(i, j, k, 0.0_dp, 0.5_dp, 0.5_dp)
          if (n >= natoms) exit outer
        end do
      end do
    end do outer
    call random_seed(size=seed_size)
    allocate(seed(seed_size))
    seed = 918273
    call random_seed(put=seed)
    call random_number(vel)
    vel = vel - 0.5_dp
    vcm = sum(vel, dim=2) / natoms
    do i = 1, natoms
      vel(:, i) = vel(:, i) - vcm
    end do
    ekin = 0.5_dp * sum(vel**2)
    scale = sqrt(1.5_dp * natoms * temp0 / ekin)
    vel = vel * scale
  contains
    subroutine place(ii, jj, kk, ox, oy, oz)
      integer, intent(in) :: ii, jj, kk
      real(dp), intent(in) :: ox, oy, oz
      if (n >= natoms) return
      n = n + 1
      r = [(ii + ox) * a, (jj + oy) * a, (kk + oz) * a]
      pos(:, n) = r
    end subroutine place
  end subroutine init_lattice

  subroutine compute_forces(epot, virial)
    real(dp), intent(out) :: epot, virial
    integer :: i, j
    real(dp) :: d(3), r2, ir2, ir6, ff, rc2, ecut
    rc2 = rcut * rcut
    ecut = 4.0_dp * (rcut**(-12) - rcut**(-6))
    frc = 0.0_dp
    epot = 0.0_dp
    virial = 0.0_dp
    do i = 1, natoms - 1
      do j = i + 1, natoms
        d = pos(:, i) - pos(:, j)
        d = d - box * anint(d / box)
        r2 = d(1)**2 + d(2)**2 + d(3)**2
        if (r2 < rc2) then
          ir2 = 1.0_dp / r2
          ir6 = ir2**3
          ff = 48.0_dp * ir2 * ir6 * (ir6 - 0.5_dp)
          frc(:, i) = frc(:, i) + ff * d
          frc(:, j) = frc(:, j) - ff * d
          epot = epot + 4.0_dp * ir6 * (ir6 - 1.0_dp) - ecut
          virial = virial + ff * r2
        end if
      end do
    end do
  end subroutine compute_forces

  subroutine write_frame(unit, step)
    integer, intent(in) :: unit, step
    integer :: i
    write(unit, '(i0)') natoms
    write(unit, '(a,i0,a,f12.6)') 'step=', step, ' box=', box
    do i = 1, natoms
      write(unit, '(a2,3f14.7)') 'Ar', modulo(pos(:, i), box)
    end do
  end subroutine write_frame

  subroutine run_md(dir, nframes)
    character(len=*), intent(in) :: dir
    integer, intent(out) :: nframes
    integer :: step, utraj, ulog
    real(dp) :: epot, virial, ekin, temp, press
    open(newunit=utraj, file=dir//'/traj.xyz', status='replace', action='write')
    open(newunit=ulog, file=dir//'/thermo.log', status='replace', action='write')
    write(ulog, '(a)') '#  step        time        epot        ekin        etot        temp       press'
    call compute_forces(epot, virial)
    nframes = 0
    do step = 1, nsteps
      vel = vel + 0.5_dp * dt * frc
      pos = pos + dt * vel
      call compute_forces(epot, virial)
      vel = vel + 0.5_dp * dt * frc
      ekin = 0.5_dp * sum(vel**2)
      temp = 2.0_dp * ekin / (3.0_dp * natoms)
      press = rho * temp + virial / (3.0_dp * box**3)
      write(ulog, '(i7,6es12.4)') step, step * dt, epot / natoms, ekin / natoms, &
           (epot + ekin) / natoms, temp, press
      if (mod(step, frame_every) == 0) then
        call write_frame(utraj, step)
        nframes = nframes + 1
      end if
    end do
    close(utraj)
    close(ulog)
  end subroutine run_md

  subroutine save_restart(dir)
    character(len=*), intent(in) :: dir
    integer :: u
    open(newunit=u, file=dir//'/restart.bin', form='unformatted', access='sequential', &
         status='replace', action='write')
    write(u) natoms, nsteps, box
    write(u) pos
    write(u) vel
    close(u)
  end subroutine save_restart

  logical function check_restart(dir)
    character(len=*), intent(in) :: dir
    integer :: u, n, ns
    real(dp) :: b
    real(dp), allocatable :: p(:, :), v(:, :)
    open(newunit=u, file=dir//'/restart.bin', form='unformatted', access='sequential', &
         status='old', action='read')
    read(u) n, ns, b
    allocate(p(3, n), v(3, n))
    read(u) p
    read(u) v
    close(u)
    check_restart = (n == natoms) .and. maxval(abs(p - pos)) == 0.0_dp .and. &
                    maxval(abs(v - vel)) == 0.0_dp
  end function check_restart

  subroutine rdf_from_traj(dir, nframes_expected)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: nframes_expected
    integer :: u, ios, n, i, j, f, bin, uout
    character(len=64) :: line
    character(len=2) :: el
    real(dp) :: xyz(3, natoms), d(3), r, dr, rmax, hist(nbins), shell, ideal, b
    integer :: istep
    rmax = 0.5_dp * box
    dr = rmax / nbins
    hist = 0.0_dp
    f = 0
    open(newunit=u, file=dir//'/traj.xyz', status='old', action='read')
    do
      read(u, *, iostat=ios) n
      if (ios /= 0) exit
      read(u, '(a)') line
      read(line(6:), *) istep
      b = box
      do i = 1, n
        read(u, *) el, xyz(:, i)
      end do
      f = f + 1
      do i = 1, n - 1
        do j = i + 1, n
          d = xyz(:, i) - xyz(:, j)
          d = d - b * anint(d / b)
          r = sqrt(sum(d * d))
          if (r < rmax) then
            bin = int(r / dr) + 1
            hist(bin) = hist(bin) + 2.0_dp
          end if
        end do
      end do
    end do
    close(u)
    if (f /= nframes_expected) then
      write(0, '(a,i0,a,i0)') 'lj_rdf_traj: read ', f, ' frames, expected ', nframes_expected
      error stop 1
    end if
    open(newunit=uout, file=dir//'/gofr.dat', status='replace', action='write')
    write(uout, '(a)') '#        r          g(r)'
    do i = 1, nbins
      shell = 4.0_dp / 3.0_dp * acos(-1.0_dp) * ((i * dr)**3 - ((i - 1) * dr)**3)
      ideal = shell * rho * natoms * f
      write(uout, '(f12.5,f14.6)') (i - 0.5_dp) * dr, hist(i) / ideal
    end do
    close(uout)
  end subroutine rdf_from_traj

end module lj_md

program lj_rdf_traj
  use lj_md
  implicit none
  character(len=512) :: dir
  integer :: nframes
  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: lj_rdf_traj DIR'
    error stop 2
  end if
  call get_command_argument(1, dir)
  call execute_command_line('mkdir -p "'//trim(dir)//'"')
  call init_lattice()
  call run_md(trim(dir), nframes)
  call save_restart(trim(dir))
  if (.not. check_restart(trim(dir))) then
    write(0, '(a)') 'lj_rdf_traj: restart file mismatch'
    error stop 1
  end if
  call rdf_from_traj(trim(dir), nframes)
  print '(a,i0,a)', 'wrote ', nframes, ' frames and g(r)'
end program lj_rdf_traj
