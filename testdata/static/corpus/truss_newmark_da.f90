! truss_newmark_da.f90 -- dynamic response of a Pratt truss bridge to a
! crossing two-axle vehicle, with fatigue post-processing.
!
! The planar truss (NPANEL panels) is assembled into dense stiffness and
! lumped mass matrices with Rayleigh damping; the effective Newmark
! (average acceleration) matrix is LU-factorised once and the equations of
! motion are integrated for NSTEP steps.  The displacement vector of every
! step is stored as one record of a direct-access file (REC = step), and
! the mid-span deflection is logged as formatted text.  Post-processing
! re-reads all records to compute member axial force histories, performs
! rainflow cycle counting with a Miner fatigue sum per member, writes a
! formatted envelope/damage table, and re-reads selected records (the
! instants of peak deflection) to dump deformed shapes.
!
! Usage: truss_newmark_da OUTDIR
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

module truss_data
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: npanel = 56
  integer, parameter :: nnode = 2 * (npanel + 1)
  integer, parameter :: ndof = 2 * nnode
  integer, parameter :: nmemb = npanel + npanel + (npanel + 1) + npanel
  integer, parameter :: nstep = 20000, nshape = 5
  real(dp), parameter :: panel = 1.5_dp, height = 8.0_dp
  real(dp), parameter :: emod = 2.0e11_dp, area = 2.0e-2_dp, rho = 7850.0_dp
  real(dp), parameter :: deck_mass = 900.0_dp            ! kg per bottom node
  real(dp), parameter :: speed = 22.0_dp
  real(dp), parameter :: axle(2) = [6.0e4_dp, 9.0e4_dp], axle_gap = 4.5_dp
  real(dp), parameter :: dt = (npanel * panel + axle_gap) / speed / nstep
  real(dp) :: x(nnode), y(nnode)
  integer :: conn(2, nmemb)
  logical :: fixed(ndof)
end module truss_data

module truss_fem
  use truss_data
  implicit none
contains

  subroutine build_geometry()
    integer :: i, m
    do i = 0, npanel
      x(i + 1) = i * panel;               y(i + 1) = 0.0_dp          ! bottom chord
      x(npanel + 2 + i) = i * panel;      y(npanel + 2 + i) = height ! top chord
    end do
    m = 0
    do i = 1, npanel                      ! bottom chord
      m = m + 1; conn(:, m) = [i, i + 1]
    end do
    do i = 1, npanel                      ! top chord
      m = m + 1; conn(:, m) = [npanel + 1 + i, npanel + 2 + i]
    end do
    do i = 1, npanel + 1                  ! verticals
      m = m + 1; conn(:, m) = [i, npanel + 1 + i]
    end do
    do i = 1, npanel                      ! diagonals sloping towards mid-span
      m = m + 1
      if (i <= npanel / 2) then
        conn(:, m) = [i + 1, npanel + 1 + i]
      else
        conn(:, m) = [i, npanel + 2 + i]
      end if
    end do
    fixed = .false.
    fixed(1) = .true.; fixed(2) = .true.              ! pin at left
    fixed(2 * (npanel + 1)) = .true.                  ! roller at right
  end subroutine build_geometry

  subroutine assemble(k, mass)
    real(dp), intent(out) :: k(ndof, ndof), mass(ndof)
    integer :: m, a, b, dofs(4), i, j
    real(dp) :: dx, dy, le, c, s, ke(4, 4), t(4)
    k = 0.0_dp
    mass = 0.0_dp
    do m = 1, nmemb
      a = conn(1, m); b = conn(2, m)
      dx = x(b) - x(a); dy = y(b) - y(a)
      le = sqrt(dx * dx + dy * dy)
      c = dx / le; s = dy / le
      t = [-c, -s, c, s]
      do i = 1, 4
        do j = 1, 4
          ke(i, j) = emod * area / le * t(i) * t(j)
        end do
      end do
      dofs = [2 * a - 1, 2 * a, 2 * b - 1, 2 * b]
      do i = 1, 4
        do j = 1, 4
          k(dofs(i), dofs(j)) = k(dofs(i), dofs(j)) + ke(i, j)
        end do
        mass(dofs(i)) = mass(dofs(i)) + 0.25_dp * rho * area * le
      end do
    end do
    do i = 1, npanel + 1
      mass(2 * i - 1) = mass(2 * i - 1) + deck_mass
      mass(2 * i) = mass(2 * i) + deck_mass
    end do
    do i = 1, ndof                        ! supports: penalty-free elimination
      if (fixed(i)) then
        k(i, :) = 0.0_dp; k(:, i) = 0.0_dp; k(i, i) = 1.0_dp
      end if
    end do
  end subroutine assemble

  subroutine lu_factor(a, piv)
    real(dp), intent(inout) :: a(ndof, ndof)
    integer, intent(out) :: piv(ndof)
    integer :: j, p, i
    real(dp) :: tmp(ndof)
    do j = 1, ndof
      p = j - 1 + maxloc(abs(a(j:, j)), 1)
      piv(j) = p
      if (p /= j) then
        tmp = a(j, :); a(j, :) = a(p, :); a(p, :) = tmp
      end if
      do i = j + 1, ndof
        a(i, j) = a(i, j) / a(j, j)
      end do
      do i = j + 1, ndof
        a(j + 1:, i) = a(j + 1:, i) - a(j + 1:, j) * a(j, i)
      end do
    end do
  end subroutine lu_factor

  subroutine lu_solve(a, piv, b)
    real(dp), intent(in) :: a(ndof, ndof)
    integer, intent(in) :: piv(ndof)
    real(dp), intent(inout) :: b(ndof)
    integer :: j
    real(dp) :: t
    do j = 1, ndof
      t = b(j); b(j) = b(piv(j)); b(piv(j)) = t
    end do
    do j = 1, ndof
      b(j + 1:) = b(j + 1:) - a(j + 1:, j) * b(j)
    end do
    do j = ndof, 1, -1
      b(j) = b(j) / a(j, j)
      b(1:j - 1) = b(1:j - 1) - a(1:j - 1, j) * b(j)
    end do
  end subroutine lu_solve

  ! Vertical axle loads distributed linearly onto the bottom-chord nodes.
  subroutine vehicle_load(t, f)
    real(dp), intent(in) :: t
    real(dp), intent(out) :: f(ndof)
    integer :: ax, i
    real(dp) :: pos, xi
    f = 0.0_dp
    do ax = 1, 2
      pos = speed * t - (ax - 1) * axle_gap
      if (pos <= 0.0_dp .or. pos >= npanel * panel) cycle
      i = int(pos / panel) + 1
      xi = pos / panel - (i - 1)
      f(2 * i) = f(2 * i) - axle(ax) * (1.0_dp - xi)
      f(2 * i + 2) = f(2 * i + 2) - axle(ax) * xi
    end do
    where (fixed) f = 0.0_dp
  end subroutine vehicle_load

  real(dp) function member_force(u, m)
    real(dp), intent(in) :: u(ndof)
    integer, intent(in) :: m
    integer :: a, b
    real(dp) :: dx, dy, le
    a = conn(1, m); b = conn(2, m)
    dx = x(b) - x(a); dy = y(b) - y(a)
    le = sqrt(dx * dx + dy * dy)
    member_force = emod * area / le * ((u(2 * b - 1) - u(2 * a - 1)) * dx / le + &
                                       (u(2 * b) - u(2 * a)) * dy / le)
  end function member_force
end module truss_fem

module fatigue
  use truss_data
  implicit none
contains
  ! Three-point rainflow counting on turning points; returns Miner damage.
  real(dp) function rainflow_damage(h, n) result(dmg)
    integer, intent(in) :: n
    real(dp), intent(in) :: h(n)
    real(dp), allocatable :: tp(:), stack(:)
    integer :: i, ntp, sp
    real(dp) :: rng, sig
    allocate(tp(n), stack(n))
    ntp = 1
    tp(1) = h(1)
    do i = 2, n - 1
      if ((h(i) - h(i - 1)) * (h(i + 1) - h(i)) < 0.0_dp) then
        ntp = ntp + 1
        tp(ntp) = h(i)
      end if
    end do
    ntp = ntp + 1
    tp(ntp) = h(n)
    dmg = 0.0_dp
    sp = 0
    do i = 1, ntp
      sp = sp + 1
      stack(sp) = tp(i)
      do while (sp >= 3)
        rng = abs(stack(sp) - stack(sp - 1))
        if (rng < abs(stack(sp - 1) - stack(sp - 2))) exit
        sig = abs(stack(sp - 1) - stack(sp - 2)) / area / 1.0e6_dp    ! MPa
        if (sp == 3) then
          dmg = dmg + 0.5_dp * (sig / 71.0_dp)**3 / 2.0e6_dp
          stack(1) = stack(2); stack(2) = stack(3); sp = 2
        else
          dmg = dmg + (sig / 71.0_dp)**3 / 2.0e6_dp
          stack(sp - 2) = stack(sp); sp = sp - 2
        end if
      end do
    end do
    do i = 1, sp - 1
      sig = abs(stack(i + 1) - stack(i)) / area / 1.0e6_dp
      dmg = dmg + 0.5_dp * (sig / 71.0_dp)**3 / 2.0e6_dp
    end do
  end function rainflow_damage
end module fatigue

program truss_newmark_da
  use truss_data
  use truss_fem
  use fatigue
  use dir_util
  implicit none
  character(len=512) :: dir
  real(dp), allocatable :: k(:,:), keff(:,:), hist(:,:)
  real(dp) :: mass(ndof), u(ndof), v(ndof), acc(ndof), f(ndof), rhs(ndof), un(ndof)
  real(dp) :: cm, ck, a0, a1, t, peak(nshape), dmg
  integer :: piv(ndof), ida, ulog, uenv, ushp, n, m, reclen, i, mid, pstep(nshape), j
  integer :: gnode(nshape)

  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) stop 'usage: truss_newmark_da OUTDIR'
  call make_dir(dir)
  allocate(k(ndof, ndof), keff(ndof, ndof), hist(nstep, nmemb))

  call build_geometry()
  call assemble(k, mass)
  cm = 0.4_dp; ck = 2.0e-4_dp                     ! Rayleigh coefficients
  a0 = 4.0_dp / dt**2; a1 = 2.0_dp / dt
  keff = k * (1.0_dp + a1 * ck)
  do i = 1, ndof
    keff(i, i) = keff(i, i) + (a0 + a1 * cm) * mass(i)
  end do
  call lu_factor(keff, piv)

  inquire(iolength=reclen) u
  open(newunit=ida, file=trim(dir) // '/displacements.da', access='direct', recl=reclen, &
       form='unformatted', status='replace', action='readwrite')
  open(newunit=ulog, file=trim(dir) // '/midspan.txt', status='replace', action='write')
  write(ulog, '(a)') '#     t[s]      uy_mid[mm]   load_pos[m]'
  mid = npanel / 2 + 1
  u = 0.0_dp; v = 0.0_dp; acc = 0.0_dp
  do n = 1, nstep
    t = n * dt
    call vehicle_load(t, f)
    ! Newmark average acceleration: Keff un = f + M(a0 u + (4/dt) v + acc) + C(a1 u + v)
    rhs = f + mass * (a0 * u + (4.0_dp / dt) * v + acc) &
            + cm * mass * (a1 * u + v) + ck * matmul(k, a1 * u + v)
    un = rhs
    call lu_solve(keff, piv, un)
    acc = a0 * (un - u) - (4.0_dp / dt) * v - acc
    v = a1 * (un - u) - v
    u = un
    write(ida, rec=n) u
    write(ulog, '(f10.5,es16.7,f12.3)') t, 1.0e3_dp * u(2 * mid), speed * t
  end do
  close(ulog)

  ! Pass 1 over the records: member force histories and peak deflections.
  peak = 0.0_dp; pstep = 1
  do j = 1, nshape                      ! bottom-chord gauge nodes along the span
    gnode(j) = 1 + int(real(j * npanel, dp) / real(nshape + 1, dp))
  end do
  do n = 1, nstep
    read(ida, rec=n) u
    do m = 1, nmemb
      hist(n, m) = member_force(u, m)
    end do
    do j = 1, nshape
      if (abs(u(2 * gnode(j))) > peak(j)) then
        peak(j) = abs(u(2 * gnode(j)))
        pstep(j) = n
      end if
    end do
  end do
  open(newunit=uenv, file=trim(dir) // '/member_envelope.txt', status='replace', action='write')
  write(uenv, '(a)') '# memb  node_a node_b   Nmin[kN]     Nmax[kN]     miner_damage'
  do m = 1, nmemb
    dmg = rainflow_damage(hist(:, m), nstep)
    write(uenv, '(i6,2i7,2f13.3,es16.6)') m, conn(:, m), minval(hist(:, m)) / 1e3_dp, &
         maxval(hist(:, m)) / 1e3_dp, dmg
  end do
  close(uenv)

  ! Pass 2: random access to the records of peak deflection.
  open(newunit=ushp, file=trim(dir) // '/deformed_shapes.txt', status='replace', action='write')
  do j = 1, nshape
    read(ida, rec=pstep(j)) u
    write(ushp, '(a,i3,a,i7,a,es12.4)') '# shape ', j, ' step ', pstep(j), ' peak ', peak(j)
    do i = 1, nnode
      write(ushp, '(i5,2f10.4,2es15.6)') i, x(i), y(i), u(2 * i - 1), u(2 * i)
    end do
  end do
  close(ushp)
  close(ida)
  print '(a,i5,a,i4,a,es12.4)', 'dof=', ndof, ' members=', nmemb, ' max |uy| mid-ish=', maxval(peak)
end program truss_newmark_da
