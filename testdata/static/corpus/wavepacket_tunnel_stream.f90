! Quantum tunnelling of a Gaussian wave packet through a double barrier
! (resonant tunnelling diode profile), 1-D time-dependent Schroedinger
! equation with Crank-Nicolson time stepping (complex tridiagonal Thomas
! solve each step).  Wavefunction frames go to an unformatted STREAM file
! with a header that is rewritten in place (pos=) at the end; observables
! go to a formatted log; afterwards frames are read back by byte position
! to compute the autocorrelation function and transmitted-probability curve.
module tdse_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 6144, n_steps = 7200, frame_every = 40
  real(dp), parameter :: x_min = -200.0_dp, x_max = 200.0_dp, dt = 0.02_dp
  integer, parameter :: header_bytes = 64

  type :: frame_header
     integer :: nx, nframes, frame_every
     real(dp) :: dt, x_min, x_max
  end type frame_header

contains

  subroutine setup_grid(x, v, psi, dx)
    real(dp), intent(out) :: x(:), v(:), dx
    complex(dp), intent(out) :: psi(:)
    integer :: i
    real(dp) :: k0, sig, x0, nrm
    dx = (x_max - x_min) / (nx - 1)
    k0 = 1.1_dp; sig = 12.0_dp; x0 = -80.0_dp
    do i = 1, nx
       x(i) = x_min + (i - 1) * dx
       v(i) = 0
       if (abs(x(i) - 0.0_dp) < 1.5_dp .or. abs(x(i) - 9.0_dp) < 1.5_dp) v(i) = 0.8_dp
       ! absorbing imaginary potential is added in the propagator, not here
       psi(i) = exp(-(x(i) - x0)**2 / (4 * sig**2)) * exp(cmplx(0.0_dp, k0 * x(i), dp))
    end do
    nrm = sqrt(sum(abs(psi)**2) * dx)
    psi = psi / nrm
  end subroutine setup_grid

  ! Crank-Nicolson: (1 + i dt H/2) psi_new = (1 - i dt H/2) psi_old
  subroutine build_cn(v, dx, a, b, c)
    real(dp), intent(in) :: v(:), dx
    complex(dp), intent(out) :: a(:), b(:), c(:)
    complex(dp) :: r
    real(dp) :: absorb
    integer :: i
    r = cmplx(0.0_dp, dt / (4 * dx**2), dp)
    do i = 1, nx
       absorb = 0
       if (abs(x_min + (i - 1) * dx) > 170.0_dp) absorb = 0.02_dp * ((abs(x_min + (i - 1) * dx) - 170.0_dp) / 30.0_dp)**2
       a(i) = -r
       c(i) = -r
       b(i) = 1 + 2 * r + cmplx(absorb * dt / 2, v(i) * dt / 2, dp)
    end do
  end subroutine build_cn

  subroutine thomas_solve(a, b, c, d, y, cp, dp_)
    complex(dp), intent(in) :: a(:), b(:), c(:), d(:)
    complex(dp), intent(out) :: y(:)
    complex(dp), intent(inout) :: cp(:), dp_(:)
    complex(dp) :: m
    integer :: i, n
    n = size(d)
    cp(1) = c(1) / b(1); dp_(1) = d(1) / b(1)
    do i = 2, n
       m = b(i) - a(i) * cp(i - 1)
       cp(i) = c(i) / m
       dp_(i) = (d(i) - a(i) * dp_(i - 1)) / m
    end do
    y(n) = dp_(n)
    do i = n - 1, 1, -1
       y(i) = dp_(i) - cp(i) * y(i + 1)
    end do
  end subroutine thomas_solve

  subroutine cn_step(psi, a, b, c, rhs, cp, dp_)
    complex(dp), intent(inout) :: psi(:)
    complex(dp), intent(in) :: a(:), b(:), c(:)
    complex(dp), intent(inout) :: rhs(:), cp(:), dp_(:)
    integer :: i
    ! explicit half step (1 - i dt H/2) has diagonal 2 - b and off-diagonals -a, -c
    rhs(1) = (2 - b(1)) * psi(1) - c(1) * psi(2)
    do i = 2, nx - 1
       rhs(i) = -a(i) * psi(i - 1) + (2 - b(i)) * psi(i) - c(i) * psi(i + 1)
    end do
    rhs(nx) = -a(nx) * psi(nx - 1) + (2 - b(nx)) * psi(nx)
    call thomas_solve(a, b, c, rhs, psi, cp, dp_)
  end subroutine cn_step

  subroutine observables(x, psi, dx, norm, xmean, trans)
    real(dp), intent(in) :: x(:), dx
    complex(dp), intent(in) :: psi(:)
    real(dp), intent(out) :: norm, xmean, trans
    real(dp) :: rho(size(psi))
    rho = abs(psi)**2
    norm = sum(rho) * dx
    xmean = sum(x * rho) * dx / max(norm, 1e-300_dp)
    trans = sum(rho, mask=x > 12.0_dp) * dx
  end subroutine observables

  subroutine write_frame(u, iframe, t, psi)
    integer, intent(in) :: u, iframe
    real(dp), intent(in) :: t
    complex(dp), intent(in) :: psi(:)
    integer(8) :: pos
    pos = header_bytes + int(iframe - 1, 8) * (8_8 + 16_8 * nx) + 1
    write(u, pos=pos) t, psi
  end subroutine write_frame

  subroutine analyze_frames(path, dir, psi0)
    character(len=*), intent(in) :: path, dir
    complex(dp), intent(in) :: psi0(:)
    type(frame_header) :: h
    complex(dp), allocatable :: psi(:)
    real(dp) :: t, dx, trans, trans_last
    complex(dp) :: corr
    integer :: u, uo, f, half
    integer(8) :: pos
    open(newunit=u, file=path, access='stream', form='unformatted', status='old', action='read')
    read(u, pos=1) h
    allocate(psi(h%nx))
    dx = (h%x_max - h%x_min) / (h%nx - 1)
    half = int((12.0_dp - h%x_min) / dx) + 2
    open(newunit=uo, file=trim(dir)//'/autocorrelation.txt', status='replace', action='write')
    write(uo, '(a)') '#        t        Re C(t)        Im C(t)       |C(t)|^2   P_transmitted'
    ! read every other frame backwards: random access by byte position
    do f = h%nframes, 1, -2
       pos = header_bytes + int(f - 1, 8) * (8_8 + 16_8 * h%nx) + 1
       read(u, pos=pos) t, psi
       corr = sum(conjg(psi0) * psi) * dx
       trans = sum(abs(psi(half:))**2) * dx
       if (f == h%nframes) trans_last = trans
       write(uo, '(f10.3,4(1x,es14.6))') t, real(corr), aimag(corr), abs(corr)**2, trans
    end do
    close(uo)
    close(u)
    print '(a,i0,a,f8.4)', 'frames=', h%nframes, ' final_transmission=', trans_last
  end subroutine analyze_frames

end module tdse_mod

program wavepacket_tunnel_stream
  use tdse_mod
  implicit none
  character(len=256) :: dir
  real(dp), allocatable :: x(:), v(:)
  complex(dp), allocatable :: psi(:), psi0(:), a(:), b(:), c(:), rhs(:), cp(:), dq(:)
  real(dp) :: dx, norm, xmean, trans
  integer :: ustream, ulog, step, nframes
  type(frame_header) :: h
  character(len=header_bytes) :: pad
  if (command_argument_count() /= 1) stop 'usage: wavepacket_tunnel_stream DIR'
  call get_command_argument(1, dir)
  allocate(x(nx), v(nx), psi(nx), psi0(nx), a(nx), b(nx), c(nx), rhs(nx), cp(nx), dq(nx))
  call setup_grid(x, v, psi, dx)
  psi0 = psi
  call build_cn(v, dx, a, b, c)

  open(newunit=ustream, file=trim(dir)//'/psi_frames.bin', access='stream', form='unformatted', &
       status='replace', action='readwrite')
  pad = repeat(char(0), header_bytes)
  write(ustream, pos=1) pad                        ! placeholder header
  open(newunit=ulog, file=trim(dir)//'/observables.log', status='replace', action='write')
  write(ulog, '(a)') '# step        t        norm        <x>    P(x>12)'
  nframes = 0
  do step = 1, n_steps
     call cn_step(psi, a, b, c, rhs, cp, dq)
     if (mod(step, 10) == 0) then
        call observables(x, psi, dx, norm, xmean, trans)
        write(ulog, '(i6,f10.3,3(1x,f10.6))') step, step * dt, norm, xmean, trans
     end if
     if (mod(step, frame_every) == 0) then
        nframes = nframes + 1
        call write_frame(ustream, nframes, step * dt, psi)
     end if
  end do
  close(ulog)
  h = frame_header(nx, nframes, frame_every, dt, x_min, x_max)
  write(ustream, pos=1) h                          ! finalise header in place
  close(ustream)
  call analyze_frames(trim(dir)//'/psi_frames.bin', trim(dir), psi0)
end program wavepacket_tunnel_stream
