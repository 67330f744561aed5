! 2-D Ising model, checkerboard Metropolis at a series of temperatures. Spin snapshots
! go to one unformatted sequential file per temperature; a post-processing pass reads
! them back to compute the spin-spin correlation function and magnetisation statistics.
module ising_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: L = 128
  integer, parameter :: ntemps = 8
  integer, parameter :: nequil = 150
  integer, parameter :: nmeas = 300
  integer, parameter :: snap_every = 2
  integer, parameter :: rmax = L / 2
  integer(kind=1) :: spin(L, L)
  integer :: rng_state = 20240611
contains

  real(dp) function urand()
    ! Park-Miller minimal standard generator (Schrage's method)
    integer, parameter :: a = 16807, m = 2147483647, q = 127773, r = 2836
    integer :: hi, lo
    hi = rng_state / q
    lo = mod(rng_state, q)
    rng_state = a * lo - r * hi
    if (rng_state <= 0) rng_state = rng_state + m
    urand = real(rng_state, dp) / real(m, dp)
  end function urand

  subroutine init_spins()
    integer :: i, j
    do j = 1, L
      do i = 1, L
        if (urand() < 0.5_dp) then
          spin(i, j) = 1_1
        else
          spin(i, j) = -1_1
        end if
      end do
    end do
  end subroutine init_spins

  subroutine sweep(beta)
    real(dp), intent(in) :: beta
    real(dp) :: boltz(-4:4)
    integer :: i, j, color, nb, s, ip, im, jp, jm
    do nb = -4, 4
      boltz(nb) = exp(-2.0_dp * beta * nb)
    end do
    do color = 0, 1
      do j = 1, L
        jp = merge(1, j + 1, j == L)
        jm = merge(L, j - 1, j == 1)
        do i = 1 + mod(j + color, 2), L, 2
          ip = merge(1, i + 1, i == L)
          im = merge(L, i - 1, i == 1)
          s = spin(i, j)
          nb = s * (spin(ip, j) + spin(im, j) + spin(i, jp) + spin(i, jm))
          if (nb <= 0) then
            spin(i, j) = int(-s, 1)
          else if (urand() < boltz(nb)) then
            spin(i, j) = int(-s, 1)
          end if
        end do
      end do
    end do
  end subroutine sweep

  subroutine observables(e, m)
    real(dp), intent(out) :: e, m
    integer :: i, j, esum, msum
    esum = 0
    msum = 0
    do j = 1, L
      do i = 1, L
        esum = esum - spin(i, j) * (spin(mod(i, L) + 1, j) + spin(i, mod(j, L) + 1))
        msum = msum + spin(i, j)
      end do
    end do
    e = real(esum, dp) / (L * L)
    m = real(msum, dp) / (L * L)
  end subroutine observables

  subroutine simulate(dir, temps)
    character(len=*), intent(in) :: dir
    real(dp), intent(in) :: temps(ntemps)
    integer :: it, k, usnap, ulog
    real(dp) :: beta, e, m
    character(len=600) :: fname
    open(newunit=ulog, file=dir//'/observables.dat', status='replace', action='write')
    write(ulog, '(a)') '# T  sweep  energy  magnetisation'
    call init_spins()
    do it = 1, ntemps
      beta = 1.0_dp / temps(it)
      do k = 1, nequil
        call sweep(beta)
      end do
      write(fname, '(a,a,i2.2,a)') dir, '/snaps_T', it, '.bin'
      open(newunit=usnap, file=trim(fname), form='unformatted', access='sequential', &
           status='replace', action='write')
      write(usnap) L, temps(it), nmeas / snap_every
      do k = 1, nmeas
        call sweep(beta)
        call observables(e, m)
        write(ulog, '(f8.4,i7,2f12.6)') temps(it), k, e, m
        if (mod(k, snap_every) == 0) write(usnap) k, spin
      end do
      close(usnap)
    end do
    close(ulog)
  end subroutine simulate

  subroutine correlations(dir, temps)
    character(len=*), intent(in) :: dir
    real(dp), intent(in) :: temps(ntemps)
    integer :: it, k, u, uout, lread, nsnap, ksweep, r, i, j
    real(dp) :: t, corr(0:rmax), m, msum, m2sum, m4sum, binder, xi
    integer(kind=1) :: s(L, L)
    character(len=600) :: fname
    open(newunit=uout, file=dir//'/correlations.dat', status='replace', action='write')
    do it = 1, ntemps
      write(fname, '(a,a,i2.2,a)') dir, '/snaps_T', it, '.bin'
      open(newunit=u, file=trim(fname), form='unformatted', access='sequential', &
           status='old', action='read')
      read(u) lread, t, nsnap
      if (lread /= L .or. abs(t - temps(it)) > 1.0e-12_dp) then
        write(0, '(a)') 'ising_snapshots: snapshot header mismatch in '//trim(fname)
        error stop 1
      end if
      corr = 0.0_dp
      msum = 0.0_dp; m2sum = 0.0_dp; m4sum = 0.0_dp
      do k = 1, nsnap
        read(u) ksweep, s
        m = abs(real(sum(int(s)), dp)) / (L * L)
        msum = msum + m
        m2sum = m2sum + m * m
        m4sum = m4sum + m**4
        do r = 0, rmax
          do j = 1, L
            do i = 1, L
              corr(r) = corr(r) + s(i, j) * (s(mod(i - 1 + r, L) + 1, j) + s(i, mod(j - 1 + r, L) + 1))
            end do
          end do
        end do
      end do
      close(u)
      corr = corr / (2.0_dp * L * L * nsnap) - (msum / nsnap)**2
      binder = 1.0_dp - (m4sum / nsnap) / (3.0_dp * (m2sum / nsnap)**2)
      xi = 0.0_dp
      do r = 1, rmax
        if (corr(r) > 0.0_dp .and. corr(0) > 0.0_dp) xi = xi + corr(r) / corr(0)
      end do
      write(uout, '(a,f8.4,a,f10.6,a,f10.6,a,f10.4)') '# T=', t, ' <|m|>=', msum / nsnap, &
           ' U4=', binder, ' xi_sum=', xi
      do r = 0, rmax
        write(uout, '(i5,es16.7)') r, corr(r)
      end do
      write(uout, *)
    end do
    close(uout)
  end subroutine correlations

end module ising_mod

program ising_snapshots
  use ising_mod
  implicit none
  character(len=512) :: dir
  real(dp) :: temps(ntemps)
  integer :: k
  if (command_argument_count() /= 1) then
    write(0, '(a)') 'usage: ising_snapshots DIR'
    error stop 2
  end if
  call get_command_argument(1, dir)
  call execute_command_line('mkdir -p "'//trim(dir)//'"')
  do k = 1, ntemps
    temps(k) = 3.2_dp - 0.2_dp * (k - 1)
  end do
  call simulate(trim(dir), temps)
  call correlations(trim(dir), temps)
  print '(a,i0,a)', 'analysed ', ntemps, ' temperatures'
end program ising_snapshots
