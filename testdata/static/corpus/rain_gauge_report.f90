! rain_gauge_report: a daily rain-gauge table for a network of stations is
! first generated as a formatted text file (a header line giving the network
! size, comment lines, data lines, and a few corrupt or blank lines as real
! exports contain).  The table is then read line by line with READ(...,'(a)')
! and IOSTAT end/error handling, each line decoded with an internal list-
! directed READ, and per-station statistics (monthly climatology, percentiles
! from a sorted sample, longest dry spell) are computed.  A formatted report
! is written and re-read with END= handling to check the station totals.

module gauge_kinds
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: line_len = 128
  integer, parameter :: bad_every = 2311
  integer, parameter :: blank_every = 4999
  integer, dimension(12), parameter :: month_days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

  type :: station_stats
    integer :: ndays = 0
    integer :: wet_days = 0
    integer :: dry_run = 0
    integer :: longest_dry = 0
    real(dp) :: total = 0.0_dp
    real(dp) :: wettest = 0.0_dp
    real(dp) :: monthly(12) = 0.0_dp
    real(dp), allocatable :: wet_values(:)
  end type station_stats
end module gauge_kinds

module gauge_rng
  use gauge_kinds, only: dp
  implicit none
  integer(kind=8), private :: state = 88172645463325252_8
contains
  function rnd() result(r)
    real(dp) :: r
    state = ieor(state, ishft(state, 13))
    state = ieor(state, ishft(state, -7))
    state = ieor(state, ishft(state, 17))
    r = (real(ishft(state, -11), dp) + 0.5_dp) / 9007199254740992.0_dp
  end function rnd
end module gauge_rng

module gauge_io
  use gauge_kinds
  use gauge_rng
  implicit none
contains

  ! Writes the table; returns the number of good rows and the expected grand total.
  subroutine generate_table(path, nstations, year0, year1, ngood, nbad, grand_total)
    character(len=*), intent(in) :: path
    integer, intent(in) :: nstations, year0, year1
    integer, intent(out) :: ngood, nbad
    real(dp), intent(out) :: grand_total
    integer :: u, s, y, m, d, nline
    logical, allocatable :: wet(:)
    real(dp) :: amount, p_wet
    character(len=1) :: flag
    allocate(wet(nstations))
    wet = .false.
    ngood = 0
    nbad = 0
    nline = 0
    grand_total = 0.0_dp
    open(newunit=u, file=path, status='replace', action='write', form='formatted')
    write(u, '(a,i4,a,i5,a,i5)') '# stations', nstations, ' first_year', year0, ' last_year', year1
    write(u, '(a)') '# station year mo dy   rain_mm q'
    do y = year0, year1
      do m = 1, 12
        do d = 1, month_days(m)
          do s = 1, nstations
            nline = nline + 1
            if (mod(nline, blank_every) == 0) write(u, '(a)') ''
            if (mod(nline, bad_every) == 0) then
              write(u, '(a,i4.4,1x,i4,1x,i2.2,1x,a)') 'G', s, y, m, '?? ---- *'
              nbad = nbad + 1
              cycle
            end if
            ! two-state Markov chain with seasonal wet probability
            p_wet = merge(0.65_dp, 0.25_dp, wet(s)) * (1.0_dp + 0.3_dp * cos(2.0_dp * 3.14159_dp * (m - 1) / 12.0_dp))
            wet(s) = rnd() < p_wet
            amount = 0.0_dp
            if (wet(s)) amount = -(2.0_dp + 0.25_dp * s) * log(rnd())
            amount = anint(amount * 100.0_dp) / 100.0_dp
            flag = 'A'
            if (amount > 40.0_dp) flag = 'E'
            write(u, '(a,i4.4,1x,i4,1x,i2.2,1x,i2.2,1x,f9.2,1x,a1)') 'G', s, y, m, d, amount, flag
            ngood = ngood + 1
            grand_total = grand_total + amount
          end do
        end do
      end do
    end do
    write(u, '(a)') '# end of export'
    close(u)
  end subroutine generate_table

  ! Parse the "# stations N first_year Y0 last_year Y1" header line.
  subroutine read_header(u, nstations, year0, year1)
    integer, intent(in) :: u
    integer, intent(out) :: nstations, year0, year1
    character(len=line_len) :: line
    character(len=16) :: w1, w2, w3, w4
    integer :: ios
    read(u, '(a)', iostat=ios) line
    if (ios == 0) read(line, *, iostat=ios) w1, w2, nstations, w3, year0, w4, year1
    if (ios /= 0 .or. w2 /= 'stations') then
      write(*, '(a)') 'rain_gauge_report: bad table header'
      stop 1
    end if
  end subroutine read_header

  subroutine read_table(path, stats, ngood, nbad, nblank)
    character(len=*), intent(in) :: path
    type(station_stats), allocatable, intent(out) :: stats(:)
    integer, intent(out) :: ngood, nbad, nblank
    character(len=line_len) :: line
    character(len=8) :: sid
    character(len=1) :: flag
    integer :: u, ios, s, y, m, d, nst, y0, y1, k
    real(dp) :: amount
    open(newunit=u, file=path, status='old', action='read', form='formatted', iostat=ios)
    if (ios /= 0) then
      write(*, '(a)') 'rain_gauge_report: cannot open table'
      stop 1
    end if
    call read_header(u, nst, y0, y1)
    allocate(stats(nst))
    do s = 1, nst
      allocate(stats(s)%wet_values(0))
    end do
    ngood = 0
    nbad = 0
    nblank = 0
    do
      read(u, '(a)', iostat=ios) line
      if (is_iostat_end(ios)) exit
      if (ios > 0) then
        nbad = nbad + 1
        cycle
      end if
      if (len_trim(line) == 0) then
        nblank = nblank + 1
        cycle
      end if
      if (line(1:1) == '#') cycle
      read(line, *, iostat=ios) sid, y, m, d, amount, flag
      if (ios /= 0) then
        nbad = nbad + 1
        cycle
      end if
      read(sid(2:), *, iostat=ios) s
      if (ios /= 0 .or. s < 1 .or. s > nst .or. m < 1 .or. m > 12) then
        nbad = nbad + 1
        cycle
      end if
      call accumulate(stats(s), m, amount)
      ngood = ngood + 1
    end do
    close(u)
    do k = 1, nst
      stats(k)%longest_dry = max(stats(k)%longest_dry, stats(k)%dry_run)
    end do
  end subroutine read_table

  subroutine accumulate(st, month, amount)
    type(station_stats), intent(inout) :: st
    integer, intent(in) :: month
    real(dp), intent(in) :: amount
    real(dp), allocatable :: grown(:)
    integer :: n
    st%ndays = st%ndays + 1
    st%total = st%total + amount
    st%monthly(month) = st%monthly(month) + amount
    if (amount > 0.0_dp) then
      st%wet_days = st%wet_days + 1
      st%wettest = max(st%wettest, amount)
      st%longest_dry = max(st%longest_dry, st%dry_run)
      st%dry_run = 0
      n = size(st%wet_values)
      if (st%wet_days > n) then
        allocate(grown(max(64, 2 * n)))
        grown(1:n) = st%wet_values
        call move_alloc(grown, st%wet_values)
      end if
      st%wet_values(st%wet_days) = amount
    else
      st%dry_run = st%dry_run + 1
    end if
  end subroutine accumulate

end module gauge_io

module gauge_stats
  use gauge_kinds
  implicit none
contains

  recursive subroutine quicksort(a, lo, hi)
    real(dp), intent(inout) :: a(:)
    integer, intent(in) :: lo, hi
    integer :: i, j
    real(dp) :: pivot, t
    if (lo >= hi) return
    pivot = a((lo + hi) / 2)
    i = lo
    j = hi
    do while (i <= j)
      do while (a(i) < pivot)
        i = i + 1
      end do
      do while (a(j) > pivot)
        j = j - 1
      end do
      if (i <= j) then
        t = a(i)
        a(i) = a(j)
        a(j) = t
        i = i + 1
        j = j - 1
      end if
    end do
    call quicksort(a, lo, j)
    call quicksort(a, i, hi)
  end subroutine quicksort

  function percentile(sorted, n, p) result(v)
    real(dp), intent(in) :: sorted(:)
    integer, intent(in) :: n
    real(dp), intent(in) :: p
    real(dp) :: v, pos
    integer :: k
    if (n == 0) then
      v = 0.0_dp
      return
    end if
    pos = 1.0_dp + p * (n - 1)
    k = min(int(pos), n - 1)
    if (n == 1) then
      v = sorted(1)
    else
      v = sorted(k) + (pos - k) * (sorted(k + 1) - sorted(k))
    end if
  end function percentile

end module gauge_stats

program rain_gauge_report
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_null_char
  use gauge_kinds
  use gauge_io
  use gauge_stats
  implicit none
  interface
    function c_mkdir(path, mode) bind(C, name='mkdir') result(r)
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: path
      integer(c_int), value :: mode
      integer(c_int) :: r
    end function c_mkdir
  end interface

  type(station_stats), allocatable :: stats(:)
  character(len=400) :: dir
  character(len=512) :: table_path, report_path
  character(len=8) :: sid
  integer(c_int) :: rc
  integer :: ngood_w, nbad_w, ngood, nbad, nblank, s, u, nyears, nrep, days
  real(dp) :: total_w, total_r, total_rep, tot, p50, p90, p99
  integer, parameter :: n_stations = 28, first_year = 1996, last_year = 2019

  if (command_argument_count() /= 1) then
    write(*, '(a)') 'usage: rain_gauge_report OUTDIR'
    stop 2
  end if
  call get_command_argument(1, dir)
  rc = c_mkdir(trim(dir) // c_null_char, int(o'755', c_int))
  table_path = trim(dir) // '/gauges.txt'
  report_path = trim(dir) // '/gauge_report.txt'

  call generate_table(trim(table_path), n_stations, first_year, last_year, ngood_w, nbad_w, total_w)
  call read_table(trim(table_path), stats, ngood, nbad, nblank)

  nyears = last_year - first_year + 1
  total_r = 0.0_dp
  open(newunit=u, file=trim(report_path), status='replace', action='write')
  write(u, '(a,i8,a,i6,a,i6)') '# good rows', ngood, '  bad rows', nbad, '  blank', nblank
  write(u, '(a)') '# station  days  wet  total_mm   p50    p90    p99   wettest dry_max  mean_monthly(1..12)'
  do s = 1, size(stats)
    call quicksort(stats(s)%wet_values, 1, stats(s)%wet_days)
    p50 = percentile(stats(s)%wet_values, stats(s)%wet_days, 0.50_dp)
    p90 = percentile(stats(s)%wet_values, stats(s)%wet_days, 0.90_dp)
    p99 = percentile(stats(s)%wet_values, stats(s)%wet_days, 0.99_dp)
    write(u, '(a,i4.4,i7,i6,f11.2,3f7.2,f9.2,i6,12f7.1)') 'G', s, stats(s)%ndays, stats(s)%wet_days, &
         stats(s)%total, p50, p90, p99, stats(s)%wettest, stats(s)%longest_dry, stats(s)%monthly / nyears
    total_r = total_r + stats(s)%total
  end do
  close(u)

  ! re-read the report with END= handling and re-add the station totals
  total_rep = 0.0_dp
  nrep = 0
  open(newunit=u, file=trim(report_path), status='old', action='read')
  read(u, '(a)')
  read(u, '(a)')
  do
    read(u, *, end=100) sid, days, s, tot
    total_rep = total_rep + tot
    nrep = nrep + 1
  end do
100 close(u)

  if (ngood /= ngood_w .or. nbad /= nbad_w .or. nrep /= n_stations .or. &
      abs(total_r - total_w) > 1.0e-6_dp * total_w .or. abs(total_rep - total_w) > 0.01_dp * n_stations) then
    write(*, '(a,2i9,2f16.2)') 'rain_gauge_report: check FAILED', ngood, ngood_w, total_r, total_w
    stop 1
  end if
  write(*, '(a,i8,a,i5,a)') 'rain_gauge_report: ok (', ngood, ' rows,', nbad, ' rejected)'
end program rain_gauge_report
