! Batch RNA secondary-structure prediction with a weighted Nussinov
! recursion. Sequences are written to and parsed from a FASTA-like text file;
! each fold is stored as a fixed-length record in a direct-access unformatted
! file, which is afterwards queried in shuffled order for helix statistics.
module rna_fold
  implicit none
  integer, parameter :: maxlen = 300, nseq = 420, minloop = 3
  integer, parameter :: dp = kind(1.0d0)

  type :: rna_seq
    character(len=32) :: name
    integer :: n = 0
    character(len=maxlen) :: s
  end type rna_seq

contains

  subroutine generate_sequences(path)
    character(len=*), intent(in) :: path
    integer :: u, i, k, n, hp
    integer(8) :: seed
    character(len=maxlen) :: s
    character(len=4), parameter :: alpha = 'ACGU'
    open(newunit=u, file=path, status='replace', action='write')
    seed = 20240611
    do i = 1, nseq
      seed = mod(seed * 48271_8, 2147483647_8)
      n = 140 + int(mod(seed, int(maxlen - 140 + 1, 8)))
      do k = 1, n
        seed = mod(seed * 48271_8, 2147483647_8)
        hp = int(mod(seed / 7, 4_8)) + 1
        s(k:k) = alpha(hp:hp)
      end do
      ! plant a few complementary stems so structures are non-trivial
      do hp = 1, 3
        seed = mod(seed * 48271_8, 2147483647_8)
        k = 1 + int(mod(seed, int(n - 40, 8)))
        call plant_stem(s, k, min(n, k + 30 + int(mod(seed / 3, 10_8))), 6)
      end do
      write(u, '(a,i4.4,a,i0)') '>rna_', i, ' len=', n
      do k = 1, n, 60
        write(u, '(a)') s(k:min(n, k + 59))
      end do
    end do
    close(u)
  end subroutine generate_sequences

  subroutine plant_stem(s, i0, j0, len)
    character(len=*), intent(inout) :: s
    integer, intent(in) :: i0, j0, len
    integer :: t
    do t = 0, len - 1
      select case (s(i0+t:i0+t))
      case ('A'); s(j0-t:j0-t) = 'U'
      case ('U'); s(j0-t:j0-t) = 'A'
      case ('G'); s(j0-t:j0-t) = 'C'
      case default; s(j0-t:j0-t) = 'G'
      end select
    end do
  end subroutine plant_stem

  subroutine read_sequences(path, seqs, count)
    character(len=*), intent(in) :: path
    type(rna_seq), intent(out) :: seqs(nseq)
    integer, intent(out) :: count
    character(len=128) :: line
    integer :: u, ios, l
    open(newunit=u, file=path, status='old', action='read')
    count = 0
    do
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      l = len_trim(line)
      if (l == 0) cycle
      if (line(1:1) == '>') then
        count = count + 1
        seqs(count)%name = line(2:index(line, ' ') - 1)
        seqs(count)%n = 0
      else
        seqs(count)%s(seqs(count)%n + 1 : seqs(count)%n + l) = line(1:l)
        seqs(count)%n = seqs(count)%n + l
      end if
    end do
    close(u)
  end subroutine read_sequences

  ! pairing weights indexed by base code A=1 C=2 G=3 U=4: GC 3, AU 2, GU 1
  subroutine encode_bases(sq, code)
    type(rna_seq), intent(in) :: sq
    integer, intent(out) :: code(maxlen)
    integer :: i
    do i = 1, sq%n
      code(i) = index('ACGU', sq%s(i:i))
    end do
  end subroutine encode_bases

  ! fill the DP table and trace back into partner(i) (0 = unpaired)
  subroutine nussinov_fold(sq, partner, score, f)
    type(rna_seq), intent(in) :: sq
    integer, intent(out) :: partner(maxlen), score
    integer, intent(inout) :: f(maxlen, maxlen)
    integer, allocatable :: w(:,:)
    integer :: n, i, j, k, d, best, stk(2, maxlen), top, code(maxlen)
    integer, parameter :: wtab(4,4) = reshape([0,0,0,2, 0,0,3,0, 0,3,0,1, 2,0,1,0], [4,4])
    n = sq%n
    allocate(w(n, n))
    call encode_bases(sq, code)
    do j = 1, n
      do i = 1, n
        w(i, j) = wtab(code(i), code(j))
      end do
    end do
    f(1:n, 1:n) = 0
    do d = minloop + 1, n - 1
      do i = 1, n - d
        j = i + d
        best = max(f(i+1, j), f(i, j-1))
        if (w(i, j) > 0) best = max(best, f(i+1, j-1) + w(i, j))
        do k = i + minloop + 1, j - 1
          best = max(best, f(i, k-1) + f(k, j))
        end do
        f(i, j) = best
      end do
    end do
    score = f(1, n)
    partner = 0
    top = 1; stk(:, 1) = [1, n]
    do while (top > 0)
      i = stk(1, top); j = stk(2, top); top = top - 1
      if (j - i <= minloop) cycle
      if (f(i, j) == f(i+1, j)) then
        top = top + 1; stk(:, top) = [i + 1, j]
      else if (f(i, j) == f(i, j-1)) then
        top = top + 1; stk(:, top) = [i, j - 1]
      else if (w(i, j) > 0 .and. f(i, j) == f(i+1, j-1) + w(i, j)) then
        partner(i) = j; partner(j) = i
        top = top + 1; stk(:, top) = [i + 1, j - 1]
      else
        do k = i + minloop + 1, j - 1
          if (f(i, j) == f(i, k-1) + f(k, j)) then
            top = top + 1; stk(:, top) = [i, k - 1]
            top = top + 1; stk(:, top) = [k, j]
            exit
          end if
        end do
      end if
    end do
  end subroutine nussinov_fold

  ! archive the upper-triangular DP table row by row (record = one row i)
  subroutine dump_dp_rows(u, first_rec, n, f)
    integer, intent(in) :: u, first_rec, n, f(maxlen, maxlen)
    integer :: i, row(maxlen)
    do i = 1, n
      row = 0
      row(i:n) = f(i, i:n)
      write(u, rec=first_rec + i - 1) row
    end do
  end subroutine dump_dp_rows

  ! re-read archived tables of every 3rd sequence and check consistency
  subroutine verify_dp_tables(u, seqs, count, first_rec, scores, nbad, ncells)
    integer, intent(in) :: u, count, first_rec(nseq), scores(nseq)
    type(rna_seq), intent(in) :: seqs(nseq)
    integer, intent(out) :: nbad
    integer(8), intent(out) :: ncells
    integer :: s, i, j, n, row(maxlen), prev(maxlen)
    nbad = 0; ncells = 0
    do s = 1, count, 3
      n = seqs(s)%n
      prev = 0
      do i = n, 1, -1
        read(u, rec=first_rec(s) + i - 1) row
        do j = i + 1, n
          if (row(j) < row(j-1)) nbad = nbad + 1
          if (i < n) then
            if (row(j) < prev(j)) nbad = nbad + 1
          end if
          if (row(j) > 0) ncells = ncells + 1
        end do
        prev = row
      end do
      if (row(n) /= scores(s)) nbad = nbad + 1
    end do
  end subroutine verify_dp_tables

  subroutine write_fold_record(u, rec, n, score, partner)
    integer, intent(in) :: u, rec, n, score, partner(maxlen)
    write(u, rec=rec) n, score, partner
  end subroutine write_fold_record

  ! query the direct-access file in a shuffled order; helix length histogram
  subroutine helix_statistics(u, count, hist, paired_frac)
    integer, intent(in) :: u, count
    integer, intent(out) :: hist(20)
    real(dp), intent(out) :: paired_frac
    integer :: order(nseq), i, j, t, r, n, score, partner(maxlen), run, npaired, ntot
    integer(8) :: seed
    order = [(i, i = 1, nseq)]
    seed = 17
    do i = count, 2, -1
      seed = mod(seed * 16807_8, 2147483647_8)
      j = 1 + int(mod(seed, int(i, 8)))
      t = order(i); order(i) = order(j); order(j) = t
    end do
    hist = 0; npaired = 0; ntot = 0
    do r = 1, count
      read(u, rec=order(r)) n, score, partner
      ntot = ntot + n
      run = 0
      do i = 1, n
        if (partner(i) > i) then
          npaired = npaired + 2
          if (run > 0 .and. i > 1) then
            if (partner(i-1) == partner(i) + 1) then
              run = run + 1
              cycle
            end if
          end if
          if (run > 0) hist(min(run, 20)) = hist(min(run, 20)) + 1
          run = 1
        end if
      end do
      if (run > 0) hist(min(run, 20)) = hist(min(run, 20)) + 1
    end do
    paired_frac = real(npaired, dp) / ntot
  end subroutine helix_statistics

  subroutine write_dot_bracket(u, sq, partner, score)
    integer, intent(in) :: u, partner(maxlen), score
    type(rna_seq), intent(in) :: sq
    character(len=maxlen) :: db
    integer :: i
    do i = 1, sq%n
      if (partner(i) == 0) then
        db(i:i) = '.'
      else if (partner(i) > i) then
        db(i:i) = '('
      else
        db(i:i) = ')'
      end if
    end do
    write(u, '(a,1x,a,i0,a)') '>' // trim(sq%name), '(score ', score, ')'
    write(u, '(a)') sq%s(1:sq%n)
    write(u, '(a)') db(1:sq%n)
  end subroutine write_dot_bracket

end module rna_fold

program rna_nussinov_batch
  use rna_fold
  implicit none
  character(len=512) :: dir
  type(rna_seq), allocatable :: seqs(:)
  integer :: count, i, score, partner(maxlen), ufold, udb, udp, reclen, rowlen, hist(20), total
  integer :: first_rec(nseq), scores(nseq), nbad, rowbuf(maxlen)
  integer, allocatable :: ftab(:,:)
  integer(8) :: ncells
  real(dp) :: pf

  if (command_argument_count() /= 1) stop 'usage: rna_nussinov_batch dir'
  call get_command_argument(1, dir)
  allocate(seqs(nseq))
  call generate_sequences(trim(dir) // '/sequences.fa')
  call read_sequences(trim(dir) // '/sequences.fa', seqs, count)

  inquire(iolength=reclen) count, score, partner
  open(newunit=ufold, file=trim(dir) // '/folds.da', access='direct', form='unformatted', &
       recl=reclen, status='replace', action='readwrite')
  open(newunit=udb, file=trim(dir) // '/structures.db', status='replace', action='write')
  inquire(iolength=rowlen) rowbuf
  open(newunit=udp, file=trim(dir) // '/dp_tables.da', access='direct', form='unformatted', &
       recl=rowlen, status='replace', action='readwrite')
  allocate(ftab(maxlen, maxlen))
  total = 0
  do i = 1, count
    call nussinov_fold(seqs(i), partner, score, ftab)
    first_rec(i) = 1
    if (i > 1) first_rec(i) = first_rec(i-1) + seqs(i-1)%n
    scores(i) = score
    call dump_dp_rows(udp, first_rec(i), seqs(i)%n, ftab)
    call write_fold_record(ufold, i, seqs(i)%n, score, partner)
    call write_dot_bracket(udb, seqs(i), partner, score)
    total = total + score
  end do
  close(udb)
  call helix_statistics(ufold, count, hist, pf)
  close(ufold)
  call verify_dp_tables(udp, seqs, count, first_rec, scores, nbad, ncells)
  close(udp)
  print '(a,i0,a,i0)', 'dp table check: inconsistencies ', nbad, ' nonzero cells ', ncells
  print '(a,i4,a,i8,a,f6.3)', 'folded ', count, ' total score ', total, ' paired fraction ', pf
  print '(a,20i5)', 'helix lengths:', hist
end program rna_nussinov_batch
