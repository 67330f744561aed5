! 1-D wave equation on a string with fixed ends, second-order leapfrog in
! time. Formatted snapshots of position, displacement and velocity are
! written every few steps; the discrete energy is monitored as an invariant.
module wave_solver
  implicit none
  integer, parameter :: dp = kind(1.0d0)

contains

  subroutine init_string(x, u, uold, nx, dx, dt, c)
    integer, intent(in) :: nx
    real(dp), intent(out) :: x(nx), u(nx), uold(nx)
    real(dp), intent(in) :: dx, dt, c
    integer :: i
    real(dp) :: xc, w, r2

    xc = 0.3_dp
    w = 0.04_dp
    do i = 1, nx
      x(i) = (i - 1) * dx
      uold(i) = exp(-((x(i) - xc) / w)**2)
    end do
    uold(1) = 0.0_dp
    uold(nx) = 0.0_dp
    ! first step from zero initial velocity (Taylor expansion)
    r2 = (c * dt / dx)**2
    u(1) = 0.0_dp
    u(nx) = 0.0_dp
    do i = 2, nx - 1
      u(i) = uold(i) + 0.5_dp * r2 * (uold(i+1) - 2.0_dp * uold(i) + uold(i-1))
    end do
  end subroutine init_string

  subroutine leapfrog_step(u, uold, unew, nx, r2)
    integer, intent(in) :: nx
    real(dp), intent(in) :: u(nx), uold(nx), r2
    real(dp), intent(out) :: unew(nx)
    integer :: i

    unew(1) = 0.0_dp
    unew(nx) = 0.0_dp
    do i = 2, nx - 1
      unew(i) = 2.0_dp * u(i) - uold(i) + r2 * (u(i+1) - 2.0_dp * u(i) + u(i-1))
    end do
  end subroutine leapfrog_step

  ! staggered discrete energy, exactly conserved by the leapfrog scheme
  function string_energy(u, uold, nx, dx, dt, c) result(e)
    integer, intent(in) :: nx
    real(dp), intent(in) :: u(nx), uold(nx), dx, dt, c
    real(dp) :: e, kin, pot
    integer :: i

    kin = 0.0_dp
    pot = 0.0_dp
    do i = 1, nx
      kin = kin + ((u(i) - uold(i)) / dt)**2
    end do
    do i = 1, nx - 1
      pot = pot + (u(i+1) - u(i)) * (uold(i+1) - uold(i))
    end do
    e = 0.5_dp * kin * dx + 0.5_dp * c * c * pot / dx
  end function string_energy

  subroutine write_snapshot(dir, istep, time, x, u, uold, nx, dt)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: istep, nx
    real(dp), intent(in) :: time, dt
    real(dp), intent(in) :: x(nx), u(nx), uold(nx)
    character(len=512) :: fname
    integer :: un, i

    write(fname, '(A,"/snap_",I7.7,".dat")') trim(dir), istep
    open(newunit=un, file=trim(fname), status='replace', action='write', form='formatted')
    write(un, '(A,I8,A,ES16.8)') '# step ', istep, ' time ', time
    do i = 1, nx
      write(un, '(I8,3ES16.8)') i, x(i), u(i), (u(i) - uold(i)) / dt
    end do
    close(un)
  end subroutine write_snapshot

  subroutine verify_snapshot(dir, istep, u, nx, maxerr)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: istep, nx
    real(dp), intent(in) :: u(nx)
    real(dp), intent(out) :: maxerr
    character(len=512) :: fname
    character(len=128) :: header
    integer :: un, i, idx, ios
    real(dp) :: xv, uv, vv

    write(fname, '(A,"/snap_",I7.7,".dat")') trim(dir), istep
    open(newunit=un, file=trim(fname), status='old', action='read', form='formatted')
    read(un, '(A)') header
    maxerr = 0.0_dp
    do i = 1, nx
      read(un, '(I8,3ES16.8)', iostat=ios) idx, xv, uv, vv
      if (ios /= 0 .or. idx /= i) then
        maxerr = huge(1.0_dp)
        exit
      end if
      maxerr = max(maxerr, abs(uv - u(i)))
    end do
    close(un)
  end subroutine verify_snapshot

end module wave_solver

program wave_snap
  use wave_solver
  implicit none
  integer, parameter :: nx = 3001
  integer, parameter :: nsteps = 48000
  integer, parameter :: snap_every = 1200
  real(dp), parameter :: c = 1.0_dp
  real(dp), parameter :: courant = 0.9_dp
  real(dp), allocatable :: x(:), u(:), uold(:), unew(:)
  real(dp) :: dx, dt, r2, e0, e, drift, maxerr
  character(len=400) :: dir
  integer :: n, last_snap

  if (command_argument_count() < 1) error stop 'usage: wave_snap DIR'
  call get_command_argument(1, dir)

  allocate(x(nx), u(nx), uold(nx), unew(nx))
  dx = 1.0_dp / (nx - 1)
  dt = courant * dx / c
  r2 = (c * dt / dx)**2

  call init_string(x, u, uold, nx, dx, dt, c)
  e0 = string_energy(u, uold, nx, dx, dt, c)
  drift = 0.0_dp
  last_snap = 0

  do n = 1, nsteps
    call leapfrog_step(u, uold, unew, nx, r2)
    uold = u
    u = unew
    if (mod(n, snap_every) == 0) then
      call write_snapshot(dir, n, n * dt, x, u, uold, nx, dt)
      last_snap = n
      e = string_energy(u, uold, nx, dx, dt, c)
      drift = max(drift, abs(e - e0) / e0)
    end if
  end do

  call verify_snapshot(dir, last_snap, u, nx, maxerr)
  print '(A,ES12.4,A,ES12.4)', 'energy drift ', drift, '  snapshot error ', maxerr
  if (drift > 1.0e-8_dp) error stop 'energy not conserved'
  if (maxerr > 1.0e-6_dp) error stop 'snapshot mismatch'
  deallocate(x, u, uold, unew)
end program wave_snap
