! brusselator_rd_fmt: 1-D Brusselator reaction-diffusion system integrated
! with classical RK4 (method of lines).  Profiles are written as formatted
! text files at fixed intervals, probe time series are appended to a
! formatted log, and a DFT power spectrum of the activator is tabulated.
module brusselator_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 1200
  real(dp), parameter :: length = 240.0_dp
  real(dp), parameter :: coef_a = 1.5_dp, coef_b = 3.2_dp
  real(dp), parameter :: diff_u = 1.0_dp, diff_v = 6.0_dp
  real(dp), parameter :: pi = 3.14159265358979323846_dp

  type rd_state
     real(dp) :: u(nx), v(nx)
     real(dp) :: t = 0.0_dp
     real(dp) :: dx = length / nx
     integer :: nstep = 0
  end type rd_state

contains

  subroutine init_state(s)
    type(rd_state), intent(inout) :: s
    integer :: i
    real(dp) :: x
    do i = 1, nx
       x = (i - 0.5_dp) * s%dx
       s%u(i) = coef_a + 0.05_dp * sin(2.0_dp * pi * 7.0_dp * x / length) &
            + 0.02_dp * cos(2.0_dp * pi * 23.0_dp * x / length)
       s%v(i) = coef_b / coef_a + 0.03_dp * sin(2.0_dp * pi * 11.0_dp * x / length)
    end do
  end subroutine init_state

  subroutine rhs(dx, u, v, fu, fv)
    real(dp), intent(in) :: dx, u(nx), v(nx)
    real(dp), intent(out) :: fu(nx), fv(nx)
    integer :: i, im, ip
    real(dp) :: r2, lapu, lapv, u2v
    r2 = 1.0_dp / (dx * dx)
    do i = 1, nx
       im = i - 1
       ip = i + 1
       if (im < 1) im = nx
       if (ip > nx) ip = 1
       lapu = (u(im) - 2.0_dp * u(i) + u(ip)) * r2
       lapv = (v(im) - 2.0_dp * v(i) + v(ip)) * r2
       u2v = u(i) * u(i) * v(i)
       fu(i) = diff_u * lapu + coef_a - (coef_b + 1.0_dp) * u(i) + u2v
       fv(i) = diff_v * lapv + coef_b * u(i) - u2v
    end do
  end subroutine rhs

  subroutine rk4_step(s, dt)
    type(rd_state), intent(inout) :: s
    real(dp), intent(in) :: dt
    real(dp), dimension(nx) :: k1u, k1v, k2u, k2v, k3u, k3v, k4u, k4v
    call rhs(s%dx, s%u, s%v, k1u, k1v)
    call rhs(s%dx, s%u + 0.5_dp * dt * k1u, s%v + 0.5_dp * dt * k1v, k2u, k2v)
    call rhs(s%dx, s%u + 0.5_dp * dt * k2u, s%v + 0.5_dp * dt * k2v, k3u, k3v)
    call rhs(s%dx, s%u + dt * k3u, s%v + dt * k3v, k4u, k4v)
    s%u = s%u + dt / 6.0_dp * (k1u + 2.0_dp * k2u + 2.0_dp * k3u + k4u)
    s%v = s%v + dt / 6.0_dp * (k1v + 2.0_dp * k2v + 2.0_dp * k3v + k4v)
    s%t = s%t + dt
    s%nstep = s%nstep + 1
  end subroutine rk4_step

  subroutine write_profile(s, dir, iframe)
    type(rd_state), intent(in) :: s
    character(len=*), intent(in) :: dir
    integer, intent(in) :: iframe
    character(len=512) :: fname
    integer :: un, i
    write(fname, '(a,"/profile_",i4.4,".dat")') trim(dir), iframe
    open(newunit=un, file=trim(fname), status='replace', action='write', form='formatted')
    write(un, '(a,i8,a,es14.6)') '# step ', s%nstep, '  t = ', s%t
    write(un, '(a)') '#        x               u               v           u*v'
    do i = 1, nx
       write(un, '(f12.5,3es16.8)') (i - 0.5_dp) * s%dx, s%u(i), s%v(i), s%u(i) * s%v(i)
    end do
    close(un)
  end subroutine write_profile

  subroutine write_probes(un, s)
    integer, intent(in) :: un
    type(rd_state), intent(in) :: s
    integer, parameter :: nprobe = 8
    integer :: k, idx
    real(dp) :: vals(2 * nprobe)
    do k = 1, nprobe
       idx = 1 + (k - 1) * (nx / nprobe)
       vals(2 * k - 1) = s%u(idx)
       vals(2 * k) = s%v(idx)
    end do
    write(un, '(i8,es14.6,16es14.6)') s%nstep, s%t, vals
  end subroutine write_probes

  subroutine power_spectrum(u, pk, nk)
    real(dp), intent(in) :: u(nx)
    integer, intent(in) :: nk
    real(dp), intent(out) :: pk(0:nk)
    integer :: k, j
    real(dp) :: re, im, mean, w
    mean = sum(u) / nx
    do k = 0, nk
       re = 0.0_dp
       im = 0.0_dp
       w = 2.0_dp * pi * k / nx
       do j = 1, nx
          re = re + (u(j) - mean) * cos(w * (j - 1))
          im = im - (u(j) - mean) * sin(w * (j - 1))
       end do
       pk(k) = (re * re + im * im) / real(nx, dp)**2
    end do
  end subroutine power_spectrum

  subroutine write_spectrum(un, pk, nk, t)
    integer, intent(in) :: un, nk
    real(dp), intent(in) :: pk(0:nk), t
    integer :: k, kmax
    kmax = maxloc(pk(1:nk), dim=1)
    write(un, '(a,es14.6,a,i5,a,es14.6)') '# t = ', t, '  dominant k = ', kmax, &
         '  wavelength = ', length / max(kmax, 1)
    do k = 1, nk
       write(un, '(i5,f12.4,es18.9)') k, length / k, pk(k)
    end do
  end subroutine write_spectrum

end module brusselator_mod

program brusselator_rd_fmt
  use brusselator_mod
  implicit none
  integer, parameter :: nsteps = 48000, frame_every = 400, probe_every = 10
  integer, parameter :: nk = 200
  real(dp), parameter :: dt = 0.0025_dp
  type(rd_state) :: s
  character(len=512) :: dir
  integer :: nargs, step, iframe, uprobe, uspec
  real(dp) :: pk(0:nk)

  nargs = command_argument_count()
  if (nargs /= 1) then
     write(*, '(a)') 'usage: brusselator_rd_fmt scratch_dir'
     stop 2
  end if
  call get_command_argument(1, dir)

  call init_state(s)
  open(newunit=uprobe, file=trim(dir)//'/probes.txt', status='replace', action='write')
  open(newunit=uspec, file=trim(dir)//'/spectra.txt', status='replace', action='write')
  write(uprobe, '(a)') '#   step          t   (u,v) at 8 probes'
  iframe = 0
  call write_profile(s, trim(dir), iframe)
  do step = 1, nsteps
     call rk4_step(s, dt)
     if (mod(step, probe_every) == 0) call write_probes(uprobe, s)
     if (mod(step, frame_every) == 0) then
        iframe = iframe + 1
        call write_profile(s, trim(dir), iframe)
        call power_spectrum(s%u, pk, nk)
        call write_spectrum(uspec, pk, nk, s%t)
     end if
  end do
  close(uprobe)
  close(uspec)
  write(*, '(a,i0,a,i0,a,2es14.6)') 'steps ', nsteps, ' frames ', iframe, &
       ' u range ', minval(s%u), maxval(s%u)
end program brusselator_rd_fmt
