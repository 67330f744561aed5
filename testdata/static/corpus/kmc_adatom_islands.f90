! Kinetic Monte Carlo (n-fold way) of submonolayer epitaxial growth:
! atoms are deposited on a periodic square lattice and hop with a rate set
! by their number of lateral bonds. Lattice snapshots go to a stream-access
! file whose header is patched with the final count; a formatted progress
! log is flushed as the run goes. The snapshots are then re-read by
! computed byte position, islands labelled with union-find, and island
! size distributions written as text.
module kmc_state
  implicit none
  integer, parameter :: dp = kind(1.0d0), i1 = selected_int_kind(2), i8 = selected_int_kind(18)
  integer, parameter :: nl = 384, nsite = nl * nl
  real(dp), parameter :: flux = 1.0_dp            ! monolayers per unit time
  real(dp), parameter :: rate(0:4) = [5.0e5_dp, 5.0e3_dp, 5.0_dp, 0.01_dp, 0.0_dp]
  real(dp), parameter :: cov_end = 0.30_dp, cov_snap = 0.01_dp
  integer, parameter :: log_every = 10000, hdr_bytes = 12
  integer(i1) :: occ(0:nsite - 1)
  integer :: nb(0:3, 0:nsite - 1)                 ! neighbour table
  integer :: cls(0:nsite - 1), where(0:nsite - 1)
  integer :: members(nsite, 0:4), ncls(0:4)
end module kmc_state

program kmc_adatom_islands
  use kmc_state
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
  integer :: nsnap
  integer(c_int) :: rc

  if (command_argument_count() /= 1) stop 'usage: kmc_adatom_islands DIR'
  call get_command_argument(1, dir)
  rc = c_mkdir(trim(dir) // c_null_char, int(o'755', c_int))
  call init_neighbours()
  call run_kmc(trim(dir) // '/lattice.stream', trim(dir) // '/progress.log', nsnap)
  call patch_header(trim(dir) // '/lattice.stream', nsnap)
  call analyze(trim(dir) // '/lattice.stream', trim(dir) // '/islands.txt')

contains

  subroutine init_neighbours()
    integer :: s, x, y
    do s = 0, nsite - 1
      x = mod(s, nl)
      y = s / nl
      nb(0, s) = y * nl + mod(x + 1, nl)
      nb(1, s) = y * nl + mod(x - 1 + nl, nl)
      nb(2, s) = mod(y + 1, nl) * nl + x
      nb(3, s) = mod(y - 1 + nl, nl) * nl + x
    end do
  end subroutine init_neighbours

  subroutine run_kmc(fsnap, flog, nsnap)
    character(len=*), intent(in) :: fsnap, flog
    integer, intent(out) :: nsnap
    real(dp) :: t, rdep, rtot, pick, cov, next_snap, u
    integer(i8) :: nev, nhop, ndep, rs
    integer :: us, ul, c, s, d, tgt, ios, na, j, q, cnew, last
    integer :: aff(10)
    occ = 0
    cls = -1
    ncls = 0
    t = 0.0_dp
    nev = 0; nhop = 0; ndep = 0
    nsnap = 0
    rs = 88172645463325252_i8
    next_snap = cov_snap
    rdep = flux * nsite
    open(newunit=us, file=fsnap, access='stream', form='unformatted', status='replace', iostat=ios)
    if (ios /= 0) stop 'cannot create snapshot file'
    write(us) int(nl, 4), int(nl, 4), int(0, 4)          ! count patched later
    open(newunit=ul, file=flog, status='replace', action='write', iostat=ios)
    if (ios /= 0) stop 'cannot create log'
    write(ul, '(a)') '#      events        time   coverage  monomers  bonded'
    do
      rtot = rdep
      do c = 0, 3
        rtot = rtot + rate(c) * ncls(c)
      end do
      ! three uniform deviates from an inline xorshift64
      rs = ieor(rs, ishft(rs, 13)); rs = ieor(rs, ishft(rs, -7)); rs = ieor(rs, ishft(rs, 17))
      u = real(ishft(rs, -11), dp) / 9007199254740992.0_dp
      t = t - log(max(u, 1.0e-300_dp)) / rtot
      rs = ieor(rs, ishft(rs, 13)); rs = ieor(rs, ishft(rs, -7)); rs = ieor(rs, ishft(rs, 17))
      pick = real(ishft(rs, -11), dp) / 9007199254740992.0_dp * rtot
      rs = ieor(rs, ishft(rs, 13)); rs = ieor(rs, ishft(rs, -7)); rs = ieor(rs, ishft(rs, 17))
      u = real(ishft(rs, -11), dp) / 9007199254740992.0_dp
      na = 0
      if (pick < rdep) then
        s = min(int(u * nsite), nsite - 1)
        if (occ(s) == 0) then
          occ(s) = 1
          aff(1) = s
          aff(2:5) = nb(:, s)
          na = 5
          ndep = ndep + 1
        end if
      else
        pick = pick - rdep
        do c = 0, 3
          if (pick < rate(c) * ncls(c)) exit
          pick = pick - rate(c) * ncls(c)
        end do
        c = min(c, 3)
        s = members(min(int(pick / rate(c)) + 1, ncls(c)), c)
        d = min(int(u * 4), 3)
        tgt = nb(d, s)
        if (occ(tgt) == 0) then
          occ(s) = 0
          occ(tgt) = 1
          aff(1) = s
          aff(2:5) = nb(:, s)
          aff(6) = tgt
          aff(7:10) = nb(:, tgt)
          na = 10
          nhop = nhop + 1
        end if
      end if
      ! reclassify every touched site by its bond count (or remove if empty)
      do j = 1, na
        q = aff(j)
        if (occ(q) == 1) then
          cnew = occ(nb(0, q)) + occ(nb(1, q)) + occ(nb(2, q)) + occ(nb(3, q))
        else
          cnew = -1
        end if
        if (cnew == cls(q)) cycle
        if (cls(q) >= 0) then
          last = members(ncls(cls(q)), cls(q))
          members(where(q), cls(q)) = last
          where(last) = where(q)
          ncls(cls(q)) = ncls(cls(q)) - 1
        end if
        if (cnew >= 0) then
          ncls(cnew) = ncls(cnew) + 1
          members(ncls(cnew), cnew) = q
          where(q) = ncls(cnew)
        end if
        cls(q) = cnew
      end do
      nev = nev + 1
      cov = real(ndep, dp) / nsite
      if (mod(nev, int(log_every, i8)) == 0) then
        write(ul, '(i14,es12.4,f11.5,2i10)') nev, t, cov, ncls(0), sum(ncls(1:4))
        flush(ul)
      end if
      if (cov >= next_snap) then
        write(us) t, cov, occ
        nsnap = nsnap + 1
        next_snap = next_snap + cov_snap
        if (cov >= cov_end - 1.0e-9_dp) exit
      end if
    end do
    close(us)
    close(ul)
    print '(a,i10,a,i9,a,i4)', 'kmc events', nev, ' hops', nhop, ' snapshots', nsnap
  end subroutine run_kmc

  subroutine patch_header(fsnap, nsnap)
    character(len=*), intent(in) :: fsnap
    integer, intent(in) :: nsnap
    integer :: u, ios
    open(newunit=u, file=fsnap, access='stream', form='unformatted', status='old', action='readwrite', iostat=ios)
    if (ios /= 0) stop 'cannot reopen snapshot file'
    write(u, pos=9) int(nsnap, 4)
    close(u)
  end subroutine patch_header

  ! union-find with path halving over +x/+y bonds; returns size per root
  subroutine label_islands(lat, sizes, nisl)
    integer(i1), intent(in) :: lat(0:nsite - 1)
    integer, intent(out) :: sizes(0:nsite - 1), nisl
    integer, allocatable :: parent(:)
    integer :: s, d, a, b
    allocate(parent(0:nsite - 1))
    do s = 0, nsite - 1
      parent(s) = s
    end do
    do s = 0, nsite - 1
      if (lat(s) == 0) cycle
      do d = 0, 2, 2
        if (lat(nb(d, s)) == 0) cycle
        a = s
        do while (parent(a) /= a)
          parent(a) = parent(parent(a))
          a = parent(a)
        end do
        b = nb(d, s)
        do while (parent(b) /= b)
          parent(b) = parent(parent(b))
          b = parent(b)
        end do
        if (a /= b) parent(max(a, b)) = min(a, b)
      end do
    end do
    sizes = 0
    nisl = 0
    do s = 0, nsite - 1
      if (lat(s) == 0) cycle
      a = s
      do while (parent(a) /= a)
        a = parent(a)
      end do
      if (sizes(a) == 0) nisl = nisl + 1
      sizes(a) = sizes(a) + 1
    end do
    deallocate(parent)
  end subroutine label_islands

  subroutine analyze(fsnap, fout)
    character(len=*), intent(in) :: fsnap, fout
    integer(i1), allocatable :: lat(:)
    integer, allocatable :: sizes(:)
    integer :: u, uo, ios, n1, n2, ns, k, nisl, s, smax, h
    integer(i8) :: pos, recbytes
    real(dp) :: t, cov, mean_s
    integer :: hist(0:12)
    allocate(lat(0:nsite - 1), sizes(0:nsite - 1))
    open(newunit=u, file=fsnap, access='stream', form='unformatted', status='old', action='read', iostat=ios)
    if (ios /= 0) stop 'cannot open snapshots'
    read(u) n1, n2, ns
    if (n1 /= nl .or. n2 /= nl) stop 'lattice size mismatch'
    recbytes = 16_i8 + int(nsite, i8)
    open(newunit=uo, file=fout, status='replace', action='write', iostat=ios)
    if (ios /= 0) stop 'cannot create island report'
    write(uo, '(a)') '# snap   coverage  islands  mean_size  max_size  log2-size histogram'
    ! newest first, to exercise positioned reads
    do k = ns, 1, -1
      pos = hdr_bytes + (k - 1) * recbytes + 1
      read(u, pos=pos, iostat=ios) t, cov, lat
      if (ios /= 0) stop 'snapshot read error'
      call label_islands(lat, sizes, nisl)
      hist = 0
      smax = 0
      mean_s = 0.0_dp
      do s = 0, nsite - 1
        if (sizes(s) == 0) cycle
        h = min(12, floor(log(real(sizes(s), dp)) / log(2.0_dp) + 1.0e-9_dp))
        hist(h) = hist(h) + 1
        smax = max(smax, sizes(s))
        mean_s = mean_s + sizes(s)
      end do
      if (nisl > 0) mean_s = mean_s / nisl
      write(uo, '(i6,f11.5,i9,f11.2,i10,13i6)') k, cov, nisl, mean_s, smax, hist
    end do
    close(u)
    close(uo)
    deallocate(lat, sizes)
  end subroutine analyze

end program kmc_adatom_islands
