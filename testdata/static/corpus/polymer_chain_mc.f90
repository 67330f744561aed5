! polymer_chain_mc: pivot-algorithm Monte Carlo of a self-avoiding walk on
! the simple cubic lattice.  Every SAMPLE_EVERY pivot attempts the current
! conformation is stored as one fixed-length record of a direct-access file.
! The analysis stage re-opens the file and (a) reads the records in a
! scrambled order to accumulate radius-of-gyration and end-to-end statistics,
! (b) reads them sequentially to compute the autocorrelation of R_ee^2, and
! (c) reads a strided subset to compute the spherically averaged structure
! factor S(q).  Results go to formatted text files.
module saw_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nmono = 256
  integer, parameter :: n_records = 2600
  integer, parameter :: sample_every = 40
  integer, parameter :: hash_size = 4096
  integer :: chain(3, 0:nmono - 1)
  integer :: rot(3, 3, 48)
  integer :: hx(16, hash_size), hcount(hash_size)   ! open hash of occupied sites
  integer(8) :: seed = 88172645463325252_8
contains

  function rand01() result(r)
    real(dp) :: r
    seed = ieor(seed, ishft(seed, 13))
    seed = ieor(seed, ishft(seed, -7))
    seed = ieor(seed, ishft(seed, 17))
    r = real(iand(ishft(seed, -11), 9007199254740991_8), dp) / 9007199254740992.0_dp
  end function rand01

  ! all 48 signed permutation matrices of the cubic point group
  subroutine build_symmetries()
    integer :: p(3, 6), ip, sx, sy, sz, k
    p = reshape([1,2,3, 1,3,2, 2,1,3, 2,3,1, 3,1,2, 3,2,1], [3, 6])
    k = 0
    do ip = 1, 6
      do sx = -1, 1, 2
        do sy = -1, 1, 2
          do sz = -1, 1, 2
            k = k + 1
            rot(:, :, k) = 0
            rot(1, p(1, ip), k) = sx
            rot(2, p(2, ip), k) = sy
            rot(3, p(3, ip), k) = sz
          end do
        end do
      end do
    end do
  end subroutine build_symmetries

  pure integer function site_hash(x, y, z)
    integer, intent(in) :: x, y, z
    site_hash = iand(x * 73856093 + y * 19349663 + z * 83492791, hash_size - 1) + 1
  end function site_hash

  ! Attempt one pivot move; returns .true. if accepted
  logical function pivot_move()
    integer :: piv, k, m, i, h, slot
    integer :: newc(3, 0:nmono - 1)
    logical :: keep_head
    piv = 1 + int(rand01() * (nmono - 2))
    k = 2 + int(rand01() * 47)           ! skip identity
    keep_head = rand01() < 0.5_dp
    newc = chain
    if (keep_head) then
      do i = piv + 1, nmono - 1
        newc(:, i) = chain(:, piv) + matmul(rot(:, :, k), chain(:, i) - chain(:, piv))
      end do
    else
      do i = 0, piv - 1
        newc(:, i) = chain(:, piv) + matmul(rot(:, :, k), chain(:, i) - chain(:, piv))
      end do
    end if
    ! self-avoidance check with a small open hash of monomer indices
    hcount = 0
    pivot_move = .true.
    do i = 0, nmono - 1
      h = site_hash(newc(1, i), newc(2, i), newc(3, i))
      do m = 1, hcount(h)
        slot = hx(m, h)
        if (all(newc(:, slot) == newc(:, i))) then
          pivot_move = .false.
          return
        end if
      end do
      if (hcount(h) < 16) then
        hcount(h) = hcount(h) + 1
        hx(hcount(h), h) = i
      end if
    end do
    chain = newc
  end function pivot_move

  subroutine run_sampler(path, log_path, acc_rate)
    character(*), intent(in) :: path, log_path
    real(dp), intent(out) :: acc_rate
    integer :: u, ul, i, rec, nacc, ntry, reclen
    do i = 0, nmono - 1
      chain(:, i) = [i, 0, 0]
    end do
    inquire(iolength=reclen) chain
    open(newunit=u, file=path, access='direct', form='unformatted', recl=reclen, status='replace')
    open(newunit=ul, file=log_path, status='replace', action='write')
    nacc = 0; ntry = 0
    ! equilibration
    do i = 1, 4000
      if (pivot_move()) nacc = nacc + 1
    end do
    do rec = 1, n_records
      do i = 1, sample_every
        ntry = ntry + 1
        if (pivot_move()) nacc = nacc + 1
      end do
      write(u, rec=rec) chain
      if (mod(rec, 200) == 0) then
        write(ul, '(a,i6,a,f7.4)') 'record ', rec, ' acceptance ', real(nacc, dp) / (ntry + 4000)
        flush(ul)
      end if
    end do
    acc_rate = real(nacc, dp) / (ntry + 4000)
    close(u)
    close(ul)
  end subroutine run_sampler

  subroutine conformation_stats(c, rg2, ree2)
    integer, intent(in) :: c(3, 0:nmono - 1)
    real(dp), intent(out) :: rg2, ree2
    real(dp) :: cm(3)
    integer :: i
    cm = sum(real(c, dp), dim=2) / nmono
    rg2 = 0
    do i = 0, nmono - 1
      rg2 = rg2 + sum((real(c(:, i), dp) - cm)**2)
    end do
    rg2 = rg2 / nmono
    ree2 = real(sum((c(:, nmono - 1) - c(:, 0))**2), dp)
  end subroutine conformation_stats

  subroutine scrambled_statistics(path, out_path, ree2_series)
    character(*), intent(in) :: path, out_path
    real(dp), intent(out) :: ree2_series(n_records)
    integer :: u, uo, k, rec, reclen, c(3, 0:nmono - 1)
    real(dp) :: rg2, ree2, s_rg, s_ree, s_rg2
    inquire(iolength=reclen) c
    open(newunit=u, file=path, access='direct', form='unformatted', recl=reclen, status='old', action='read')
    s_rg = 0; s_ree = 0; s_rg2 = 0
    do k = 0, n_records - 1
      rec = 1 + mod(k * 1597, n_records)           ! 1597 is coprime with n_records
      read(u, rec=rec) c
      call conformation_stats(c, rg2, ree2)
      ree2_series(rec) = ree2
      s_rg = s_rg + rg2; s_rg2 = s_rg2 + rg2 * rg2; s_ree = s_ree + ree2
    end do
    close(u)
    open(newunit=uo, file=out_path, status='replace', action='write')
    write(uo, '(a,i0,a,i0)') 'N = ', nmono, '  samples = ', n_records
    write(uo, '(a,f12.4,a,f10.4)') '<Rg^2>  = ', s_rg / n_records, '  +- ', &
         sqrt(max(s_rg2 / n_records - (s_rg / n_records)**2, 0.0_dp) / n_records)
    write(uo, '(a,f12.4)') '<Ree^2> = ', s_ree / n_records
    write(uo, '(a,f8.4)') 'ratio   = ', s_ree / s_rg
    write(uo, '(a,f8.4)') 'nu_est  = ', 0.5_dp * log(s_ree / n_records) / log(real(nmono - 1, dp))
    close(uo)
  end subroutine scrambled_statistics

  subroutine autocorrelation(path, out_path)
    character(*), intent(in) :: path, out_path
    integer :: u, uo, rec, reclen, lag, c(3, 0:nmono - 1)
    real(dp) :: x(n_records), rg2, mean, var, acf
    inquire(iolength=reclen) c
    open(newunit=u, file=path, access='direct', form='unformatted', recl=reclen, status='old', action='read')
    do rec = 1, n_records
      read(u, rec=rec) c
      call conformation_stats(c, rg2, x(rec))
    end do
    close(u)
    mean = sum(x) / n_records
    var = sum((x - mean)**2) / n_records
    open(newunit=uo, file=out_path, status='replace', action='write')
    write(uo, '(a)') '# lag  C(lag) for Ree^2'
    do lag = 0, 200
      acf = sum((x(1:n_records - lag) - mean) * (x(1 + lag:n_records) - mean)) / ((n_records - lag) * var)
      write(uo, '(i5,f10.5)') lag, acf
    end do
    close(uo)
  end subroutine autocorrelation

  subroutine structure_factor(path, out_path, stride)
    character(*), intent(in) :: path, out_path
    integer, intent(in) :: stride
    integer, parameter :: nq = 60
    integer :: u, uo, rec, reclen, i, j, iq, c(3, 0:nmono - 1), nused
    real(dp) :: sq(nq), q, r, d(3)
    inquire(iolength=reclen) c
    open(newunit=u, file=path, access='direct', form='unformatted', recl=reclen, status='old', action='read')
    sq = 0; nused = 0
    do rec = stride, n_records, stride
      read(u, rec=rec) c
      nused = nused + 1
      do i = 0, nmono - 1
        do j = i + 1, nmono - 1
          d = real(c(:, i) - c(:, j), dp)
          r = sqrt(sum(d * d))
          do iq = 1, nq
            q = 0.05_dp * iq
            sq(iq) = sq(iq) + 2.0_dp * sin(q * r) / (q * r)
          end do
        end do
      end do
    end do
    close(u)
    sq = 1.0_dp + sq / (real(nmono, dp) * nused)
    open(newunit=uo, file=out_path, status='replace', action='write')
    write(uo, '(a)') '# q   S(q)'
    do iq = 1, nq
      write(uo, '(f7.3,es14.5)') 0.05_dp * iq, sq(iq)
    end do
    close(uo)
  end subroutine structure_factor

end module saw_mod

program polymer_chain_mc
  use saw_mod
  implicit none
  character(len=512) :: dir
  real(dp) :: acc, ree2(n_records)
  call get_command_argument(1, dir)
  if (len_trim(dir) == 0) stop 'usage: polymer_chain_mc dir'
  call build_symmetries()
  call run_sampler(trim(dir)//'/conformations.da', trim(dir)//'/sampler.log', acc)
  call scrambled_statistics(trim(dir)//'/conformations.da', trim(dir)//'/chain_stats.txt', ree2)
  call autocorrelation(trim(dir)//'/conformations.da', trim(dir)//'/ree_acf.txt')
  call structure_factor(trim(dir)//'/conformations.da', trim(dir)//'/structure_factor.txt', 13)
end program polymer_chain_mc
