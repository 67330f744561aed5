! Monte Carlo estimates of the volume of the unit ball in 2..dmax dimensions
! and of a smooth Gaussian-type integral, with batch-means error bars.
! Run parameters come from a namelist file (written here once, then read
! like a user input).  Progress and result lines are formatted with
! internal WRITEs into character variables; only a short summary file is
! written at the end.
module mc_kernels
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp

contains

  function exact_ball_volume(d) result(v)
    integer, intent(in) :: d
    real(dp) :: v
    v = pi**(0.5_dp * d) / gamma(0.5_dp * d + 1.0_dp)
  end function exact_ball_volume

  ! hit-or-miss estimate of the unit d-ball volume inside [-1,1]^d,
  ! nbatch batches of nper points; returns mean and standard error
  subroutine ball_volume_mc(d, nbatch, nper, est, err, history, nhist)
    integer, intent(in) :: d, nbatch, nper
    real(dp), intent(out) :: est, err
    character(len=*), intent(inout) :: history(:)
    integer, intent(inout) :: nhist
    real(dp), allocatable :: x(:, :)
    real(dp) :: bmean(nbatch), cube, s, s2
    integer :: b, i, hits

    allocate(x(d, nper))
    cube = 2.0_dp**d
    s = 0.0_dp
    s2 = 0.0_dp
    do b = 1, nbatch
      call random_number(x)
      hits = 0
      do i = 1, nper
        if (sum((2.0_dp * x(:, i) - 1.0_dp)**2) <= 1.0_dp) hits = hits + 1
      end do
      bmean(b) = cube * real(hits, dp) / nper
      s = s + bmean(b)
      s2 = s2 + bmean(b)**2
      if (mod(b, nbatch / 4) == 0 .and. nhist < size(history)) then
        nhist = nhist + 1
        write(history(nhist), '("ball d=",I2," after ",I9," points: ",F12.8," (exact ",F12.8,")")') &
             d, b * nper, s / b, exact_ball_volume(d)
      end if
    end do
    est = s / nbatch
    err = sqrt(max(s2 / nbatch - est**2, 0.0_dp) / (nbatch - 1))
    deallocate(x)
  end subroutine ball_volume_mc

  ! integral over [0,1]^3 of exp(-(x^2+y^2+z^2)) = (sqrt(pi)/2 * erf(1))^3
  subroutine gauss_cube_mc(nbatch, nper, est, err)
    integer, intent(in) :: nbatch, nper
    real(dp), intent(out) :: est, err
    real(dp), allocatable :: x(:, :)
    real(dp) :: acc, s, s2
    integer :: b, i

    allocate(x(3, nper))
    s = 0.0_dp
    s2 = 0.0_dp
    do b = 1, nbatch
      call random_number(x)
      acc = 0.0_dp
      do i = 1, nper
        acc = acc + exp(-(x(1, i)**2 + x(2, i)**2 + x(3, i)**2))
      end do
      acc = acc / nper
      s = s + acc
      s2 = s2 + acc * acc
    end do
    est = s / nbatch
    err = sqrt(max(s2 / nbatch - est**2, 0.0_dp) / (nbatch - 1))
    deallocate(x)
  end subroutine gauss_cube_mc

  function result_line(label, est, err, exact) result(line)
    character(len=*), intent(in) :: label
    real(dp), intent(in) :: est, err, exact
    character(len=96) :: line
    write(line, '(A12,1X,F14.10,1X,ES10.3,1X,F14.10,1X,F7.2)') label, est, err, exact, &
         (est - exact) / max(err, tiny(1.0_dp))
  end function result_line

end module mc_kernels

subroutine write_parameters(path)
  implicit none
  character(len=*), intent(in) :: path
  integer :: nbatch, nper, dmax, seed
  integer :: u
  namelist /mcparams/ nbatch, nper, dmax, seed

  nbatch = 40
  nper = 50000
  dmax = 7
  seed = 314159
  open(newunit=u, file=path, status='replace', action='write')
  write(u, nml=mcparams)
  close(u)
end subroutine write_parameters

subroutine read_parameters(path, nbatch, nper, dmax, seed)
  implicit none
  character(len=*), intent(in) :: path
  integer, intent(out) :: nbatch, nper, dmax, seed
  integer :: u, ios
  namelist /mcparams/ nbatch, nper, dmax, seed

  nbatch = -1
  nper = -1
  dmax = -1
  seed = 0
  open(newunit=u, file=path, status='old', action='read')
  read(u, nml=mcparams, iostat=ios)
  close(u)
  if (ios /= 0) error stop 'cannot read namelist mcparams'
  if (nbatch < 8 .or. nper < 1 .or. dmax < 2) error stop 'bad parameters'
end subroutine read_parameters

subroutine write_summary(path, lines, n)
  implicit none
  character(len=*), intent(in) :: path
  integer, intent(in) :: n
  character(len=*), intent(in) :: lines(n)
  integer :: u, k

  open(newunit=u, file=path, status='replace', action='write')
  write(u, '(A)') '# integral        estimate      std.err          exact   z-score'
  do k = 1, n
    write(u, '(A)') trim(lines(k))
  end do
  close(u)
end subroutine write_summary

program mc_report
  use mc_kernels
  implicit none
  character(len=400) :: dir
  character(len=96) :: lines(16)
  character(len=96) :: history(64)
  character(len=12) :: label
  integer :: nbatch, nper, dmax, seed, d, nlines, nhist, nseed, nbad
  integer, allocatable :: seeds(:)
  real(dp) :: est, err, exact, z

  if (command_argument_count() < 1) error stop 'usage: mc_report DIR'
  call get_command_argument(1, dir)

  call write_parameters(trim(dir) // '/mc.nml')
  call read_parameters(trim(dir) // '/mc.nml', nbatch, nper, dmax, seed)

  call random_seed(size=nseed)
  allocate(seeds(nseed))
  seeds = seed + 7 * [(d, d = 1, nseed)]
  call random_seed(put=seeds)

  nlines = 0
  nhist = 0
  nbad = 0
  do d = 2, dmax
    call ball_volume_mc(d, nbatch, nper, est, err, history, nhist)
    exact = exact_ball_volume(d)
    write(label, '("ball_d",I0)') d
    nlines = nlines + 1
    lines(nlines) = result_line(label, est, err, exact)
    z = abs(est - exact) / err
    if (z > 5.0_dp) nbad = nbad + 1
  end do

  call gauss_cube_mc(nbatch, 4 * nper, est, err)
  exact = (0.5_dp * sqrt(pi) * erf(1.0_dp))**3
  nlines = nlines + 1
  label = 'gauss_cube'
  lines(nlines) = result_line(label, est, err, exact)
  if (abs(est - exact) / err > 5.0_dp) nbad = nbad + 1

  print '(A)', trim(history(nhist))
  print '(A)', trim(lines(nlines))
  call write_summary(trim(dir) // '/mc_summary.txt', lines, nlines)
  if (nbad > 0) error stop 'Monte Carlo estimate outside 5 sigma'
end program mc_report
