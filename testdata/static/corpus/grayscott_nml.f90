! grayscott_nml: 1-D Gray-Scott reaction-diffusion solver.
! Parameters live in a NAMELIST file that the program writes on first use
! and then reads back; concentration profiles are written as formatted
! tables every out_every steps, a running history is appended every
! hist_every steps, and the last profile is re-read to check the output.
module gs_model
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  integer, parameter :: dp = kind(1.0d0)

  ! run parameters (namelist /gsrun/)
  integer  :: nx = 2000
  integer  :: nsteps = 40000
  integer  :: out_every = 500
  integer  :: hist_every = 40
  real(dp) :: length = 2.5_dp
  real(dp) :: du = 2.0e-5_dp
  real(dp) :: dv = 1.0e-5_dp
  real(dp) :: feed = 0.040_dp
  real(dp) :: kill = 0.062_dp
  real(dp) :: cfl = 0.20_dp
  integer  :: seed = 20240611
  namelist /gsrun/ nx, nsteps, out_every, hist_every, length, du, dv, &
                   feed, kill, cfl, seed

  real(dp) :: dx, dt
  character(len=512) :: outdir

  interface
     function c_mkdir(path, mode) bind(c, name='mkdir') result(rc)
       import :: c_int, c_char
       character(kind=c_char), dimension(*), intent(in) :: path
       integer(c_int), value :: mode
       integer(c_int) :: rc
     end function c_mkdir
  end interface

contains

  subroutine make_dir(path)
    character(len=*), intent(in) :: path
    integer(c_int) :: rc
    rc = c_mkdir(trim(path)//c_null_char, int(o'755', c_int))
  end subroutine make_dir

  subroutine write_namelist(fname)
    character(len=*), intent(in) :: fname
    integer :: u
    open(newunit=u, file=fname, status='replace', action='write', form='formatted')
    write(u, '(a)') '! Gray-Scott 1-D run parameters (edit and re-run)'
    write(u, nml=gsrun)
    close(u)
  end subroutine write_namelist

  subroutine read_namelist(fname)
    character(len=*), intent(in) :: fname
    integer :: u, ios
    ! reset to sentinel values so a broken read is detected
    nx = -1
    nsteps = -1
    open(newunit=u, file=fname, status='old', action='read', form='formatted')
    read(u, nml=gsrun, iostat=ios)
    close(u)
    if (ios /= 0 .or. nx <= 8 .or. nsteps <= 0) then
       write(0, '(a,i0)') 'grayscott_nml: bad namelist, iostat=', ios
       stop 2
    end if
    dx = length / real(nx, dp)
    dt = cfl * dx * dx / max(du, dv)
  end subroutine read_namelist

  ! Park-Miller minimal standard generator so the run is reproducible
  function lcg_uniform(state) result(r)
    integer(kind=8), intent(inout) :: state
    real(dp) :: r
    state = modulo(state * 16807_8, 2147483647_8)
    r = real(state, dp) / 2147483647.0_dp
  end function lcg_uniform

  subroutine init_fields(u, v)
    real(dp), intent(out) :: u(:), v(:)
    integer :: i, n
    integer(kind=8) :: st
    n = size(u)
    st = int(seed, 8)
    u = 1.0_dp
    v = 0.0_dp
    do i = n/2 - n/20, n/2 + n/20
       u(i) = 0.5_dp
       v(i) = 0.25_dp
    end do
    do i = 1, n
       u(i) = u(i) + 0.02_dp * (lcg_uniform(st) - 0.5_dp)
       v(i) = v(i) + 0.02_dp * (lcg_uniform(st) - 0.5_dp)
    end do
  end subroutine init_fields

  ! one explicit Euler step with periodic boundaries
  subroutine advance(u, v, lu, lv)
    real(dp), intent(inout) :: u(:), v(:)
    real(dp), intent(inout) :: lu(:), lv(:)
    integer :: i, n, im, ip
    real(dp) :: cu, cv, uvv
    n = size(u)
    cu = du * dt / (dx * dx)
    cv = dv * dt / (dx * dx)
    do i = 1, n
       im = i - 1
       ip = i + 1
       if (im < 1) im = n
       if (ip > n) ip = 1
       lu(i) = u(im) - 2.0_dp * u(i) + u(ip)
       lv(i) = v(im) - 2.0_dp * v(i) + v(ip)
    end do
    do i = 1, n
       uvv = u(i) * v(i) * v(i)
       u(i) = u(i) + cu * lu(i) + dt * (-uvv + feed * (1.0_dp - u(i)))
       v(i) = v(i) + cv * lv(i) + dt * (uvv - (feed + kill) * v(i))
    end do
  end subroutine advance

  function field_mean(a) result(m)
    real(dp), intent(in) :: a(:)
    real(dp) :: m
    m = sum(a) / real(size(a), dp)
  end function field_mean

  subroutine write_profile(fname, istep, u, v)
    character(len=*), intent(in) :: fname
    integer, intent(in) :: istep
    real(dp), intent(in) :: u(:), v(:)
    integer :: un, i
    open(newunit=un, file=fname, status='replace', action='write', form='formatted')
    write(un, '(a,i8,a,es14.6)') '# step ', istep, '  time ', real(istep, dp) * dt
    write(un, '(a)') '#      i            x                 u                 v'
    do i = 1, size(u)
       write(un, '(i8,3es18.9)') i, (real(i, dp) - 0.5_dp) * dx, u(i), v(i)
    end do
    close(un)
  end subroutine write_profile

  subroutine append_history(un, istep, u, v)
    integer, intent(in) :: un, istep
    real(dp), intent(in) :: u(:), v(:)
    write(un, '(i8,es16.7,4es18.9)') istep, real(istep, dp) * dt, field_mean(u), &
         field_mean(v), maxval(v), minval(u)
  end subroutine append_history

  subroutine check_profile(fname, u, v, nbad)
    character(len=*), intent(in) :: fname
    real(dp), intent(in) :: u(:), v(:)
    integer, intent(out) :: nbad
    integer :: un, i, idx
    real(dp) :: x, ur, vr
    character(len=128) :: line
    nbad = 0
    open(newunit=un, file=fname, status='old', action='read', form='formatted')
    read(un, '(a)') line
    read(un, '(a)') line
    do i = 1, size(u)
       read(un, *) idx, x, ur, vr
       if (idx /= i .or. abs(ur - u(i)) > 1.0e-8_dp * max(1.0_dp, abs(u(i))) .or. &
           abs(vr - v(i)) > 1.0e-8_dp * max(1.0_dp, abs(v(i)))) nbad = nbad + 1
    end do
    close(un)
  end subroutine check_profile

end module gs_model

program grayscott_nml
  use gs_model
  implicit none
  real(dp), allocatable :: u(:), v(:), lu(:), lv(:)
  character(len=512) :: nmlfile, proffile, lastprof
  integer :: istep, hu, nbad, nprof
  logical :: have_nml

  if (command_argument_count() < 1) then
     write(0, '(a)') 'usage: grayscott_nml DIR'
     stop 1
  end if
  call get_command_argument(1, outdir)
  call make_dir(outdir)
  call make_dir(trim(outdir)//'/profiles')

  nmlfile = trim(outdir)//'/gsrun.nml'
  inquire(file=nmlfile, exist=have_nml)
  if (.not. have_nml) call write_namelist(nmlfile)
  call read_namelist(nmlfile)

  allocate(u(nx), v(nx), lu(nx), lv(nx))
  call init_fields(u, v)

  open(newunit=hu, file=trim(outdir)//'/history.dat', status='replace', &
       action='write', form='formatted')
  write(hu, '(a)') '#   step          time            <u>               <v>           max v             min u'
  call append_history(hu, 0, u, v)

  nprof = 0
  lastprof = ''
  do istep = 1, nsteps
     call advance(u, v, lu, lv)
     if (mod(istep, hist_every) == 0) call append_history(hu, istep, u, v)
     if (mod(istep, out_every) == 0) then
        write(proffile, '(a,a,i6.6,a)') trim(outdir), '/profiles/prof_', istep, '.dat'
        call write_profile(proffile, istep, u, v)
        lastprof = proffile
        nprof = nprof + 1
     end if
  end do
  close(hu)

  if (nprof == 0) then
     write(0, '(a)') 'grayscott_nml: no profile written'
     stop 3
  end if
  call check_profile(lastprof, u, v, nbad)
  if (nbad /= 0) then
     write(0, '(a,i0,a)') 'grayscott_nml: ', nbad, ' mismatching rows in last profile'
     stop 4
  end if
  if (any(u /= u) .or. any(v /= v)) then
     write(0, '(a)') 'grayscott_nml: NaN in solution'
     stop 5
  end if
  write(*, '(a,i0,a,i0,a,f10.6)') 'grayscott_nml: ', nsteps, ' steps, ', nprof, &
       ' profiles, <v> = ', field_mean(v)
end program grayscott_nml
