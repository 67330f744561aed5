! vlasov_landau_stream.f90
!
! 1D-1V Vlasov-Poisson solver for linear/non-linear Landau damping using
! Strang-split semi-Lagrangian advection with periodic cubic-Lagrange
! interpolation in x and v.  Output layout:
!   run.cfg             - a small formatted key/value run configuration,
!                         generated and read back (list-directed input),
!   diagnostics.txt     - formatted per-step energies/invariants, flushed
!                         every few lines like a live monitor,
!   phase_space.strm    - ACCESS='STREAM' file: header, appended snapshots
!                         of f(x,v), and a trailing offset table whose
!                         position is patched into the header with POS=,
!   restart_*.bin       - unformatted sequential restart dumps.
! Post-processing re-opens the stream file, reads the offset table, pulls
! the v=0 column out of every snapshot with positioned reads, and fits the
! Landau damping rate from the first Fourier mode of the charge density.
!
! usage: vlasov_landau_stream DIR

module vp_solver
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp

  type :: run_config
     integer  :: nx = 128, nv = 384, nsteps = 900, snap_every = 9, restart_every = 300
     real(dp) :: kmode = 0.5_dp, alpha = 0.01_dp, vmax = 6.0_dp, dt = 0.1_dp
  end type run_config

contains

  subroutine init_distribution(cfg, x, v, f)
    type(run_config), intent(in) :: cfg
    real(dp), intent(out) :: x(:), v(:), f(:,:)
    integer :: i, j
    real(dp) :: lx
    lx = 2.0_dp * pi / cfg%kmode
    do i = 1, cfg%nx
       x(i) = lx * real(i - 1, dp) / real(cfg%nx, dp)
    end do
    do j = 1, cfg%nv
       v(j) = -cfg%vmax + 2.0_dp * cfg%vmax * real(j - 1, dp) / real(cfg%nv - 1, dp)
    end do
    do j = 1, cfg%nv
       do i = 1, cfg%nx
          f(i, j) = (1.0_dp + cfg%alpha * cos(cfg%kmode * x(i))) * exp(-0.5_dp * v(j)**2) / sqrt(2.0_dp * pi)
       end do
    end do
  end subroutine init_distribution

  ! Cubic Lagrange interpolation of a 1-D array at fractional shift s (in cells).
  subroutine shift_periodic(a, s, out)
    real(dp), intent(in) :: a(:), s
    real(dp), intent(out) :: out(:)
    integer :: n, i, i0, im, ip, ipp, ishift
    real(dp) :: t, w0, wm, wp, wpp
    n = size(a)
    ishift = floor(s)
    t = s - real(ishift, dp)
    wm = -t * (t - 1.0_dp) * (t - 2.0_dp) / 6.0_dp
    w0 = (t + 1.0_dp) * (t - 1.0_dp) * (t - 2.0_dp) / 2.0_dp
    wp = -(t + 1.0_dp) * t * (t - 2.0_dp) / 2.0_dp
    wpp = (t + 1.0_dp) * t * (t - 1.0_dp) / 6.0_dp
    do i = 1, n
       i0 = modulo(i - 1 + ishift, n) + 1
       im = modulo(i0 - 2, n) + 1
       ip = modulo(i0, n) + 1
       ipp = modulo(i0 + 1, n) + 1
       out(i) = wm * a(im) + w0 * a(i0) + wp * a(ip) + wpp * a(ipp)
    end do
  end subroutine shift_periodic

  ! Same, but zero inflow outside the velocity grid.
  subroutine shift_bounded(a, s, out)
    real(dp), intent(in) :: a(:), s
    real(dp), intent(out) :: out(:)
    integer :: n, i, i0, k
    real(dp) :: t, w(4), acc
    n = size(a)
    i0 = floor(s)
    t = s - real(i0, dp)
    w(1) = -t * (t - 1.0_dp) * (t - 2.0_dp) / 6.0_dp
    w(2) = (t + 1.0_dp) * (t - 1.0_dp) * (t - 2.0_dp) / 2.0_dp
    w(3) = -(t + 1.0_dp) * t * (t - 2.0_dp) / 2.0_dp
    w(4) = (t + 1.0_dp) * t * (t - 1.0_dp) / 6.0_dp
    do i = 1, n
       acc = 0.0_dp
       do k = 1, 4
          if (i + i0 + k - 2 >= 1 .and. i + i0 + k - 2 <= n) acc = acc + w(k) * a(i + i0 + k - 2)
       end do
       out(i) = acc
    end do
  end subroutine shift_bounded

  subroutine advect_x(cfg, v, f, dt)
    type(run_config), intent(in) :: cfg
    real(dp), intent(in) :: v(:), dt
    real(dp), intent(inout) :: f(:,:)
    real(dp) :: tmp(cfg%nx), dx
    integer :: j
    dx = 2.0_dp * pi / cfg%kmode / real(cfg%nx, dp)
    do j = 1, cfg%nv
       call shift_periodic(f(:, j), -v(j) * dt / dx, tmp)
       f(:, j) = tmp
    end do
  end subroutine advect_x

  subroutine advect_v(cfg, e, f, dt)
    type(run_config), intent(in) :: cfg
    real(dp), intent(in) :: e(:), dt
    real(dp), intent(inout) :: f(:,:)
    real(dp) :: row(cfg%nv), tmp(cfg%nv), dv
    integer :: i
    dv = 2.0_dp * cfg%vmax / real(cfg%nv - 1, dp)
    do i = 1, cfg%nx
       row = f(i, :)
       call shift_bounded(row, e(i) * dt / dv, tmp)   ! electrons: dv/dt = -E, back-trace +E dt
       f(i, :) = tmp
    end do
  end subroutine advect_v

  ! rho = 1 - int f dv ; dE/dx = rho with zero-mean E (trapezoid integration).
  subroutine solve_poisson(cfg, f, rho, e)
    type(run_config), intent(in) :: cfg
    real(dp), intent(in) :: f(:,:)
    real(dp), intent(out) :: rho(:), e(:)
    real(dp) :: dv, dx, mean
    integer :: i
    dv = 2.0_dp * cfg%vmax / real(cfg%nv - 1, dp)
    dx = 2.0_dp * pi / cfg%kmode / real(cfg%nx, dp)
    do i = 1, cfg%nx
       rho(i) = 1.0_dp - sum(f(i, :)) * dv
    end do
    rho = rho - sum(rho) / real(cfg%nx, dp)
    e(1) = 0.0_dp
    do i = 2, cfg%nx
       e(i) = e(i - 1) + 0.5_dp * dx * (rho(i - 1) + rho(i))
    end do
    mean = sum(e) / real(cfg%nx, dp)
    e = e - mean
  end subroutine solve_poisson

  subroutine invariants(cfg, v, f, e, ee, ek, l2, ent)
    type(run_config), intent(in) :: cfg
    real(dp), intent(in) :: v(:), f(:,:), e(:)
    real(dp), intent(out) :: ee, ek, l2, ent
    real(dp) :: dx, dv
    integer :: j
    dx = 2.0_dp * pi / cfg%kmode / real(cfg%nx, dp)
    dv = 2.0_dp * cfg%vmax / real(cfg%nv - 1, dp)
    ee = 0.5_dp * sum(e**2) * dx
    ek = 0.0_dp
    do j = 1, cfg%nv
       ek = ek + 0.5_dp * v(j)**2 * sum(f(:, j))
    end do
    ek = ek * dx * dv
    l2 = sum(f**2) * dx * dv
    ent = -sum(f * log(max(f, 1.0e-300_dp))) * dx * dv
  end subroutine invariants

end module vp_solver

module vp_io
  use vp_solver
  implicit none
  integer, parameter :: hdr_nsnap_pos = 13, hdr_table_pos = 17   ! byte positions in header
contains

  subroutine write_config(path)
    character(len=*), intent(in) :: path
    integer :: u
    type(run_config) :: d
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '# nx nv nsteps snap_every restart_every'
    write(u, '(5i8)') d%nx, d%nv, d%nsteps, d%snap_every, d%restart_every
    write(u, '(a)') '# kmode alpha vmax dt'
    write(u, '(4f12.6)') d%kmode, d%alpha, d%vmax, d%dt
    close(u)
  end subroutine write_config

  subroutine read_config(path, cfg)
    character(len=*), intent(in) :: path
    type(run_config), intent(out) :: cfg
    integer :: u
    character(len=80) :: comment
    open(newunit=u, file=path, status='old', action='read')
    read(u, '(a)') comment
    read(u, *) cfg%nx, cfg%nv, cfg%nsteps, cfg%snap_every, cfg%restart_every
    read(u, '(a)') comment
    read(u, *) cfg%kmode, cfg%alpha, cfg%vmax, cfg%dt
    close(u)
  end subroutine read_config

  subroutine append_snapshot(u, t, f, offsets, nsnap)
    integer, intent(in) :: u
    real(dp), intent(in) :: t, f(:,:)
    integer(8), intent(inout) :: offsets(:)
    integer, intent(inout) :: nsnap
    integer(8) :: p
    inquire(unit=u, size=p)
    nsnap = nsnap + 1
    offsets(nsnap) = p + 1
    write(u, pos=p + 1) t, f
  end subroutine append_snapshot

  subroutine finalize_stream(u, offsets, nsnap)
    integer, intent(in) :: u, nsnap
    integer(8), intent(in) :: offsets(:)
    integer(8) :: p
    inquire(unit=u, size=p)
    write(u, pos=p + 1) offsets(1:nsnap)
    write(u, pos=hdr_nsnap_pos) int(nsnap, 4)
    write(u, pos=hdr_table_pos) p + 1
    close(u)
  end subroutine finalize_stream

  subroutine write_restart(path, step, t, f)
    character(len=*), intent(in) :: path
    integer, intent(in) :: step
    real(dp), intent(in) :: t, f(:,:)
    integer :: u
    open(newunit=u, file=path, form='unformatted', access='sequential', status='replace')
    write(u) step, t, size(f, 1), size(f, 2)
    write(u) f
    close(u)
  end subroutine write_restart

  ! Positioned reads: the v=0 column and rho's first Fourier mode per snapshot.
  subroutine analyse_stream(path, cfg, out_slices, out_fit)
    character(len=*), intent(in) :: path, out_slices, out_fit
    type(run_config), intent(in) :: cfg
    character(len=4) :: magic
    integer(4) :: nx, nv, nsnap
    integer(8) :: table_pos, p
    integer(8), allocatable :: offs(:)
    real(dp), allocatable :: col(:), f(:,:), amp(:), tt(:)
    real(dp) :: dv, re, im, rho, sx, sy, sxx, sxy, gamma
    integer :: u, v, w, k, i, jmid, npk
    open(newunit=u, file=path, access='stream', form='unformatted', status='old', action='read')
    read(u, pos=1) magic, nx, nv, nsnap, table_pos
    allocate(offs(nsnap), col(nx), f(nx, nv), amp(nsnap), tt(nsnap))
    read(u, pos=table_pos) offs
    jmid = nv / 2 + 1
    dv = 2.0_dp * cfg%vmax / real(nv - 1, dp)
    open(newunit=v, file=out_slices, status='replace', action='write')
    write(v, '(a)') '# t  f(x_i, v~0) for every 8th x'
    do k = 1, nsnap
       read(u, pos=offs(k)) tt(k)
       p = offs(k) + 8_8 + int(jmid - 1, 8) * int(nx, 8) * 8_8
       read(u, pos=p) col
       write(v, '(f8.3,*(es13.5))') tt(k), (col(i), i = 1, nx, 8)
       ! full snapshot for the charge-density mode
       read(u, pos=offs(k) + 8_8) f
       re = 0.0_dp; im = 0.0_dp
       do i = 1, nx
          rho = 1.0_dp - sum(f(i, :)) * dv
          re = re + rho * cos(2.0_dp * pi * real(i - 1, dp) / real(nx, dp))
          im = im - rho * sin(2.0_dp * pi * real(i - 1, dp) / real(nx, dp))
       end do
       amp(k) = 2.0_dp * sqrt(re**2 + im**2) / real(nx, dp)
    end do
    close(v)
    close(u)
    ! least-squares fit of log(local maxima of |rho_1|) vs t -> damping rate
    sx = 0; sy = 0; sxx = 0; sxy = 0; npk = 0
    open(newunit=w, file=out_fit, status='replace', action='write')
    write(w, '(a)') '# local maxima of |rho_k| used in the fit: t, amplitude'
    do k = 2, nsnap - 1
       if (amp(k) > amp(k - 1) .and. amp(k) >= amp(k + 1) .and. tt(k) < 30.0_dp) then
          write(w, '(f10.3,es15.6)') tt(k), amp(k)
          sx = sx + tt(k); sy = sy + log(amp(k)); sxx = sxx + tt(k)**2; sxy = sxy + tt(k) * log(amp(k))
          npk = npk + 1
       end if
    end do
    if (npk >= 2) then
       gamma = (npk * sxy - sx * sy) / (npk * sxx - sx * sx)
    else
       gamma = 0.0_dp
    end if
    write(w, '(a,f10.5,a)') '# fitted damping rate gamma = ', gamma, '  (linear theory for k=0.5: -0.1533)'
    close(w)
    write(*, '(a,i4,a,f9.5)') 'snapshots: ', nsnap, '  fitted gamma: ', gamma
  end subroutine analyse_stream

end module vp_io

program vlasov_landau_stream
  use vp_solver
  use vp_io
  use iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  interface
     function c_mkdir(path, mode) bind(c, name='mkdir') result(rc)
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: path(*)
       integer(c_int), value :: mode
       integer(c_int) :: rc
     end function c_mkdir
  end interface
  character(len=400) :: dir
  integer(c_int) :: rc
  character(len=512) :: path
  type(run_config) :: cfg
  real(dp), allocatable :: x(:), v(:), f(:,:), rho(:), e(:)
  integer(8), allocatable :: offsets(:)
  integer :: step, usnap, udiag, nsnap
  real(dp) :: t, ee, ek, l2, ent

  if (command_argument_count() /= 1) then
     write(*,*) 'usage: vlasov_landau_stream DIR'
     stop 2
  end if
  call get_command_argument(1, dir)
  rc = c_mkdir(trim(dir) // c_null_char, int(o'755', c_int))   ! EEXIST is fine
  call write_config(trim(dir) // '/run.cfg')
  call read_config(trim(dir) // '/run.cfg', cfg)

  allocate(x(cfg%nx), v(cfg%nv), f(cfg%nx, cfg%nv), rho(cfg%nx), e(cfg%nx))
  allocate(offsets(cfg%nsteps / cfg%snap_every + 1))
  call init_distribution(cfg, x, v, f)
  call solve_poisson(cfg, f, rho, e)

  ! header: 'VLPS' nx nv nsnap(int32) table_pos(int64); the last two are patched at the end
  open(newunit=usnap, file=trim(dir) // '/phase_space.strm', access='stream', form='unformatted', &
       status='replace', action='readwrite')
  write(usnap, pos=1) 'VLPS', int(cfg%nx, 4), int(cfg%nv, 4), int(0, 4), int(0, 8)
  nsnap = 0
  t = 0.0_dp
  call append_snapshot(usnap, t, f, offsets, nsnap)
  open(newunit=udiag, file=trim(dir) // '/diagnostics.txt', status='replace', action='write')
  write(udiag, '(a)') '#   step       t      E_field        E_kin           L2        entropy'

  do step = 1, cfg%nsteps
     call advect_x(cfg, v, f, 0.5_dp * cfg%dt)
     call solve_poisson(cfg, f, rho, e)
     call advect_v(cfg, e, f, cfg%dt)
     call advect_x(cfg, v, f, 0.5_dp * cfg%dt)
     t = t + cfg%dt
     call solve_poisson(cfg, f, rho, e)
     call invariants(cfg, v, f, e, ee, ek, l2, ent)
     write(udiag, '(i8,f9.3,4es15.7)') step, t, ee, ek, l2, ent
     if (mod(step, 10) == 0) flush(udiag)
     if (mod(step, cfg%snap_every) == 0) call append_snapshot(usnap, t, f, offsets, nsnap)
     if (mod(step, cfg%restart_every) == 0) then
        write(path, '(a,"/restart_",i6.6,".bin")') trim(dir), step
        call write_restart(trim(path), step, t, f)
     end if
  end do
  close(udiag)
  call finalize_stream(usnap, offsets, nsnap)
  call analyse_stream(trim(dir) // '/phase_space.strm', cfg, trim(dir) // '/v0_slices.txt', &
       trim(dir) // '/damping_fit.txt')
end program vlasov_landau_stream
