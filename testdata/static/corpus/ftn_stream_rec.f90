! Lorenz-96 ensemble integration with the ensemble state saved as fixed-size
! records in an unformatted stream file.  After the run, selected records are
! read back at computed byte positions (read(u, pos=...)) to build the time
! series of ensemble spread, and the last record is compared with memory.
module l96_model
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: forcing = 8.0_dp

contains

  subroutine l96_tendency(x, dxdt, nvar, nens)
    integer, intent(in) :: nvar, nens
    real(dp), intent(in) :: x(nvar, nens)
    real(dp), intent(out) :: dxdt(nvar, nens)
    integer :: i, m, im2, im1, ip1

    do m = 1, nens
      do i = 1, nvar
        im2 = modulo(i - 3, nvar) + 1
        im1 = modulo(i - 2, nvar) + 1
        ip1 = modulo(i, nvar) + 1
        dxdt(i, m) = (x(ip1, m) - x(im2, m)) * x(im1, m) - x(i, m) + forcing
      end do
    end do
  end subroutine l96_tendency

  subroutine rk4_step(x, k1, k2, k3, k4, xt, nvar, nens, dt)
    integer, intent(in) :: nvar, nens
    real(dp), intent(inout) :: x(nvar, nens)
    real(dp), intent(inout) :: k1(nvar, nens), k2(nvar, nens), k3(nvar, nens), k4(nvar, nens)
    real(dp), intent(inout) :: xt(nvar, nens)
    real(dp), intent(in) :: dt

    call l96_tendency(x, k1, nvar, nens)
    xt = x + 0.5_dp * dt * k1
    call l96_tendency(xt, k2, nvar, nens)
    xt = x + 0.5_dp * dt * k2
    call l96_tendency(xt, k3, nvar, nens)
    xt = x + dt * k3
    call l96_tendency(xt, k4, nvar, nens)
    x = x + dt / 6.0_dp * (k1 + 2.0_dp * k2 + 2.0_dp * k3 + k4)
  end subroutine rk4_step

  subroutine init_ensemble(x, nvar, nens)
    integer, intent(in) :: nvar, nens
    real(dp), intent(out) :: x(nvar, nens)
    integer :: i, m
    integer, allocatable :: seed(:)
    integer :: nseed
    real(dp) :: r

    call random_seed(size=nseed)
    allocate(seed(nseed))
    seed = 4242
    call random_seed(put=seed)
    do m = 1, nens
      do i = 1, nvar
        call random_number(r)
        x(i, m) = forcing + merge(0.01_dp, 0.0_dp, i == nvar / 2) + 1.0e-3_dp * (r - 0.5_dp)
      end do
    end do
    deallocate(seed)
  end subroutine init_ensemble

  function ensemble_spread(x, nvar, nens) result(s)
    integer, intent(in) :: nvar, nens
    real(dp), intent(in) :: x(nvar, nens)
    real(dp) :: s, mean
    integer :: i
    s = 0.0_dp
    do i = 1, nvar
      mean = sum(x(i, :)) / nens
      s = s + sum((x(i, :) - mean)**2) / (nens - 1)
    end do
    s = sqrt(s / nvar)
  end function ensemble_spread

end module l96_model

module record_stream
  use l96_model, only: dp
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  integer, parameter :: file_magic = 1096108337

contains

  ! bytes of one record: step, member count, time, state
  function record_bytes(nvar, nens) result(nb)
    integer, intent(in) :: nvar, nens
    integer(i8) :: nb
    nb = 4_i8 + 4_i8 + 8_i8 + 8_i8 * int(nvar, i8) * int(nens, i8)
  end function record_bytes

  subroutine open_record_file(u, path, nvar, nens, dt)
    integer, intent(out) :: u
    character(len=*), intent(in) :: path
    integer, intent(in) :: nvar, nens
    real(dp), intent(in) :: dt

    open(newunit=u, file=path, access='stream', form='unformatted', status='replace', action='readwrite')
    write(u) file_magic, nvar, nens, dt
  end subroutine open_record_file

  subroutine append_record(u, step, time, x, nvar, nens)
    integer, intent(in) :: u, step, nvar, nens
    real(dp), intent(in) :: time
    real(dp), intent(in) :: x(nvar, nens)
    write(u) step, nens, time, x
  end subroutine append_record

  subroutine read_record_at(u, irec, step, time, x, nvar, nens)
    integer, intent(in) :: u, irec, nvar, nens
    integer, intent(out) :: step
    real(dp), intent(out) :: time
    real(dp), intent(out) :: x(nvar, nens)
    integer(i8) :: pos
    integer :: nens_rec

    ! header is 3 integers and a real(8): 20 bytes; stream positions start at 1
    pos = 1_i8 + 20_i8 + int(irec - 1, i8) * record_bytes(nvar, nens)
    read(u, pos=pos) step, nens_rec, time, x
    if (nens_rec /= nens) error stop 'record header corrupt'
  end subroutine read_record_at

end module record_stream

program ftn_stream_rec
  use l96_model
  use record_stream
  implicit none
  integer, parameter :: nvar = 400, nens = 40
  integer, parameter :: nsteps = 2400, out_every = 8
  real(dp), parameter :: dt = 0.005_dp
  real(dp), allocatable :: x(:, :), k1(:, :), k2(:, :), k3(:, :), k4(:, :), xt(:, :), xr(:, :)
  real(dp), allocatable :: spread_run(:)
  character(len=400) :: dir
  integer :: u, n, nrec, irec, step, m
  real(dp) :: time, sp, magic_dt
  integer :: magic, nv, ne
  integer(i8) :: fsize

  if (command_argument_count() < 1) error stop 'usage: ftn_stream_rec DIR'
  call get_command_argument(1, dir)

  allocate(x(nvar, nens), k1(nvar, nens), k2(nvar, nens), k3(nvar, nens), k4(nvar, nens))
  allocate(xt(nvar, nens), xr(nvar, nens))
  allocate(spread_run(nsteps / out_every))

  call init_ensemble(x, nvar, nens)
  call open_record_file(u, trim(dir) // '/l96_ensemble.bin', nvar, nens, dt)
  nrec = 0
  do n = 1, nsteps
    call rk4_step(x, k1, k2, k3, k4, xt, nvar, nens, dt)
    if (mod(n, out_every) == 0) then
      call append_record(u, n, n * dt, x, nvar, nens)
      nrec = nrec + 1
      spread_run(nrec) = ensemble_spread(x, nvar, nens)
    end if
  end do
  flush(u)

  inquire(unit=u, size=fsize)
  if (fsize /= 20_i8 + int(nrec, i8) * record_bytes(nvar, nens)) error stop 'file size mismatch'

  ! file header
  read(u, pos=1) magic, nv, ne, magic_dt
  if (magic /= file_magic .or. nv /= nvar .or. ne /= nens .or. magic_dt /= dt) error stop 'bad file header'

  ! every 9th record, recompute the spread from the file and compare
  do irec = 1, nrec, 9
    call read_record_at(u, irec, step, time, xr, nvar, nens)
    if (step /= irec * out_every) error stop 'record step mismatch'
    sp = ensemble_spread(xr, nvar, nens)
    if (sp /= spread_run(irec)) error stop 'spread from file differs'
  end do

  ! the last record must equal the final state bit for bit
  call read_record_at(u, nrec, step, time, xr, nvar, nens)
  do m = 1, nens
    if (any(xr(:, m) /= x(:, m))) error stop 'last record differs from state'
  end do
  close(u)

  print '(A,I5,A,ES12.4,A,ES12.4)', 'records ', nrec, '  initial spread ', spread_run(1), &
       '  final spread ', spread_run(nrec)
  if (.not. (spread_run(nrec) > spread_run(1))) error stop 'ensemble did not spread'
end program ftn_stream_rec
