! heat_exchanger_nml_sweep.f90
!
! Design sweep of a double-pipe counterflow heat exchanger (hot oil / cold
! water) with temperature-dependent properties.  The driver first writes one
! NAMELIST input deck per design case, then for every case reads the deck
! back, solves the two-point boundary-value problem by RK4 shooting with a
! secant iteration on the unknown cold-outlet temperature, and writes
!   * a formatted axial temperature profile per case (profile_NNN.dat),
!   * one line per case in a fixed-column summary table,
!   * all profiles as unformatted sequential records (profiles.bin).
! Finally the summary table and the binary profiles are re-read to rank
! designs and to cross-check each duty against the LMTD method.
!
! usage: heat_exchanger_nml_sweep DIR

module hx_model
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: max_nodes = 4001

  type :: hx_case
     integer  :: id = 0
     real(dp) :: length = 10.0_dp        ! m
     integer  :: n_nodes = 3001
     real(dp) :: mdot_hot = 0.5_dp       ! kg/s
     real(dp) :: mdot_cold = 0.4_dp      ! kg/s
     real(dp) :: t_hot_in = 150.0_dp     ! degC
     real(dp) :: t_cold_in = 15.0_dp     ! degC
     real(dp) :: perimeter = 0.12_dp     ! m, heat-transfer perimeter
     real(dp) :: fouling = 2.0e-4_dp     ! m2K/W
  end type hx_case

contains

  ! oil: cp rises with T, viscosity falls strongly -> h_hot grows with T
  pure real(dp) function cp_hot(t)
    real(dp), intent(in) :: t
    cp_hot = 1800.0_dp + 4.2_dp * t
  end function cp_hot

  pure real(dp) function cp_cold(t)
    real(dp), intent(in) :: t
    cp_cold = 4217.0_dp - 3.1_dp * t + 0.035_dp * t * t
  end function cp_cold

  pure real(dp) function u_local(c, th, tc)
    type(hx_case), intent(in) :: c
    real(dp), intent(in) :: th, tc
    real(dp) :: h_hot, h_cold, visc_ratio
    visc_ratio = exp(-0.021_dp * (th - 100.0_dp))
    h_hot = 320.0_dp * (c%mdot_hot / 0.5_dp)**0.8_dp / visc_ratio**0.47_dp
    h_cold = 2600.0_dp * (c%mdot_cold / 0.4_dp)**0.8_dp * (1.0_dp + 0.012_dp * (tc - 20.0_dp))
    u_local = 1.0_dp / (1.0_dp / h_hot + 1.0_dp / h_cold + c%fouling)
  end function u_local

  ! dT/dx for hot (flowing +x) and cold (flowing -x) streams
  pure subroutine rhs(c, th, tc, dth, dtc)
    type(hx_case), intent(in) :: c
    real(dp), intent(in) :: th, tc
    real(dp), intent(out) :: dth, dtc
    real(dp) :: q
    q = u_local(c, th, tc) * c%perimeter * (th - tc)
    dth = -q / (c%mdot_hot * cp_hot(th))
    dtc = -q / (c%mdot_cold * cp_cold(tc))
  end subroutine rhs

  ! March from x=0 with given hot inlet and guessed cold outlet.
  subroutine march(c, tc0, x, th, tc)
    type(hx_case), intent(in) :: c
    real(dp), intent(in) :: tc0
    real(dp), intent(out) :: x(:), th(:), tc(:)
    integer :: i, n
    real(dp) :: h, k1h, k1c, k2h, k2c, k3h, k3c, k4h, k4c
    n = c%n_nodes
    h = c%length / real(n - 1, dp)
    x(1) = 0.0_dp
    th(1) = c%t_hot_in
    tc(1) = tc0
    do i = 1, n - 1
       call rhs(c, th(i), tc(i), k1h, k1c)
       call rhs(c, th(i) + 0.5_dp*h*k1h, tc(i) + 0.5_dp*h*k1c, k2h, k2c)
       call rhs(c, th(i) + 0.5_dp*h*k2h, tc(i) + 0.5_dp*h*k2c, k3h, k3c)
       call rhs(c, th(i) + h*k3h, tc(i) + h*k3c, k4h, k4c)
       th(i+1) = th(i) + h * (k1h + 2.0_dp*k2h + 2.0_dp*k3h + k4h) / 6.0_dp
       tc(i+1) = tc(i) + h * (k1c + 2.0_dp*k2c + 2.0_dp*k3c + k4c) / 6.0_dp
       x(i+1) = x(i) + h
    end do
  end subroutine march

  ! Secant iteration on the cold outlet temperature so that tc(L) = t_cold_in.
  subroutine solve_counterflow(c, x, th, tc, iters)
    type(hx_case), intent(in) :: c
    real(dp), intent(out) :: x(:), th(:), tc(:)
    integer, intent(out) :: iters
    real(dp) :: g0, g1, f0, f1, g2
    integer :: n
    n = c%n_nodes
    g0 = c%t_cold_in + 0.2_dp * (c%t_hot_in - c%t_cold_in)
    g1 = c%t_cold_in + 0.6_dp * (c%t_hot_in - c%t_cold_in)
    call march(c, g0, x, th, tc); f0 = tc(n) - c%t_cold_in
    call march(c, g1, x, th, tc); f1 = tc(n) - c%t_cold_in
    iters = 2
    do while (abs(f1) > 1.0e-9_dp .and. iters < 60)
       g2 = g1 - f1 * (g1 - g0) / (f1 - f0)
       g0 = g1; f0 = f1; g1 = g2
       call march(c, g1, x, th, tc)
       f1 = tc(n) - c%t_cold_in
       iters = iters + 1
    end do
  end subroutine solve_counterflow

end module hx_model

module hx_io
  use hx_model
  use iso_c_binding, only: c_int, c_char
  implicit none
  interface
     function c_mkdir(path, mode) bind(c, name='mkdir') result(rc)
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: path(*)
       integer(c_int), value :: mode
       integer(c_int) :: rc
     end function c_mkdir
  end interface
contains

  subroutine case_path(dir, prefix, id, ext, path)
    character(len=*), intent(in) :: dir, prefix, ext
    integer, intent(in) :: id
    character(len=*), intent(out) :: path
    write(path, '(a,"/",a,i3.3,a)') trim(dir), prefix, id, ext
  end subroutine case_path

  subroutine write_case_decks(dir, n_len, n_flow)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: n_len, n_flow
    type(hx_case) :: hxcase
    namelist /hxcase_nml/ hxcase
    character(len=512) :: path
    integer :: i, j, u
    do i = 1, n_len
       do j = 1, n_flow
          hxcase = hx_case()
          hxcase%id = (i - 1) * n_flow + j
          hxcase%length = 4.0_dp + 2.0_dp * real(i - 1, dp)
          hxcase%mdot_cold = 0.15_dp + 0.08_dp * real(j - 1, dp)
          hxcase%fouling = 1.0e-4_dp * real(1 + mod(hxcase%id, 4), dp)
          call case_path(dir, 'decks/case_', hxcase%id, '.nml', path)
          open(newunit=u, file=trim(path), status='replace', action='write')
          write(u, nml=hxcase_nml)
          close(u)
       end do
    end do
  end subroutine write_case_decks

  subroutine read_case_deck(path, c)
    character(len=*), intent(in) :: path
    type(hx_case), intent(out) :: c
    type(hx_case) :: hxcase
    namelist /hxcase_nml/ hxcase
    integer :: u, ios
    open(newunit=u, file=trim(path), status='old', action='read')
    read(u, nml=hxcase_nml, iostat=ios)
    close(u)
    if (ios /= 0) then
       write(*,*) 'bad namelist in ', trim(path)
       stop 1
    end if
    c = hxcase
  end subroutine read_case_deck

  subroutine write_profile(path, c, x, th, tc)
    character(len=*), intent(in) :: path
    type(hx_case), intent(in) :: c
    real(dp), intent(in) :: x(:), th(:), tc(:)
    integer :: u, i
    open(newunit=u, file=trim(path), status='replace', action='write')
    write(u, '(a,i4,a,f7.2,a,f6.3)') '# case', c%id, '  L=', c%length, '  mdot_cold=', c%mdot_cold
    write(u, '(a)') '#      x[m]     T_hot[C]    T_cold[C]      U[W/m2K]'
    do i = 1, c%n_nodes
       write(u, '(f10.5,2f13.6,f14.4)') x(i), th(i), tc(i), u_local(c, th(i), tc(i))
    end do
    close(u)
  end subroutine write_profile

  real(dp) function duty(c, th)
    type(hx_case), intent(in) :: c
    real(dp), intent(in) :: th(:)
    duty = c%mdot_hot * 0.5_dp * (cp_hot(th(1)) + cp_hot(th(c%n_nodes))) * (th(1) - th(c%n_nodes))
  end function duty

  subroutine rank_designs(summary, ranking, ncases)
    character(len=*), intent(in) :: summary, ranking
    integer, intent(in) :: ncases
    integer :: u, v, i, j, id(ncases), it, best
    real(dp) :: len(ncases), mdc(ncases), q(ncases), eff(ncases), merit(ncases), tho, tco
    character(len=200) :: header
    open(newunit=u, file=trim(summary), status='old', action='read')
    read(u, '(a)') header
    do i = 1, ncases
       read(u, '(i5,f8.2,f8.3,2f11.4,f13.2,f9.5,i5)') id(i), len(i), mdc(i), tho, tco, q(i), eff(i), it
       ! merit: duty per metre of pipe, penalising pumping (~mdot^3)
       merit(i) = q(i) / len(i) - 2.0e4_dp * mdc(i)**3
    end do
    close(u)
    open(newunit=v, file=trim(ranking), status='replace', action='write')
    write(v, '(a)') '# rank  case  length  mdot_cold  duty[kW]  effectiveness  merit'
    do j = 1, ncases
       best = maxloc(merit, 1)
       write(v, '(i5,i6,f8.2,f10.3,f10.2,f14.5,es12.4)') j, id(best), len(best), mdc(best), &
            q(best) / 1000.0_dp, eff(best), merit(best)
       merit(best) = -huge(1.0_dp)
    end do
    close(v)
  end subroutine rank_designs

  ! Re-read binary profiles; compare integrated duty with U_mean*A*LMTD.
  subroutine lmtd_crosscheck(binpath, outpath, ncases)
    character(len=*), intent(in) :: binpath, outpath
    integer, intent(in) :: ncases
    type(hx_case) :: c
    real(dp), allocatable :: th(:), tc(:)
    real(dp) :: dt1, dt2, lmtd, umean, q_lmtd, q_int
    integer :: u, v, k, n, i
    open(newunit=u, file=trim(binpath), form='unformatted', access='sequential', status='old')
    open(newunit=v, file=trim(outpath), status='replace', action='write')
    write(v, '(a)') '# case   Q_profile[W]     Q_lmtd[W]   rel_diff'
    do k = 1, ncases
       read(u) c, n
       allocate(th(n), tc(n))
       read(u) th
       read(u) tc
       dt1 = th(1) - tc(1)
       dt2 = th(n) - tc(n)
       lmtd = (dt1 - dt2) / log(dt1 / dt2)
       umean = 0.0_dp
       do i = 1, n
          umean = umean + u_local(c, th(i), tc(i))
       end do
       umean = umean / real(n, dp)
       q_lmtd = umean * c%perimeter * c%length * lmtd
       q_int = duty(c, th)
       write(v, '(i6,2es15.6,f11.5)') c%id, q_int, q_lmtd, (q_lmtd - q_int) / q_int
       deallocate(th, tc)
    end do
    close(u)
    close(v)
  end subroutine lmtd_crosscheck

end module hx_io

program heat_exchanger_nml_sweep
  use hx_model
  use hx_io
  use iso_c_binding, only: c_int, c_null_char
  implicit none
  integer, parameter :: n_len = 12, n_flow = 12
  character(len=400) :: dir
  character(len=512) :: path, summary, binpath
  type(hx_case) :: c
  real(dp), allocatable :: x(:), th(:), tc(:)
  integer :: k, iters, usum, ubin, ncases
  real(dp) :: q, qmax, cmin
  integer(c_int) :: rc

  if (command_argument_count() /= 1) then
     write(*,*) 'usage: heat_exchanger_nml_sweep DIR'
     stop 2
  end if
  call get_command_argument(1, dir)
  ! mkdir(2) through ISO_C_BINDING; EEXIST is fine
  rc = c_mkdir(trim(dir) // c_null_char, int(o'755', c_int))
  rc = c_mkdir(trim(dir) // '/decks' // c_null_char, int(o'755', c_int))
  rc = c_mkdir(trim(dir) // '/profiles' // c_null_char, int(o'755', c_int))
  ncases = n_len * n_flow
  call write_case_decks(dir, n_len, n_flow)

  summary = trim(dir) // '/summary.txt'
  binpath = trim(dir) // '/profiles.bin'
  open(newunit=usum, file=trim(summary), status='replace', action='write')
  write(usum, '(a)') ' case  length  mdot_c   T_hot_out T_cold_out     duty[W]      eff  its'
  open(newunit=ubin, file=trim(binpath), form='unformatted', access='sequential', status='replace')
  allocate(x(max_nodes), th(max_nodes), tc(max_nodes))
  do k = 1, ncases
     call case_path(dir, 'decks/case_', k, '.nml', path)
     call read_case_deck(path, c)
     call solve_counterflow(c, x, th, tc, iters)
     call case_path(dir, 'profiles/profile_', k, '.dat', path)
     call write_profile(path, c, x, th, tc)
     q = duty(c, th)
     cmin = min(c%mdot_hot * cp_hot(c%t_hot_in), c%mdot_cold * cp_cold(c%t_cold_in))
     qmax = cmin * (c%t_hot_in - c%t_cold_in)
     write(usum, '(i5,f8.2,f8.3,2f11.4,f13.2,f9.5,i5)') c%id, c%length, c%mdot_cold, th(c%n_nodes), &
          tc(1), q, q / qmax, iters
     write(ubin) c, c%n_nodes
     write(ubin) th(1:c%n_nodes)
     write(ubin) tc(1:c%n_nodes)
  end do
  close(usum)
  close(ubin)

  call rank_designs(summary, trim(dir) // '/ranking.txt', ncases)
  call lmtd_crosscheck(binpath, trim(dir) // '/lmtd_check.txt', ncases)
  write(*, '(a,i4,a)') 'solved ', ncases, ' exchanger designs'
end program heat_exchanger_nml_sweep
