! numerov_radial_states.f90 -- bound states of screened-Coulomb (Yukawa)
! potentials and their electric-dipole transition strengths.
!
! For NSCREEN screening lengths the radial Schroedinger equation is solved
! with the Numerov method; each (n,l) eigenvalue is bracketed by node
! counting and refined by bisection.  Normalised radial functions are
! written to a binary stream file (ACCESS='STREAM'): a fixed-size index
! block at the front is filled in at the end with positioned writes, each
! state follows as a small header plus the sampled u(r).  A second pass
! reads the index, fetches pairs of states with positioned reads (POS=)
! and evaluates radial dipole matrix elements and absorption oscillator
! strengths; expectation values and the line list are written as
! formatted tables.
!
! Usage: numerov_radial_states OUTDIR
module dir_util
  use iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  interface
    integer(c_int) function c_mkdir(path, mode) bind(C, name='mkdir')
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: path
      integer(c_int), value :: mode
    end function c_mkdir
  end interface
contains
  ! Create the output directory (mode 0755); an existing directory is fine.
  subroutine make_dir(path)
    character(len=*), intent(in) :: path
    integer(c_int) :: rc
    rc = c_mkdir(trim(path) // c_null_char, int(o'755', c_int))
  end subroutine make_dir
end module dir_util

module radial_grid
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nr = 10000, nmax = 6, nscreen = 5
  integer, parameter :: nstate_per = nmax * (nmax + 1) / 2
  integer, parameter :: nstate = nstate_per * nscreen
  real(dp), parameter :: rmax = 130.0_dp, zcharge = 1.0_dp
  real(dp), parameter :: screen(nscreen) = [1.0e6_dp, 60.0_dp, 25.0_dp, 12.0_dp, 7.0_dp]
  integer, parameter :: index_bytes = 8 * 4 * nstate + 16
  real(dp) :: h, r(nr)
contains
  subroutine make_grid()
    integer :: i
    h = rmax / nr
    do i = 1, nr
      r(i) = i * h
    end do
  end subroutine make_grid
end module radial_grid

module numerov_solver
  use radial_grid
  implicit none
contains
  ! Outward Numerov integration; returns the number of nodes of u.
  integer function integrate(e, l, lam, u) result(nodes)
    real(dp), intent(in) :: e, lam
    integer, intent(in) :: l
    real(dp), intent(out) :: u(nr)
    real(dp), save :: f(nr)
    real(dp) :: c
    integer :: i
    c = h * h / 12.0_dp
    do i = 1, nr
      f(i) = l * (l + 1) / r(i)**2 - 2.0_dp * zcharge * exp(-r(i) / lam) / r(i) - 2.0_dp * e
    end do
    u(1) = r(1)**(l + 1)
    u(2) = r(2)**(l + 1)
    nodes = 0
    do i = 2, nr - 1
      u(i + 1) = (2.0_dp * u(i) * (1.0_dp + 5.0_dp * c * f(i)) - u(i - 1) * (1.0_dp - c * f(i - 1))) &
                 / (1.0_dp - c * f(i + 1))
      if (u(i + 1) * u(i) < 0.0_dp) nodes = nodes + 1
      if (abs(u(i + 1)) > 1.0e100_dp) then      ! rescale to avoid overflow
        u(1:i + 1) = u(1:i + 1) * 1.0e-100_dp
      end if
    end do
  end function integrate

  ! Find the eigenvalue with k nodes by bisection on the node count,
  ! then polish on the sign of u(rmax).
  subroutine find_state(k, l, lam, e, u, ok)
    integer, intent(in) :: k, l
    real(dp), intent(in) :: lam
    real(dp), intent(out) :: e, u(nr)
    logical, intent(out) :: ok
    real(dp) :: elo, ehi, em, slo
    integer :: it, nd
    elo = -0.6_dp * zcharge**2
    ehi = -1.0e-6_dp
    ok = integrate(ehi, l, lam, u) > k
    if (.not. ok) return
    do it = 1, 70            ! lowest energy with more than k nodes
      em = 0.5_dp * (elo + ehi)
      nd = integrate(em, l, lam, u)
      if (nd > k) then
        ehi = em
      else
        elo = em
      end if
    end do
    ! now elo has k nodes, ehi k+1 nodes; the bound state lies where the
    ! tail changes sign, i.e. inside [elo, ehi]
    nd = integrate(elo, l, lam, u)
    slo = sign(1.0_dp, u(nr))
    e = elo
    do it = 1, 40
      em = 0.5_dp * (elo + ehi)
      nd = integrate(em, l, lam, u)
      if (u(nr) * slo > 0.0_dp .and. nd == k) then
        elo = em
      else
        ehi = em
      end if
    end do
    e = elo
    nd = integrate(e, l, lam, u)
    call normalise_tail(u, k)
  end subroutine find_state

  ! Cut the diverging tail at the first minimum of |u| beyond the last
  ! physical node, then normalise.
  subroutine normalise_tail(u, k)
    real(dp), intent(inout) :: u(nr)
    integer, intent(in) :: k
    integer :: i, nd, inode, imin
    nd = 0
    inode = 2
    do i = 2, nr
      if (u(i) * u(i - 1) < 0.0_dp) then
        nd = nd + 1
        if (nd == k) inode = i
      end if
    end do
    imin = nr
    do i = inode + 2, nr - 1
      if (abs(u(i)) < abs(u(i - 1)) .and. abs(u(i)) <= abs(u(i + 1))) then
        imin = i
        exit
      end if
    end do
    u(imin:) = 0.0_dp
    u = u / sqrt(sum(u * u) * h)
  end subroutine normalise_tail
end module numerov_solver

module state_store
  use radial_grid
  implicit none
  integer(8) :: offsets(nstate)
  integer :: qn(3, nstate)             ! n, l, screen index
  real(dp) :: energy(nstate)
contains
  subroutine write_state(u_file, is, n, l, isc, e, u, pos)
    integer, intent(in) :: u_file, is, n, l, isc
    real(dp), intent(in) :: e, u(nr)
    integer(8), intent(inout) :: pos
    offsets(is) = pos
    qn(:, is) = [n, l, isc]
    energy(is) = e
    write(u_file, pos=pos) n, l, isc, e, u
    inquire(unit=u_file, pos=pos)
  end subroutine write_state

  subroutine write_index(u_file, ns)
    integer, intent(in) :: u_file, ns
    write(u_file, pos=1) 'RADW', ns, nr, rmax
    write(u_file) offsets(1:ns), qn(:, 1:ns), energy(1:ns)
  end subroutine write_index

  subroutine read_index(u_file, ns)
    integer, intent(in) :: u_file
    integer, intent(out) :: ns
    character(len=4) :: tag
    integer :: m
    real(dp) :: rm
    read(u_file, pos=1) tag, ns, m, rm
    if (tag /= 'RADW' .or. m /= nr) stop 'bad wavefunction file'
    read(u_file) offsets(1:ns), qn(:, 1:ns), energy(1:ns)
  end subroutine read_index

  subroutine read_state(u_file, is, u)
    integer, intent(in) :: u_file, is
    real(dp), intent(out) :: u(nr)
    integer :: n, l, isc
    real(dp) :: e
    read(u_file, pos=offsets(is)) n, l, isc, e, u
  end subroutine read_state
end module state_store

program numerov_radial_states
  use radial_grid
  use numerov_solver
  use state_store
  use dir_util
  implicit none
  character(len=512) :: dir
  real(dp) :: u(nr), ua(nr), ub(nr), e, dip, fosc, rexp, r2exp, rinv
  integer :: uw, ut, ul, isc, n, l, is, ns, a, b, nlines
  integer(8) :: pos
  logical :: ok

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) stop 'usage: numerov_radial_states OUTDIR'
  call make_dir(dir)
  call make_grid()

  open(newunit=uw, file=trim(dir) // '/wavefunctions.radw', access='stream', &
       form='unformatted', status='replace', action='readwrite')
  pos = int(index_bytes, 8) + 1
  ns = 0
  do isc = 1, nscreen
    do n = 1, nmax
      do l = 0, n - 1
        call find_state(n - l - 1, l, screen(isc), e, u, ok)
        if (.not. ok) cycle                   ! state pushed into the continuum
        ns = ns + 1
        call write_state(uw, ns, n, l, isc, e, u, pos)
      end do
    end do
  end do
  call write_index(uw, ns)
  close(uw)

  ! Second pass: everything from the stream file.
  open(newunit=uw, file=trim(dir) // '/wavefunctions.radw', access='stream', &
       form='unformatted', status='old', action='read')
  call read_index(uw, ns)
  open(newunit=ut, file=trim(dir) // '/levels.txt', status='replace', action='write')
  write(ut, '(a)') '# lambda    n  l        E[Ha]          <r>         <r^2>        <1/r>'
  do is = 1, ns
    call read_state(uw, is, u)
    rexp = sum(u * u * r) * h
    r2exp = sum(u * u * r * r) * h
    rinv = sum(u * u / r) * h
    write(ut, '(es10.3,2i4,4es14.6)') screen(qn(3, is)), qn(1, is), qn(2, is), energy(is), &
         rexp, r2exp, rinv
  end do
  close(ut)

  open(newunit=ul, file=trim(dir) // '/dipole_lines.txt', status='replace', action='write')
  write(ul, '(a)') '# lambda  lower(n,l) upper(n,l)   dE[Ha]   lambda_nm   <r>_radial   f_abs'
  nlines = 0
  do a = 1, ns
    do b = 1, ns
      if (qn(3, a) /= qn(3, b)) cycle
      if (abs(qn(2, a) - qn(2, b)) /= 1) cycle
      if (energy(b) <= energy(a)) cycle
      call read_state(uw, a, ua)
      call read_state(uw, b, ub)
      dip = sum(ua * ub * r) * h
      fosc = 2.0_dp / 3.0_dp * (energy(b) - energy(a)) * dip**2 * &
             real(max(qn(2, a), qn(2, b)), dp) / real(2 * qn(2, a) + 1, dp)
      write(ul, '(es10.3,2(2x,2i3),f12.6,f12.3,2es13.5)') screen(qn(3, a)), qn(1:2, a), &
           qn(1:2, b), energy(b) - energy(a), 45.5634_dp / (energy(b) - energy(a)), dip, fosc
      nlines = nlines + 1
    end do
  end do
  close(ul)
  close(uw)
  print '(a,i4,a,i5,a,f12.8)', 'states=', ns, ' dipole lines=', nlines, ' E(1s, unscreened)=', energy(1)
end program numerov_radial_states
