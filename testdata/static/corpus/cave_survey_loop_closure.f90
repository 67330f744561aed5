! cave_survey_loop_closure.f90
!
! Reduction of a large cave survey.  The program first writes the data a
! survey team would hand in: a NAMELIST project file and one Compass-style
! text file per survey trip (header block with declination and instrument
! corrections, then FROM/TO/LENGTH/BEARING/INC/LRUD shot lines; a few
! blunders included).  The reduction then reads the project with
! NAMELIST input, parses every trip file line by line (keywords located
! with INDEX, numbers taken by internal list-directed READs), builds the
! station graph with a string hash table, reduces it to a network of
! junctions joined by traverses, prunes dangling branches, solves the
! weighted least-squares loop closure on the core network by conjugate
! gradients, re-weights traverses with large standardised misclosures
! (blunder detection), distributes misclosures along traverses, and
! writes station coordinates, shot residuals, a loop report and an SVG
! plan with passage walls.  A processing log is appended to
! (POSITION='APPEND') after each stage.
!
! usage: cave_survey_loop_closure OUTDIR
program cave_survey_loop_closure
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: maxst = 60000, maxsh = 64000, maxpass = 600, maxtrip = 80
  integer, parameter :: hsize = 262144
  real(dp), parameter :: pi = 3.141592653589793_dp, d2r = pi / 180.0_dp

  character(len=512) :: outdir
  integer(kind=8) :: rng

  ! ---- truth (generation side) ----
  real(dp), allocatable :: xt(:,:)
  integer, allocatable :: pass_of(:)
  integer :: nst_true

  ! ---- reduction side ----
  character(len=12), allocatable :: sname(:)
  integer, allocatable :: htab(:)
  integer :: nst
  integer, allocatable :: sh_from(:), sh_to(:), sh_trip(:)
  real(dp), allocatable :: sh_d(:,:), sh_var(:), sh_lrud(:,:)
  integer :: nsh
  real(dp), allocatable :: x(:,:)

  ! traverses
  integer, allocatable :: tr_a(:), tr_b(:), tr_first(:), tr_len(:), tr_list(:), tr_sign(:)
  real(dp), allocatable :: tr_d(:,:), tr_var(:), tr_w(:)
  logical, allocatable :: tr_core(:), tr_flag(:)
  integer :: ntr

  ! namelist /project/
  character(len=40) :: cave_name
  integer :: ntrips
  character(len=12) :: fixed_station
  real(dp) :: fixed_xyz(3), sigma_tape, sigma_angle_deg
  namelist /project/ cave_name, ntrips, fixed_station, fixed_xyz, sigma_tape, sigma_angle_deg

  integer :: nflag, ncore, iters
  real(dp) :: rms_before, rms_after, maxerr

  if (command_argument_count() /= 1) then
     write(*,'(A)') 'usage: cave_survey_loop_closure OUTDIR'
     stop 2
  end if
  call get_command_argument(1, outdir)
  rng = 7310051_8

  call generate_cave()
  call write_project_and_trips()
  deallocate(pass_of)

  call log_line('reduction started')
  call read_project()
  call read_trips()
  call log_line('trip files parsed')
  call reduce_network(ncore)
  call adjust(nflag, iters, rms_before, rms_after)
  call log_line('network adjusted')
  call place_stations()
  call compare_truth(maxerr)
  call write_stations()
  call write_residuals()
  call write_loop_report(nflag, rms_before, rms_after)
  call write_svg_plan()
  call log_line('outputs written')

  write(*,'(A,I0,A,I0,A,I0,A)') 'cave_survey_loop_closure: ', nst, ' stations, ', nsh, ' shots, ', ntrips, ' trips'
  write(*,'(A,I0,A,I0,A,I0,A)') '  ', ntr, ' traverses, ', ncore, ' in loop core, ', nflag, ' flagged as blunders'
  write(*,'(A,I0,A,F8.3,A,F8.3)') '  CG iterations ', iters, ', rms std misclosure ', rms_before, ' -> ', rms_after
  write(*,'(A,F8.3,A)') '  max station error vs truth ', maxerr, ' m'

contains

  subroutine check(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
       write(*,'(A,A,A,I0)') 'I/O error: ', what, ' iostat=', ios
       stop 1
    end if
  end subroutine check

  function urand() result(u)
    real(dp) :: u
    rng = ieor(rng, ishft(rng, 13))
    rng = ieor(rng, ishft(rng, -7))
    rng = ieor(rng, ishft(rng, 17))
    u = real(ishft(rng, -11), dp) * 2.0_dp**(-53)
  end function urand

  function nrand() result(g)
    real(dp) :: g
    g = sqrt(-2.0_dp * log(max(urand(), 1.0e-300_dp))) * cos(2.0_dp * pi * urand())
  end function nrand

  subroutine log_line(msg)
    character(len=*), intent(in) :: msg
    integer :: u, ios
    open(newunit=u, file=trim(outdir)//'/processing.log', status='unknown', position='append', &
         action='write', iostat=ios)
    call check(ios, 'open processing.log')
    ! wall-clock time is deliberately not logged so that output is reproducible
    write(u,'(A,A)', iostat=ios) 'stage: ', msg
    call check(ios, 'write processing.log')
    close(u, iostat=ios)
    call check(ios, 'close processing.log')
  end subroutine log_line

  function pname(p) result(s)
    integer, intent(in) :: p
    character(len=2) :: s
    s = achar(iachar('A') + mod(p - 1, 26)) // achar(iachar('A') + mod((p - 1) / 26, 26))
  end function pname

  function station_label(p, k) result(s)
    integer, intent(in) :: p, k
    character(len=12) :: s
    write(s,'(A,I0)') pname(p), k
  end function station_label

  ! Branching random-walk passages plus tie shots between close stations.
  subroutine generate_cave()
    integer :: p, k, nlen, start, cur, i, j, c, ix, iy, iz, nties, cnt
    real(dp) :: hd, inc, len, dz_trend
    integer, allocatable :: cell_head(:), cell_next(:)
    integer, parameter :: ncell = 65536
    real(dp) :: dd
    allocate(xt(3, maxst), pass_of(maxst))
    allocate(sh_from(maxsh), sh_to(maxsh), sh_trip(maxsh))
    nst_true = 1
    xt(:,1) = 0.0_dp
    pass_of(1) = 1
    nsh = 0
    p = 0
    do while (nst_true < 36000 .and. p < maxpass)
       p = p + 1
       if (p == 1) then
          start = 1
       else
          start = 1 + int(urand() * nst_true)
       end if
       nlen = 40 + int(urand() * 160)
       hd = 2.0_dp * pi * urand()
       dz_trend = 0.15_dp * nrand()
       cur = start
       do k = 1, nlen
          if (nst_true >= maxst - 1) exit
          hd = hd + 0.35_dp * nrand()
          inc = dz_trend + 0.2_dp * nrand()
          if (urand() < 0.03_dp) inc = sign(0.9_dp + 0.4_dp * urand(), nrand())   ! pitch
          len = 2.0_dp + 10.0_dp * urand()
          nst_true = nst_true + 1
          xt(1, nst_true) = xt(1, cur) + len * cos(inc) * sin(hd)
          xt(2, nst_true) = xt(2, cur) + len * cos(inc) * cos(hd)
          xt(3, nst_true) = xt(3, cur) + len * sin(inc)
          pass_of(nst_true) = p
          nsh = nsh + 1
          sh_from(nsh) = cur
          sh_to(nsh) = nst_true
          cur = nst_true
       end do
    end do
    ! ties: stations of different passages within 8 m
    allocate(cell_head(ncell), cell_next(nst_true))
    cell_head = 0
    do i = 1, nst_true
       c = cell_hash(xt(:, i))
       cell_next(i) = cell_head(c)
       cell_head(c) = i
    end do
    nties = 0
    do i = 1, nst_true
       if (urand() > 0.12_dp) cycle
       cnt = 0
       do ix = -1, 1
          do iy = -1, 1
             do iz = -1, 1
                c = cell_hash(xt(:, i) + 10.0_dp * [real(ix, dp), real(iy, dp), real(iz, dp)])
                j = cell_head(c)
                do while (j > 0)
                   if (j > i .and. pass_of(j) /= pass_of(i) .and. cnt == 0 .and. nsh < maxsh) then
                      dd = norm2(xt(:, j) - xt(:, i))
                      if (dd < 8.0_dp .and. dd > 0.5_dp) then
                         nsh = nsh + 1
                         sh_from(nsh) = i
                         sh_to(nsh) = j
                         nties = nties + 1
                         cnt = 1
                      end if
                   end if
                   j = cell_next(j)
                end do
             end do
          end do
       end do
    end do
    deallocate(cell_head, cell_next)
  end subroutine generate_cave

  function cell_hash(p) result(c)
    real(dp), intent(in) :: p(3)
    integer :: c
    integer(kind=8) :: h
    h = int(floor(p(1) / 10.0_dp), 8) * 73856093_8
    h = ieor(h, int(floor(p(2) / 10.0_dp), 8) * 19349663_8)
    h = ieor(h, int(floor(p(3) / 10.0_dp), 8) * 83492791_8)
    c = int(modulo(h, 65536_8)) + 1
  end function cell_hash

  ! Namelist project file and one Compass-style text file per trip.
  subroutine write_project_and_trips()
    integer :: u, ios, t, s, p, first_pass, last_pass, shots_in_trip
    real(dp) :: dec, bias, v(3), l, bear, inc, lrud(4)
    character(len=12) :: a, b
    integer, allocatable :: trip_of_pass(:)
    character(len=256) :: fname
    allocate(trip_of_pass(maxpass))
    ! passages -> trips (about 1300 shots per trip)
    t = 1
    shots_in_trip = 0
    trip_of_pass = 0
    do p = 1, maxpass
       trip_of_pass(p) = t
       shots_in_trip = shots_in_trip + count(pass_of(sh_to(1:nsh)) == p .and. &
                                             pass_of(sh_from(1:nsh)) == p)
       if (shots_in_trip > 1300 .and. t < maxtrip) then
          t = t + 1
          shots_in_trip = 0
       end if
    end do
    ntrips = maxval(trip_of_pass(pass_of(1:nst_true)))
    do s = 1, nsh
       sh_trip(s) = trip_of_pass(pass_of(sh_to(s)))
    end do
    cave_name = 'Ridgeback Karst System'
    fixed_station = station_label(1, 0)
    fixed_xyz = [512300.0_dp, 4321700.0_dp, 1432.0_dp]
    sigma_tape = 0.05_dp
    sigma_angle_deg = 1.5_dp
    open(newunit=u, file=trim(outdir)//'/project.nml', status='replace', action='write', iostat=ios)
    call check(ios, 'open project.nml')
    write(u, nml=project, iostat=ios)
    call check(ios, 'write project namelist')
    close(u, iostat=ios)
    call check(ios, 'close project.nml')

    do t = 1, ntrips
       write(fname,'(A,A,I3.3,A)') trim(outdir), '/trip_', t, '.dat'
       open(newunit=u, file=trim(fname), status='replace', action='write', iostat=ios)
       call check(ios, 'open trip file')
       dec = 4.10_dp - 0.012_dp * t
       bias = 1.2_dp * nrand()
       first_pass = 0; last_pass = 0
       write(u,'(A)') 'RIDGEBACK KARST SYSTEM'
       write(u,'(A,I0,A,I0,1X,I0,1X,I0)') 'SURVEY NAME: T', t, '  SURVEY DATE: ', 1 + mod(7 * t, 12), &
            1 + mod(11 * t, 28), 2012 + t / 10
       write(u,'(A)') 'SURVEY TEAM:'
       write(u,'(A)') 'M. Okafor; L. Brandt; S. Ito'
       write(u,'(A,F8.3,A,F7.2,A)') 'DECLINATION: ', dec, '  FORMAT: DDDDUDRLLADN  CORRECTIONS: ', -bias, &
            ' 0.00 0.00'
       write(u,'(A)') ''
       write(u,'(A)') '        FROM           TO   LENGTH  BEARING      INC     LEFT       UP     DOWN    RIGHT'
       write(u,'(A)') ''
       do s = 1, nsh
          if (sh_trip(s) /= t) cycle
          v = xt(:, sh_to(s)) - xt(:, sh_from(s))
          l = norm2(v)
          inc = asin(v(3) / l) / d2r + sigma_angle_deg * 0.6_dp * nrand()
          bear = atan2(v(1), v(2)) / d2r - dec + bias + sigma_angle_deg * 0.6_dp * nrand()
          l = l + sigma_tape * 0.5_dp * nrand()
          if (urand() < 0.0015_dp) bear = bear + 180.0_dp            ! read the wrong end
          if (urand() < 0.0010_dp) l = l + 10.0_dp                   ! tape misread
          bear = modulo(bear, 360.0_dp)
          lrud = [0.4_dp + 3.0_dp * urand(), 0.3_dp + 2.5_dp * urand(), 0.2_dp + 1.5_dp * urand(), &
                  0.4_dp + 3.0_dp * urand()]
          a = station_label(pass_of(sh_from(s)), sh_from(s))
          b = station_label(pass_of(sh_to(s)), sh_to(s))
          if (sh_from(s) == 1) a = fixed_station
          write(u,'(2A13,F9.2,2F9.2,4F9.2)', iostat=ios) adjustr(a), adjustr(b), l, bear, inc, lrud
          call check(ios, 'write shot line')
       end do
       write(u,'(A)') achar(12)
       close(u, iostat=ios)
       call check(ios, 'close trip file')
    end do
    deallocate(trip_of_pass)
  end subroutine write_project_and_trips

  subroutine read_project()
    integer :: u, ios
    open(newunit=u, file=trim(outdir)//'/project.nml', status='old', action='read', iostat=ios)
    call check(ios, 'reopen project.nml')
    read(u, nml=project, iostat=ios)
    call check(ios, 'read project namelist')
    close(u, iostat=ios)
    call check(ios, 'close project.nml')
    ! station storage for the reduction
    allocate(sname(maxst), htab(hsize), sh_d(3, maxsh), sh_var(maxsh), sh_lrud(4, maxsh))
    htab = 0
    nst = 0
  end subroutine read_project

  function station_index(name) result(idx)
    character(len=*), intent(in) :: name
    integer :: idx, h, i
    integer(kind=8) :: hv
    character(len=12) :: key
    key = adjustl(name)
    hv = 5381_8
    do i = 1, len_trim(key)
       hv = modulo(hv * 33_8 + iachar(key(i:i)), 2147483647_8)
    end do
    h = int(modulo(hv, int(hsize, 8))) + 1
    do
       if (htab(h) == 0) then
          nst = nst + 1
          if (nst > maxst) then
             write(*,'(A)') 'too many stations'
             stop 1
          end if
          sname(nst) = key
          htab(h) = nst
          idx = nst
          return
       end if
       if (sname(htab(h)) == key) then
          idx = htab(h)
          return
       end if
       h = h + 1
       if (h > hsize) h = 1
    end do
  end function station_index

  ! Parse every trip file: header keywords, then shot lines.
  subroutine read_trips()
    integer :: u, ios, t, k, nshot_trip, i0
    character(len=256) :: line, fname
    character(len=12) :: a, b
    real(dp) :: l, bear, inc, lrud(4), dec, corr(3), bt, sa
    logical :: in_data
    nsh = 0
    sa = sigma_angle_deg * d2r
    i0 = station_index(fixed_station)
    do t = 1, ntrips
       write(fname,'(A,A,I3.3,A)') trim(outdir), '/trip_', t, '.dat'
       open(newunit=u, file=trim(fname), status='old', action='read', iostat=ios)
       call check(ios, 'open trip for reading')
       dec = 0.0_dp; corr = 0.0_dp
       in_data = .false.
       nshot_trip = 0
       do
          read(u,'(A)', iostat=ios) line
          if (ios < 0) exit
          call check(ios, 'read trip line')
          if (index(line, achar(12)) > 0) exit
          if (.not. in_data) then
             k = index(line, 'DECLINATION:')
             if (k > 0) then
                read(line(k+12:), *, iostat=ios) dec
                call check(ios, 'parse declination')
                k = index(line, 'CORRECTIONS:')
                if (k > 0) then
                   read(line(k+12:), *, iostat=ios) corr
                   call check(ios, 'parse corrections')
                end if
             end if
             if (index(line, 'FROM') > 0 .and. index(line, 'BEARING') > 0) in_data = .true.
             cycle
          end if
          if (len_trim(line) == 0) cycle
          read(line, *, iostat=ios) a, b, l, bear, inc, lrud
          if (ios /= 0) then
             write(*,'(A,A)') 'bad shot line: ', trim(line)
             stop 1
          end if
          nsh = nsh + 1
          nshot_trip = nshot_trip + 1
          sh_from(nsh) = station_index(a)
          sh_to(nsh) = station_index(b)
          sh_trip(nsh) = t
          bt = (bear + corr(1) + dec) * d2r
          inc = (inc + corr(2)) * d2r
          l = l + corr(3)
          sh_d(1, nsh) = l * cos(inc) * sin(bt)
          sh_d(2, nsh) = l * cos(inc) * cos(bt)
          sh_d(3, nsh) = l * sin(inc)
          sh_var(nsh) = sigma_tape**2 + (l * sa)**2
          sh_lrud(:, nsh) = lrud
       end do
       close(u, iostat=ios)
       call check(ios, 'close trip file')
       if (nshot_trip == 0) then
          write(*,'(A,A)') 'no shots in ', trim(fname)
          stop 1
       end if
    end do
    if (i0 /= 1) stop 1
  end subroutine read_trips

  ! Junctions (degree /= 2) joined by traverses; prune dangling branches.
  subroutine reduce_network(ncore_out)
    integer, intent(out) :: ncore_out
    integer, allocatable :: deg(:), adj_first(:), adj_shot(:), fill(:), rdeg(:)
    logical, allocatable :: junction(:), used(:), alive(:)
    integer :: i, s, e, j, cur, nxt, sh, sg, pos, changed, k
    allocate(deg(nst), adj_first(nst + 1), adj_shot(2 * nsh), fill(nst), junction(nst), used(nsh))
    deg = 0
    do s = 1, nsh
       deg(sh_from(s)) = deg(sh_from(s)) + 1
       deg(sh_to(s)) = deg(sh_to(s)) + 1
    end do
    adj_first(1) = 1
    do i = 1, nst
       adj_first(i + 1) = adj_first(i) + deg(i)
    end do
    fill = adj_first(1:nst)
    do s = 1, nsh
       adj_shot(fill(sh_from(s))) = s;  fill(sh_from(s)) = fill(sh_from(s)) + 1
       adj_shot(fill(sh_to(s))) = -s;   fill(sh_to(s)) = fill(sh_to(s)) + 1
    end do
    junction = deg /= 2
    junction(1) = .true.
    allocate(tr_a(nsh), tr_b(nsh), tr_first(nsh), tr_len(nsh), tr_list(nsh), tr_sign(nsh))
    allocate(tr_d(3, nsh), tr_var(nsh), tr_w(nsh), tr_core(nsh), tr_flag(nsh))
    used = .false.
    ntr = 0
    pos = 0
    do j = 1, nst
       if (.not. junction(j)) cycle
       do k = adj_first(j), adj_first(j + 1) - 1
          if (used(abs(adj_shot(k)))) cycle
          ntr = ntr + 1
          tr_a(ntr) = j
          tr_first(ntr) = pos + 1
          tr_len(ntr) = 0
          tr_d(:, ntr) = 0.0_dp
          tr_var(ntr) = 0.0_dp
          cur = j
          sh = adj_shot(k)
          do
             s = abs(sh)
             sg = sign(1, sh)
             used(s) = .true.
             pos = pos + 1
             tr_list(pos) = s
             tr_sign(pos) = sg
             tr_len(ntr) = tr_len(ntr) + 1
             tr_d(:, ntr) = tr_d(:, ntr) + sg * sh_d(:, s)
             tr_var(ntr) = tr_var(ntr) + sh_var(s)
             if (sg > 0) then
                nxt = sh_to(s)
             else
                nxt = sh_from(s)
             end if
             cur = nxt
             if (junction(cur)) exit
             ! continue through the other shot of this degree-2 station
             sh = 0
             do e = adj_first(cur), adj_first(cur + 1) - 1
                if (.not. used(abs(adj_shot(e)))) then
                   sh = adj_shot(e)
                   exit
                end if
             end do
             if (sh == 0) exit
          end do
          tr_b(ntr) = cur
       end do
    end do
    ! prune: repeatedly drop junctions with a single live traverse
    allocate(alive(ntr), rdeg(nst))
    alive = tr_a(1:ntr) /= tr_b(1:ntr)
    changed = 1
    do while (changed > 0)
       changed = 0
       rdeg = 0
       do e = 1, ntr
          if (.not. alive(e)) cycle
          rdeg(tr_a(e)) = rdeg(tr_a(e)) + 1
          rdeg(tr_b(e)) = rdeg(tr_b(e)) + 1
       end do
       do e = 1, ntr
          if (.not. alive(e)) cycle
          if ((rdeg(tr_a(e)) == 1 .and. tr_a(e) /= 1) .or. (rdeg(tr_b(e)) == 1 .and. tr_b(e) /= 1)) then
             alive(e) = .false.
             changed = changed + 1
          end if
       end do
    end do
    tr_core(1:ntr) = alive
    tr_w(1:ntr) = 1.0_dp / tr_var(1:ntr)
    tr_flag(1:ntr) = .false.
    ncore_out = count(alive)
    deallocate(deg, adj_first, adj_shot, fill, junction, used, alive, rdeg)
    allocate(x(3, nst))
  end subroutine reduce_network

  ! Weighted Laplacian solve on the core junctions (compact numbering,
  ! Jacobi-preconditioned CG), iterated with re-weighting of traverses with
  ! large standardised misclosures.
  subroutine adjust(nflag_out, iters_out, rms0, rms1)
    integer, intent(out) :: nflag_out, iters_out
    real(dp), intent(out) :: rms0, rms1
    integer :: round, e, c, it, n, ncj, i, nok
    integer, allocatable :: cidx(:), node(:), ea(:), eb(:), ecore(:)
    real(dp), allocatable :: r(:), z(:), p(:), q(:), diag(:), b(:), xc(:,:), w(:)
    real(dp) :: rz, rz0, rz_new, alpha, ss, ssok, tmis
    integer :: nflag_round, nce
    allocate(cidx(nst))
    cidx = 0
    ncj = 0
    nce = count(tr_core(1:ntr))
    allocate(ecore(nce))
    nce = 0
    do e = 1, ntr
       if (.not. tr_core(e)) cycle
       nce = nce + 1
       ecore(nce) = e
       if (cidx(tr_a(e)) == 0) then
          ncj = ncj + 1
          cidx(tr_a(e)) = ncj
       end if
       if (cidx(tr_b(e)) == 0) then
          ncj = ncj + 1
          cidx(tr_b(e)) = ncj
       end if
    end do
    allocate(node(ncj), ea(nce), eb(nce), w(nce))
    do i = 1, nst
       if (cidx(i) > 0) node(cidx(i)) = i
    end do
    do i = 1, nce
       ea(i) = cidx(tr_a(ecore(i)))
       eb(i) = cidx(tr_b(ecore(i)))
    end do
    allocate(r(ncj), z(ncj), p(ncj), q(ncj), diag(ncj), b(ncj), xc(3, ncj))
    ! solve in local coordinates with the fixed station at the origin
    x = 0.0_dp
    xc = 0.0_dp
    nflag_out = 0
    iters_out = 0
    rms0 = 0.0_dp
    rms1 = 0.0_dp
    do round = 1, 4
       do i = 1, nce
          w(i) = tr_w(ecore(i))
       end do
       diag = 0.0_dp
       do i = 1, nce
          diag(ea(i)) = diag(ea(i)) + w(i)
          diag(eb(i)) = diag(eb(i)) + w(i)
       end do
       do c = 1, 3
          b = 0.0_dp
          do i = 1, nce
             b(ea(i)) = b(ea(i)) - w(i) * tr_d(c, ecore(i))
             b(eb(i)) = b(eb(i)) + w(i) * tr_d(c, ecore(i))
          end do
          call laplacian(xc(c, :), q, ea, eb, w, node)
          r = b - q
          where (node == 1) r = 0.0_dp
          z = r / diag
          p = z
          rz = dot_product(r, z)
          rz0 = max(rz, 1.0e-300_dp)
          n = 0
          do it = 1, 20000
             if (rz < 1.0e-20_dp * rz0 .or. rz < 1.0e-24_dp) exit
             call laplacian(p, q, ea, eb, w, node)
             alpha = rz / dot_product(p, q)
             xc(c, :) = xc(c, :) + alpha * p
             r = r - alpha * q
             z = r / diag
             rz_new = dot_product(r, z)
             p = z + (rz_new / rz) * p
             rz = rz_new
             n = n + 1
          end do
          iters_out = iters_out + n
       end do
       do i = 1, ncj
          x(:, node(i)) = xc(:, i)
       end do
       x(:, 1) = 0.0_dp
       ! standardised traverse misclosures on the core
       ss = 0.0_dp
       ssok = 0.0_dp
       nflag_round = 0
       nok = 0
       do i = 1, nce
          e = ecore(i)
          tmis = norm2(x(:, tr_b(e)) - x(:, tr_a(e)) - tr_d(:, e)) / sqrt(tr_var(e))
          ss = ss + tmis**2
          if (.not. tr_flag(e)) then
             ssok = ssok + tmis**2
             nok = nok + 1
          end if
          if (tmis > 3.5_dp .and. .not. tr_flag(e) .and. round < 4) then
             tr_flag(e) = .true.
             tr_w(e) = tr_w(e) / 400.0_dp
             nflag_round = nflag_round + 1
          end if
       end do
       if (round == 1) rms0 = sqrt(ss / max(nce, 1))
       rms1 = sqrt(ssok / max(nok, 1))
       nflag_out = nflag_out + nflag_round
       if (nflag_round == 0) exit
    end do
    deallocate(cidx, node, ea, eb, ecore, w, r, z, p, q, diag, b, xc)
  end subroutine adjust

  ! q = L v on the compact core network; the fixed station is held at zero.
  subroutine laplacian(v, q, ea, eb, w, node)
    real(dp), intent(in) :: v(:), w(:)
    real(dp), intent(out) :: q(:)
    integer, intent(in) :: ea(:), eb(:), node(:)
    integer :: i, a, b
    real(dp) :: va, vb
    q = 0.0_dp
    do i = 1, size(ea)
       a = ea(i); b = eb(i)
       va = v(a); vb = v(b)
       if (node(a) == 1) va = 0.0_dp
       if (node(b) == 1) vb = 0.0_dp
       q(a) = q(a) + w(i) * (va - vb)
       q(b) = q(b) + w(i) * (vb - va)
    end do
    where (node == 1) q = 0.0_dp
  end subroutine laplacian

  ! Dangling traverses outward from placed junctions, misclosure along core ones.
  subroutine place_stations()
    logical, allocatable :: placed(:), done(:)
    integer :: e, k, s, cur, nxt, progress
    real(dp) :: mis(3), cum, pos(3)
    allocate(placed(nst), done(ntr))
    placed = .false.
    placed(1) = .true.
    do e = 1, ntr
       if (tr_core(e)) then
          placed(tr_a(e)) = .true.
          placed(tr_b(e)) = .true.
       end if
    end do
    done = .false.
    progress = 1
    do while (progress > 0)
       progress = 0
       do e = 1, ntr
          if (done(e)) cycle
          if (.not. (placed(tr_a(e)) .or. placed(tr_b(e)))) cycle
          if (tr_core(e) .or. (placed(tr_a(e)) .and. placed(tr_b(e)))) then
             mis = x(:, tr_b(e)) - x(:, tr_a(e)) - tr_d(:, e)
          else if (placed(tr_a(e))) then
             mis = 0.0_dp
             x(:, tr_b(e)) = x(:, tr_a(e)) + tr_d(:, e)
             placed(tr_b(e)) = .true.
          else
             ! walk the traverse backwards from its placed end
             mis = 0.0_dp
             x(:, tr_a(e)) = x(:, tr_b(e)) - tr_d(:, e)
             placed(tr_a(e)) = .true.
          end if
          if (tr_a(e) == tr_b(e)) mis = -tr_d(:, e)        ! closed loop through one junction
          cur = tr_a(e)
          pos = x(:, cur)
          cum = 0.0_dp
          do k = tr_first(e), tr_first(e) + tr_len(e) - 1
             s = tr_list(k)
             if (tr_sign(k) > 0) then
                nxt = sh_to(s)
             else
                nxt = sh_from(s)
             end if
             cum = cum + sh_var(s)
             pos = pos + tr_sign(k) * sh_d(:, s)
             if (k < tr_first(e) + tr_len(e) - 1) then
                x(:, nxt) = pos + mis * (cum / tr_var(e))
                placed(nxt) = .true.
             end if
             cur = nxt
          end do
          done(e) = .true.
          progress = progress + 1
       end do
    end do
    if (.not. all(placed)) then
       write(*,'(A,I0)') 'unplaced stations: ', count(.not. placed)
       stop 1
    end if
    ! local -> project coordinates
    do k = 1, nst
       x(:, k) = x(:, k) + fixed_xyz
    end do
    deallocate(placed, done)
  end subroutine place_stations

  ! Station names encode the generator's station number after the prefix.
  subroutine compare_truth(maxe)
    real(dp), intent(out) :: maxe
    integer :: i, k, ios
    maxe = 0.0_dp
    do i = 1, nst
       read(sname(i)(3:), *, iostat=ios) k
       if (ios /= 0 .or. k < 1) cycle
       if (i == 1) cycle
       maxe = max(maxe, norm2(x(:, i) - fixed_xyz - (xt(:, k) - xt(:, 1))))
    end do
    deallocate(xt)
  end subroutine compare_truth

  subroutine write_stations()
    integer :: u, ios, i
    open(newunit=u, file=trim(outdir)//'/stations.txt', status='replace', action='write', iostat=ios)
    call check(ios, 'open stations.txt')
    write(u,'(A,A)') '# adjusted station coordinates, ', trim(cave_name)
    write(u,'(A)') '# station           easting        northing    elevation'
    do i = 1, nst
       write(u,'(A12,3F15.3)', iostat=ios) sname(i), x(:, i)
       call check(ios, 'write station')
    end do
    close(u, iostat=ios)
    call check(ios, 'close stations.txt')
  end subroutine write_stations

  subroutine write_residuals()
    integer :: u, ios, s
    real(dp) :: res(3), std
    open(newunit=u, file=trim(outdir)//'/shot_residuals.txt', status='replace', action='write', iostat=ios)
    call check(ios, 'open shot_residuals.txt')
    write(u,'(A)') '# trip from         to              dE       dN       dZ   std_res'
    do s = 1, nsh
       res = x(:, sh_to(s)) - x(:, sh_from(s)) - sh_d(:, s)
       std = norm2(res) / sqrt(sh_var(s))
       write(u,'(I4,1X,A12,1X,A12,3F9.3,F9.2)', iostat=ios) sh_trip(s), sname(sh_from(s)), sname(sh_to(s)), res, std
       call check(ios, 'write residual')
    end do
    close(u, iostat=ios)
    call check(ios, 'close shot_residuals.txt')
  end subroutine write_residuals

  subroutine write_loop_report(nf, r0, r1)
    integer, intent(in) :: nf
    real(dp), intent(in) :: r0, r1
    integer :: u, ios, e
    real(dp) :: tmis, lenm
    open(newunit=u, file=trim(outdir)//'/loop_report.txt', status='replace', action='write', iostat=ios)
    call check(ios, 'open loop_report.txt')
    write(u,'(A,A)') 'Loop closure report: ', trim(cave_name)
    write(u,'(A,I0,A,I0,A,I0)') 'stations ', nst, '  shots ', nsh, '  traverses ', ntr
    write(u,'(A,F8.3,A,F8.3)') 'rms standardised misclosure before/after re-weighting: ', r0, ' / ', r1
    write(u,'(A,I0)') 'traverses flagged as containing blunders: ', nf
    write(u,'(A)') '  from         to            shots  length_m  misclosure_m  std   flag'
    do e = 1, ntr
       if (.not. tr_core(e)) cycle
       tmis = norm2(x(:, tr_b(e)) - x(:, tr_a(e)) - tr_d(:, e))
       lenm = sum(sqrt(sum(sh_d(:, tr_list(tr_first(e):tr_first(e) + tr_len(e) - 1))**2, dim=1)))
       write(u,'(2X,A12,1X,A12,I6,F10.1,F14.3,F6.2,2X,L1)', iostat=ios) sname(tr_a(e)), sname(tr_b(e)), &
            tr_len(e), lenm, tmis, tmis / sqrt(tr_var(e)), tr_flag(e)
       call check(ios, 'write loop row')
    end do
    close(u, iostat=ios)
    call check(ios, 'close loop_report.txt')
  end subroutine write_loop_report

  ! Plan view: survey legs as lines, passage walls from LRUD as polylines.
  subroutine write_svg_plan()
    integer :: u, ios, s
    real(dp) :: xmin, xmax, ymin, ymax, sc, dx, dy, h, nx, ny, ax, ay, bx, by
    character(len=160) :: buf
    xmin = minval(x(1, :)); xmax = maxval(x(1, :))
    ymin = minval(x(2, :)); ymax = maxval(x(2, :))
    sc = 2000.0_dp / max(xmax - xmin, ymax - ymin, 1.0_dp)
    open(newunit=u, file=trim(outdir)//'/plan.svg', status='replace', action='write', iostat=ios)
    call check(ios, 'open plan.svg')
    write(u,'(A)') '<?xml version="1.0" encoding="UTF-8"?>'
    write(u,'(A,I0,A,I0,A)') '<svg xmlns="http://www.w3.org/2000/svg" width="', nint((xmax - xmin) * sc) + 20, &
         '" height="', nint((ymax - ymin) * sc) + 20, '">'
    write(u,'(A)') '<g stroke="black" stroke-width="0.4" fill="none">'
    do s = 1, nsh
       ax = 10 + (x(1, sh_from(s)) - xmin) * sc;  ay = 10 + (ymax - x(2, sh_from(s))) * sc
       bx = 10 + (x(1, sh_to(s)) - xmin) * sc;    by = 10 + (ymax - x(2, sh_to(s))) * sc
       write(buf,'(A,F0.2,A,F0.2,A,F0.2,A,F0.2,A)') '<line x1="', ax, '" y1="', ay, '" x2="', bx, '" y2="', by, '"/>'
       write(u,'(A)', iostat=ios) trim(buf)
       call check(ios, 'write svg line')
    end do
    write(u,'(A)') '</g>'
    write(u,'(A)') '<g stroke="saddlebrown" stroke-width="0.3" fill="none">'
    do s = 1, nsh
       dx = x(1, sh_to(s)) - x(1, sh_from(s))
       dy = x(2, sh_to(s)) - x(2, sh_from(s))
       h = max(hypot(dx, dy), 1.0e-6_dp)
       nx = -dy / h; ny = dx / h
       ! left wall then right wall of this leg
       ax = 10 + (x(1, sh_from(s)) + nx * sh_lrud(1, s) - xmin) * sc
       ay = 10 + (ymax - x(2, sh_from(s)) - ny * sh_lrud(1, s)) * sc
       bx = 10 + (x(1, sh_to(s)) + nx * sh_lrud(1, s) - xmin) * sc
       by = 10 + (ymax - x(2, sh_to(s)) - ny * sh_lrud(1, s)) * sc
       write(buf,'(A,F0.2,A,F0.2,A,F0.2,A,F0.2,A)') '<polyline points="', ax, ',', ay, ' ', bx, ',', by, '"/>'
       write(u,'(A)', iostat=ios) trim(buf)
       call check(ios, 'write svg wall')
       ax = 10 + (x(1, sh_from(s)) - nx * sh_lrud(4, s) - xmin) * sc
       ay = 10 + (ymax - x(2, sh_from(s)) + ny * sh_lrud(4, s)) * sc
       bx = 10 + (x(1, sh_to(s)) - nx * sh_lrud(4, s) - xmin) * sc
       by = 10 + (ymax - x(2, sh_to(s)) + ny * sh_lrud(4, s)) * sc
       write(buf,'(A,F0.2,A,F0.2,A,F0.2,A,F0.2,A)') '<polyline points="', ax, ',', ay, ' ', bx, ',', by, '"/>'
       write(u,'(A)', iostat=ios) trim(buf)
       call check(ios, 'write svg wall')
    end do
    write(u,'(A)') '</g>'
    write(u,'(A)') '</svg>'
    close(u, iostat=ios)
    call check(ios, 'close plan.svg')
  end subroutine write_svg_plan

end program cave_survey_loop_closure
