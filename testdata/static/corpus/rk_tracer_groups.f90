! Lagrangian particle tracker: RK4 advection of particle groups in a
! time-dependent double-gyre velocity field, trajectories written with
! formatted WRITE to one file per group, then re-read for dispersion stats.
module tracer_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: ngroup = 4, npart = 256
  integer, parameter :: nstep = 2000, out_every = 20
  integer, parameter :: nout = nstep / out_every + 1
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  real(dp), parameter :: amp = 0.1_dp, eps = 0.25_dp, omega = 2.0_dp*pi/10.0_dp
  real(dp), parameter :: dt = 0.01_dp
contains

  subroutine velocity(x, y, t, u, v)
    real(dp), intent(in) :: x, y, t
    real(dp), intent(out) :: u, v
    real(dp) :: a, b, f, dfdx
    a = eps*sin(omega*t)
    b = 1.0_dp - 2.0_dp*a
    f = a*x*x + b*x
    dfdx = 2.0_dp*a*x + b
    u = -pi*amp*sin(pi*f)*cos(pi*y)
    v =  pi*amp*cos(pi*f)*sin(pi*y)*dfdx
  end subroutine velocity

  subroutine rk4_step(x, y, t)
    real(dp), intent(inout) :: x(:), y(:)
    real(dp), intent(in) :: t
    integer :: i
    real(dp) :: k1u, k1v, k2u, k2v, k3u, k3v, k4u, k4v
    do i = 1, size(x)
      call velocity(x(i), y(i), t, k1u, k1v)
      call velocity(x(i)+0.5_dp*dt*k1u, y(i)+0.5_dp*dt*k1v, t+0.5_dp*dt, k2u, k2v)
      call velocity(x(i)+0.5_dp*dt*k2u, y(i)+0.5_dp*dt*k2v, t+0.5_dp*dt, k3u, k3v)
      call velocity(x(i)+dt*k3u, y(i)+dt*k3v, t+dt, k4u, k4v)
      x(i) = x(i) + dt*(k1u + 2.0_dp*k2u + 2.0_dp*k3u + k4u)/6.0_dp
      y(i) = y(i) + dt*(k1v + 2.0_dp*k2v + 2.0_dp*k3v + k4v)/6.0_dp
    end do
  end subroutine rk4_step

  subroutine seed_groups(px, py)
    real(dp), intent(out) :: px(npart, ngroup), py(npart, ngroup)
    integer :: g, i, side
    real(dp) :: cx, cy, h
    side = 16
    h = 0.02_dp / side
    do g = 1, ngroup
      cx = 0.25_dp + 0.5_dp*mod(g-1, 2)
      cy = 0.3_dp + 0.35_dp*((g-1)/2)
      do i = 1, npart
        px(i,g) = cx + h*(mod(i-1, side) - side/2)
        py(i,g) = cy + h*((i-1)/side - side/2)
      end do
    end do
  end subroutine seed_groups

  subroutine record_positions(units, px, py, k, t)
    integer, intent(in) :: units(ngroup), k
    real(dp), intent(in) :: px(npart, ngroup), py(npart, ngroup), t
    integer :: g, i
    do g = 1, ngroup
      write(units(g), '(A,I6,ES24.15)') '# frame', k, t
      do i = 1, npart
        write(units(g), '(I5,2ES24.15)') i, px(i,g), py(i,g)
      end do
    end do
  end subroutine record_positions

  subroutine group_dispersion(px, py, x0, y0, d2)
    real(dp), intent(in) :: px(npart), py(npart), x0(npart), y0(npart)
    real(dp), intent(out) :: d2
    real(dp) :: mx, my
    mx = sum(px - x0)/npart
    my = sum(py - y0)/npart
    d2 = sum((px - x0 - mx)**2 + (py - y0 - my)**2)/npart
  end subroutine group_dispersion

  subroutine run_tracker(dir, ref)
    character(len=*), intent(in) :: dir
    real(dp), intent(out) :: ref(nout, ngroup)
    real(dp) :: px(npart, ngroup), py(npart, ngroup)
    real(dp) :: x0(npart, ngroup), y0(npart, ngroup), t
    integer :: units(ngroup), g, n, k
    character(len=512) :: fname

    call seed_groups(px, py)
    x0 = px; y0 = py
    do g = 1, ngroup
      write(fname, '(A,A,I2.2,A)') trim(dir), '/traj_group', g, '.txt'
      open(newunit=units(g), file=trim(fname), status='replace', action='write', form='formatted')
      write(units(g), '(A,I3,A,I6)') '# group', g, ' particles', npart
    end do
    t = 0.0_dp
    k = 1
    call record_positions(units, px, py, k, t)
    do g = 1, ngroup
      call group_dispersion(px(:,g), py(:,g), x0(:,g), y0(:,g), ref(k,g))
    end do
    do n = 1, nstep
      do g = 1, ngroup
        call rk4_step(px(:,g), py(:,g), t)
      end do
      t = t + dt
      if (mod(n, out_every) == 0) then
        k = k + 1
        call record_positions(units, px, py, k, t)
        do g = 1, ngroup
          call group_dispersion(px(:,g), py(:,g), x0(:,g), y0(:,g), ref(k,g))
        end do
      end if
    end do
    do g = 1, ngroup
      close(units(g))
    end do
  end subroutine run_tracker

  subroutine analyse_files(dir, disp, tfinal)
    character(len=*), intent(in) :: dir
    real(dp), intent(out) :: disp(nout, ngroup), tfinal
    real(dp) :: qx(npart), qy(npart), x0(npart), y0(npart), t
    integer :: g, k, i, idx, u, fr, np, ios
    character(len=512) :: fname
    character(len=7) :: tag
    character(len=10) :: tag2

    do g = 1, ngroup
      write(fname, '(A,A,I2.2,A)') trim(dir), '/traj_group', g, '.txt'
      open(newunit=u, file=trim(fname), status='old', action='read', form='formatted')
      read(u, '(A7,I3,A10,I6)') tag, i, tag2, np
      if (np /= npart) error stop 'particle count mismatch in header'
      do k = 1, nout
        read(u, '(A7,I6,ES24.15)', iostat=ios) tag, fr, t
        if (ios /= 0 .or. fr /= k) error stop 'frame header mismatch'
        do i = 1, npart
          read(u, '(I5,2ES24.15)') idx, qx(i), qy(i)
          if (idx /= i) error stop 'particle index mismatch'
        end do
        if (k == 1) then
          x0 = qx; y0 = qy
        end if
        call group_dispersion(qx, qy, x0, y0, disp(k,g))
      end do
      tfinal = t
      close(u)
    end do
  end subroutine analyse_files

  subroutine write_summary(dir, disp)
    character(len=*), intent(in) :: dir
    real(dp), intent(in) :: disp(nout, ngroup)
    integer :: u, k
    open(newunit=u, file=trim(dir)//'/dispersion.txt', status='replace', action='write')
    write(u, '(A)') '# frame  d2(group1..4)'
    do k = 1, nout
      write(u, '(I6,4ES16.7)') k, disp(k,:)
    end do
    close(u)
  end subroutine write_summary
end module tracer_mod

program rk_tracer_groups
  use tracer_mod
  implicit none
  character(len=400) :: dir
  real(dp) :: ref(nout, ngroup), disp(nout, ngroup), tfinal, err
  integer :: g

  if (command_argument_count() < 1) error stop 'usage: rk_tracer_groups DIR'
  call get_command_argument(1, dir)
  call run_tracker(trim(dir), ref)
  call analyse_files(trim(dir), disp, tfinal)
  if (abs(tfinal - nstep*dt) > 1.0d-9) error stop 'final time mismatch'
  err = maxval(abs(disp - ref) / (abs(ref) + 1.0d-14))
  if (err > 1.0d-8) then
    print '(A,ES12.4)', 'dispersion mismatch, rel err ', err
    error stop 1
  end if
  call write_summary(trim(dir), disp)
  do g = 1, ngroup
    print '(A,I2,A,ES14.6)', 'group', g, ' final dispersion', disp(nout, g)
  end do
end program rk_tracer_groups
