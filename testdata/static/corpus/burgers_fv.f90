! 1-D viscous Burgers equation, finite-volume (Rusanov flux, MUSCL minmod
! reconstruction, SSP-RK2), periodic domain.  Every output step the whole
! cell-average array is written as one unformatted sequential record and a
! one-line summary goes to a text log.  At the end the record file is walked
! with REWIND / BACKSPACE to check the last records against kept copies.
module burgers_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: ncell = 16384
  integer, parameter :: nsteps = 1600
  integer, parameter :: out_every = 20
  real(dp), parameter :: nu = 5.0e-5_dp
  real(dp), parameter :: pi = 3.14159265358979323846_dp
contains

  subroutine init_state(u, dx)
    real(dp), intent(out) :: u(:)
    real(dp), intent(in) :: dx
    integer :: i
    real(dp) :: x
    do i = 1, size(u)
      x = (real(i, dp) - 0.5_dp) * dx
      u(i) = 0.5_dp + sin(2.0_dp * pi * x) + 0.25_dp * sin(6.0_dp * pi * x + 0.3_dp)
    end do
  end subroutine init_state

  pure real(dp) function minmod(a, b)
    real(dp), intent(in) :: a, b
    if (a * b <= 0.0_dp) then
      minmod = 0.0_dp
    else if (abs(a) < abs(b)) then
      minmod = a
    else
      minmod = b
    end if
  end function minmod

  subroutine compute_rhs(u, rhs, dx)
    real(dp), intent(in) :: u(:)
    real(dp), intent(out) :: rhs(:)
    real(dp), intent(in) :: dx
    integer :: n, i, im, ip, ipp
    real(dp) :: ul, ur, sl, sr, a, fl, fr, flux(size(u))
    n = size(u)
    do i = 1, n
      im = i - 1; if (im < 1) im = n
      ip = i + 1; if (ip > n) ip = 1
      ipp = ip + 1; if (ipp > n) ipp = 1
      sl = minmod(u(i) - u(im), u(ip) - u(i))
      sr = minmod(u(ip) - u(i), u(ipp) - u(ip))
      ul = u(i) + 0.5_dp * sl
      ur = u(ip) - 0.5_dp * sr
      fl = 0.5_dp * ul * ul
      fr = 0.5_dp * ur * ur
      a = max(abs(ul), abs(ur))
      ! face i+1/2: convective Rusanov flux minus viscous flux
      flux(i) = 0.5_dp * (fl + fr) - 0.5_dp * a * (ur - ul) - nu * (u(ip) - u(i)) / dx
    end do
    do i = 1, n
      im = i - 1; if (im < 1) im = n
      rhs(i) = -(flux(i) - flux(im)) / dx
    end do
  end subroutine compute_rhs

  subroutine advance_rk2(u, dt, dx)
    real(dp), intent(inout) :: u(:)
    real(dp), intent(in) :: dt, dx
    real(dp) :: k(size(u)), u1(size(u))
    call compute_rhs(u, k, dx)
    u1 = u + dt * k
    call compute_rhs(u1, k, dx)
    u = 0.5_dp * (u + u1 + dt * k)
  end subroutine advance_rk2

  subroutine write_output(ur, ul, step, t, u, dx)
    integer, intent(in) :: ur, ul, step
    real(dp), intent(in) :: t, dx
    real(dp), intent(in) :: u(:)
    real(dp) :: mass, energy, umax
    write(ur) step, t, u
    mass = sum(u) * dx
    energy = 0.5_dp * sum(u * u) * dx
    umax = maxval(abs(u))
    write(ul, '(a,i6,a,es14.6,a,es22.14,a,es14.6,a,es12.4)') 'step', step, ' t=', t, &
         ' mass=', mass, ' energy=', energy, ' umax=', umax
  end subroutine write_output

  subroutine verify_records(path, nrec, last, prev, last_step)
    character(len=*), intent(in) :: path
    integer, intent(in) :: nrec, last_step
    real(dp), intent(in) :: last(:), prev(:)
    integer :: u, ios, count, step, step2
    real(dp) :: t
    real(dp), allocatable :: buf(:)
    allocate(buf(size(last)))
    open(newunit=u, file=path, form='unformatted', access='sequential', status='old', action='read')
    ! count the records by skipping through the file
    count = 0
    do
      read(u, iostat=ios) step
      if (ios /= 0) exit
      count = count + 1
    end do
    if (count /= nrec) then
      print *, 'record count', count, ' expected', nrec
      error stop 1
    end if
    ! the end-of-file condition leaves us after the endfile record: one
    ! BACKSPACE to get before it, two more for the last two records
    backspace(u)
    backspace(u)
    backspace(u)
    read(u) step, t, buf
    if (step /= last_step - out_every .or. any(buf /= prev)) then
      print *, 'second to last record mismatch at step', step
      error stop 1
    end if
    read(u) step, t, buf
    if (step /= last_step .or. any(buf /= last)) then
      print *, 'last record mismatch at step', step
      error stop 1
    end if
    ! go back one more time and read only the header of the last record
    backspace(u)
    read(u) step2
    if (step2 /= last_step) error stop 1
    ! first record must be step 0 with the initial mass
    rewind(u)
    read(u) step, t, buf
    if (step /= 0 .or. t /= 0.0_dp) then
      print *, 'first record header wrong', step, t
      error stop 1
    end if
    if (abs(sum(buf) - sum(last)) > 1.0e-8_dp * size(buf)) then
      print *, 'mass not conserved between first and last record'
      error stop 1
    end if
    close(u)
    deallocate(buf)
  end subroutine verify_records

end module burgers_mod

program burgers_fv
  use burgers_mod
  implicit none
  character(len=512) :: dir
  character(len=600) :: recpath, logpath
  real(dp), allocatable :: u(:), keep_last(:), keep_prev(:)
  real(dp) :: dx, dt, t
  integer :: step, ur, ul, nrec, last_step

  if (command_argument_count() < 1) then
    print *, 'usage: burgers_fv DIR'
    error stop 2
  end if
  call get_command_argument(1, dir)
  recpath = trim(dir) // '/burgers_states.dat'
  logpath = trim(dir) // '/burgers.log'

  allocate(u(ncell), keep_last(ncell), keep_prev(ncell))
  dx = 1.0_dp / ncell
  call init_state(u, dx)
  dt = 0.2_dp * dx
  t = 0.0_dp

  open(newunit=ur, file=recpath, form='unformatted', access='sequential', status='replace', action='write')
  open(newunit=ul, file=logpath, form='formatted', status='replace', action='write')
  nrec = 0
  keep_prev = u
  keep_last = u
  call write_output(ur, ul, 0, t, u, dx)
  nrec = nrec + 1
  last_step = 0
  do step = 1, nsteps
    call advance_rk2(u, dt, dx)
    t = t + dt
    if (mod(step, out_every) == 0) then
      call write_output(ur, ul, step, t, u, dx)
      nrec = nrec + 1
      keep_prev = keep_last
      keep_last = u
      last_step = step
    end if
  end do
  close(ur)
  close(ul)

  call verify_records(recpath, nrec, keep_last, keep_prev, last_step)
  print '(a,i5,a,es14.6)', 'burgers_fv ok: records=', nrec, ' final max|u|=', maxval(abs(u))
end program burgers_fv
