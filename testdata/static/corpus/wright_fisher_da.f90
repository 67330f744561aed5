! Wright-Fisher population genetics: many independent biallelic loci with
! selection and two-way mutation, sampled binomially each generation.
! Parameters are written to and read from a namelist file; allele
! frequency trajectories are stored as fixed-size blocks in a direct-access
! file (locus-major), then read back generation-major for the decay of
! heterozygosity and locus-major for fixation/loss times.
module wf_kinds
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: blk = 100
  integer :: popsize = 300, nloci = 360, ngen = 2000
  real(dp) :: sel = 0.004_dp, mu = 2.0e-5_dp, p0 = 0.2_dp
  namelist /wfpar/ popsize, nloci, ngen, sel, mu, p0
  integer(i8) :: rs = 1181783497276652981_i8
contains
  real(dp) function urand()
    rs = ieor(rs, ishft(rs, 13))
    rs = ieor(rs, ishft(rs, -7))
    rs = ieor(rs, ishft(rs, 17))
    urand = real(ishft(rs, -11), dp) * (1.0_dp / 9007199254740992.0_dp)
  end function urand
end module wf_kinds

program wright_fisher_da
  use wf_kinds
  use iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  interface
    integer(c_int) function c_mkdir(path, mode) bind(C, name='mkdir')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: mode
    end function c_mkdir
  end interface
  character(len=1024) :: dir
  character(len=1100) :: fnml, fda, fhet, ffix
  real(dp), allocatable :: het(:)
  integer :: ios

  if (command_argument_count() /= 1) stop 'usage: wright_fisher_da DIR'
  call get_command_argument(1, dir)
  ios = c_mkdir(trim(dir) // c_null_char, int(o'755', c_int))
  fnml = trim(dir) // '/wf.nml'
  fda = trim(dir) // '/trajectories.da'
  fhet = trim(dir) // '/heterozygosity.csv'
  ffix = trim(dir) // '/fixation.txt'

  call write_config(fnml)
  popsize = 0; nloci = 0; ngen = 0
  call read_config(fnml)
  call simulate_all(fda)
  allocate(het(0:ngen - 1))
  call heterozygosity_curve(fda, het)
  call write_het(fhet, het)
  call fixation_scan(fda, ffix)

contains

  subroutine write_config(path)
    character(len=*), intent(in) :: path
    integer :: u, ios
    open(newunit=u, file=path, status='replace', action='write', delim='apostrophe', iostat=ios)
    if (ios /= 0) stop 'cannot write namelist'
    write(u, nml=wfpar)
    close(u)
  end subroutine write_config

  subroutine read_config(path)
    character(len=*), intent(in) :: path
    integer :: u, ios
    open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) stop 'cannot open namelist'
    read(u, nml=wfpar, iostat=ios)
    if (ios /= 0) stop 'bad namelist'
    close(u)
    if (mod(ngen, blk) /= 0) stop 'ngen must be a multiple of blk'
  end subroutine read_config

  ! blk generations of selection+mutation followed by binomial drift
  ! (n Bernoulli draws from an inline xorshift); k is the allele count
  subroutine evolve_block(k, n, s, m, traj)
    integer, intent(inout) :: k
    integer, intent(in) :: n
    real(dp), intent(in) :: s, m
    real(dp), intent(out) :: traj(blk)
    real(dp) :: p, pw
    integer :: i, c, g
    integer(i8) :: x
    x = rs
    do g = 1, blk
      p = real(k, dp) / n
      pw = p * (1.0_dp + s) / (1.0_dp + s * p)
      pw = pw * (1.0_dp - m) + (1.0_dp - pw) * m
      c = 0
      do i = 1, n
        x = ieor(x, ishft(x, 13)); x = ieor(x, ishft(x, -7)); x = ieor(x, ishft(x, 17))
        if (real(ishft(x, -11), dp) * (1.0_dp / 9007199254740992.0_dp) < pw) c = c + 1
      end do
      k = c
      traj(g) = real(k, dp) / n
    end do
    rs = x
  end subroutine evolve_block

  subroutine simulate_all(path)
    character(len=*), intent(in) :: path
    real(dp) :: traj(blk), s_loc
    integer :: u, reclen, ios, l, b, k, n2
    inquire(iolength=reclen) traj
    open(newunit=u, file=path, access='direct', form='unformatted', recl=reclen, status='replace', iostat=ios)
    if (ios /= 0) stop 'cannot create trajectory file'
    n2 = 2 * popsize
    do l = 1, nloci
      ! selection coefficient varies across loci: neutral, beneficial, deleterious
      s_loc = sel * real(mod(l, 3) - 1, dp) * (1.0_dp + 0.5_dp * urand())
      k = nint(p0 * n2)
      do b = 1, ngen / blk
        call evolve_block(k, n2, s_loc, mu, traj)
        write(u, rec=(l - 1) * (ngen / blk) + b, iostat=ios) traj
        if (ios /= 0) stop 'trajectory write error'
      end do
    end do
    close(u)
  end subroutine simulate_all

  ! generation-major pass: for each block, visit every locus record
  subroutine heterozygosity_curve(path, het)
    character(len=*), intent(in) :: path
    real(dp), intent(out) :: het(0:ngen - 1)
    real(dp) :: traj(blk)
    integer :: u, reclen, ios, l, b, g, nb
    inquire(iolength=reclen) traj
    open(newunit=u, file=path, access='direct', form='unformatted', recl=reclen, status='old', &
         action='read', iostat=ios)
    if (ios /= 0) stop 'cannot open trajectory file'
    nb = ngen / blk
    het = 0.0_dp
    do b = 1, nb
      do l = 1, nloci
        read(u, rec=(l - 1) * nb + b, iostat=ios) traj
        if (ios /= 0) stop 'trajectory read error'
        do g = 1, blk
          het((b - 1) * blk + g - 1) = het((b - 1) * blk + g - 1) + 2.0_dp * traj(g) * (1.0_dp - traj(g))
        end do
      end do
    end do
    close(u)
    het = het / nloci
  end subroutine heterozygosity_curve

  subroutine write_het(path, het)
    character(len=*), intent(in) :: path
    real(dp), intent(in) :: het(0:ngen - 1)
    integer :: u, g, ios
    real(dp) :: h0
    open(newunit=u, file=path, status='replace', action='write', iostat=ios)
    if (ios /= 0) stop 'cannot write het'
    write(u, '(a)') 'generation,mean_H,neutral_expectation'
    h0 = 2.0_dp * p0 * (1.0_dp - p0)
    do g = 0, ngen - 1
      write(u, '(i6,",",f10.6,",",f10.6)') g + 1, het(g), h0 * (1.0_dp - 1.0_dp / (2 * popsize))**(g + 1)
    end do
    close(u)
  end subroutine write_het

  ! locus-major pass with early exit once absorbed
  subroutine fixation_scan(path, outp)
    character(len=*), intent(in) :: path, outp
    real(dp) :: traj(blk)
    integer :: u, uo, reclen, ios, l, b, g, nb, tabs, cls
    integer :: nfix(0:2), nlost(0:2), nseg(0:2)
    real(dp) :: tfix(0:2)
    inquire(iolength=reclen) traj
    open(newunit=u, file=path, access='direct', form='unformatted', recl=reclen, status='old', &
         action='read', iostat=ios)
    if (ios /= 0) stop 'cannot open trajectory file'
    nb = ngen / blk
    nfix = 0; nlost = 0; nseg = 0; tfix = 0.0_dp
    do l = 1, nloci
      cls = mod(l, 3)
      tabs = -1
      scan: do b = 1, nb
        read(u, rec=(l - 1) * nb + b, iostat=ios) traj
        if (ios /= 0) stop 'trajectory read error'
        do g = 1, blk
          if (traj(g) >= 1.0_dp .or. traj(g) <= 0.0_dp) then
            tabs = (b - 1) * blk + g
            if (traj(g) >= 1.0_dp) then
              nfix(cls) = nfix(cls) + 1
              tfix(cls) = tfix(cls) + tabs
            else
              nlost(cls) = nlost(cls) + 1
            end if
            exit scan
          end if
        end do
      end do scan
      if (tabs < 0) nseg(cls) = nseg(cls) + 1
    end do
    close(u)
    open(newunit=uo, file=outp, status='replace', action='write', iostat=ios)
    if (ios /= 0) stop 'cannot write fixation report'
    write(uo, '(a)') 'class        fixed   lost  segregating  mean_fix_time'
    write(uo, '(a12,3i8,f14.1)') 'deleterious', nfix(0), nlost(0), nseg(0), tfix(0) / max(1, nfix(0))
    write(uo, '(a12,3i8,f14.1)') 'neutral', nfix(1), nlost(1), nseg(1), tfix(1) / max(1, nfix(1))
    write(uo, '(a12,3i8,f14.1)') 'beneficial', nfix(2), nlost(2), nseg(2), tfix(2) / max(1, nfix(2))
    close(uo)
    print '(a,3i5,a,3i5)', 'fixed (del/neu/ben):', nfix, '  lost:', nlost
  end subroutine fixation_scan

end program wright_fisher_da
