! Climate station archive homogenisation.  A synthetic archive of daily
! temperatures is stored as fixed-length unformatted DIRECT-access records
! (one record per station-month).  Monthly means are read back record by
! record, a neighbour reference series is built for each station from the
! best-correlated nearby stations, the standard normal homogeneity test
! (SNHT) locates station relocation breakpoints in the difference series,
! the affected records are rewritten in place (read-modify-write), and the
! adjusted annual means go to an unformatted sequential file and a report.
module station_db
  implicit none
  integer, parameter :: n_stations = 280, n_years = 50, first_year = 1961
  integer, parameter :: n_months = n_years * 12, n_neigh = 5, n_passes = 3
  integer, parameter :: missing_flag = 1

  type :: month_rec
     integer :: station, year, month, ndays
     real :: tday(31)
     integer :: flags(31)
  end type month_rec

  real :: lon(n_stations), lat(n_stations)
  integer :: true_break(n_stations)
  real :: true_shift(n_stations)

contains

  integer function rec_index(s, y, m)
    integer, intent(in) :: s, y, m
    rec_index = ((s - 1) * n_years + (y - 1)) * 12 + m
  end function rec_index

  integer function days_in(m, year)
    integer, intent(in) :: m, year
    integer, parameter :: dm(12) = [31,28,31,30,31,30,31,31,30,31,30,31]
    days_in = dm(m)
    if (m == 2 .and. mod(year, 4) == 0) days_in = 29
  end function days_in

  real function urand(state)
    integer(8), intent(inout) :: state
    state = ieor(state, ishft(state, 13))
    state = ieor(state, ishft(state, -7))
    state = ieor(state, ishft(state, 17))
    urand = real(iand(ishft(state, -11), int(z'FFFFFF', 8))) / 16777216.0
  end function urand

  subroutine generate_archive(path, u)
    character(len=*), intent(in) :: path
    integer, intent(out) :: u
    type(month_rec) :: r
    integer :: reclen, s, y, m, d
    integer(8) :: st
    real :: clim, regional(n_months), anom
    st = 88172645463325252_8
    inquire(iolength=reclen) r
    open(newunit=u, file=path, access='direct', form='unformatted', recl=reclen, &
         status='replace', action='readwrite')
    do m = 1, n_months                       ! shared regional weather signal
       regional(m) = 1.5 * (urand(st) - 0.5) + 0.012 * m / 12.0
    end do
    do s = 1, n_stations
       lon(s) = 10.0 * urand(st); lat(s) = 45.0 + 8.0 * urand(st)
       true_break(s) = 0; true_shift(s) = 0
       if (mod(s, 3) == 0) then
          true_break(s) = 60 + int(urand(st) * (n_months - 120))
          true_shift(s) = sign(0.6 + 1.2 * urand(st), urand(st) - 0.5)
       end if
       do y = 1, n_years
          do m = 1, 12
             r%station = s; r%year = first_year + y - 1; r%month = m
             r%ndays = days_in(m, r%year)
             clim = 9.0 - 0.6 * (lat(s) - 45.0) - 11.0 * cos(2 * 3.14159265 * (m - 0.5) / 12.0)
             anom = regional((y - 1) * 12 + m)
             if (true_break(s) > 0 .and. (y - 1) * 12 + m >= true_break(s)) anom = anom + true_shift(s)
             r%tday = -99.0; r%flags = missing_flag
             do d = 1, r%ndays
                r%tday(d) = clim + anom + 3.0 * (urand(st) + urand(st) - 1.0)
                r%flags(d) = 0
                if (urand(st) < 0.01) then
                   r%tday(d) = -99.0; r%flags(d) = missing_flag
                end if
             end do
             write(u, rec=rec_index(s, y, m)) r
          end do
       end do
    end do
  end subroutine generate_archive

  subroutine monthly_means(u, tm)
    integer, intent(in) :: u
    real, intent(out) :: tm(n_months, n_stations)
    type(month_rec) :: r
    integer :: s, y, m, n
    do s = 1, n_stations
       do y = 1, n_years
          do m = 1, 12
             read(u, rec=rec_index(s, y, m)) r
             n = count(r%flags(1:r%ndays) == 0)
             tm((y - 1) * 12 + m, s) = sum(r%tday(1:r%ndays), mask=r%flags(1:r%ndays) == 0) / max(n, 1)
          end do
       end do
    end do
  end subroutine monthly_means

  subroutine anomalies(tm, an)
    real, intent(in) :: tm(:, :)
    real, intent(out) :: an(:, :)
    integer :: s, m
    real :: clim(12)
    do s = 1, size(tm, 2)
       do m = 1, 12
          clim(m) = sum(tm(m::12, s)) / n_years
          an(m::12, s) = tm(m::12, s) - clim(m)
       end do
    end do
  end subroutine anomalies

  real function correlation(a, b)
    real, intent(in) :: a(:), b(:)
    real :: ma, mb
    ma = sum(a) / size(a); mb = sum(b) / size(b)
    correlation = sum((a - ma) * (b - mb)) / sqrt(sum((a - ma)**2) * sum((b - mb)**2) + 1e-20)
  end function correlation

  subroutine build_reference(an, s, ref)
    real, intent(in) :: an(:, :)
    integer, intent(in) :: s
    real, intent(out) :: ref(:)
    real :: c(n_stations), w, wsum
    integer :: k, best
    logical :: used(n_stations)
    do k = 1, n_stations
       c(k) = -2.0
       if (k /= s .and. (lon(k) - lon(s))**2 + (lat(k) - lat(s))**2 < 9.0) c(k) = correlation(an(:, s), an(:, k))
    end do
    used = .false.; ref = 0; wsum = 0
    do k = 1, n_neigh
       best = maxloc(c, dim=1, mask=.not. used)
       if (c(best) <= 0.0) exit
       used(best) = .true.
       w = c(best)**2
       ref = ref + w * an(:, best); wsum = wsum + w
    end do
    if (wsum > 0) ref = ref / wsum
  end subroutine build_reference

  ! SNHT: T(k) = k*z1^2 + (n-k)*z2^2 on the standardised difference series
  subroutine snht_test(q, tmax, kbest)
    real, intent(in) :: q(:)
    real, intent(out) :: tmax
    integer, intent(out) :: kbest
    real :: z(size(q)), z1, z2, t
    integer :: n, k
    n = size(q)
    z = (q - sum(q) / n) / (sqrt(sum((q - sum(q) / n)**2) / (n - 1)) + 1e-20)
    tmax = 0; kbest = 0
    do k = 12, n - 12
       z1 = sum(z(1:k)) / k
       z2 = sum(z(k + 1:n)) / (n - k)
       t = k * z1**2 + (n - k) * z2**2
       if (t > tmax) then
          tmax = t; kbest = k
       end if
    end do
  end subroutine snht_test

  ! shift every month before the breakpoint by the detected step (read-modify-write)
  subroutine apply_adjustment(u, s, kbreak, shift, tm)
    integer, intent(in) :: u, s, kbreak
    real, intent(in) :: shift
    real, intent(inout) :: tm(:, :)
    type(month_rec) :: r
    integer :: k, y, m
    do k = 1, kbreak
       y = (k - 1) / 12 + 1; m = mod(k - 1, 12) + 1
       read(u, rec=rec_index(s, y, m)) r
       where (r%flags == 0) r%tday = r%tday + shift
       write(u, rec=rec_index(s, y, m)) r
       tm(k, s) = tm(k, s) + shift
    end do
  end subroutine apply_adjustment

  subroutine write_annual_series(path, tm)
    character(len=*), intent(in) :: path
    real, intent(in) :: tm(:, :)
    integer :: u, s, y
    real :: annual(n_years)
    open(newunit=u, file=path, form='unformatted', access='sequential', status='replace')
    write(u) n_stations, n_years, first_year
    do s = 1, n_stations
       do y = 1, n_years
          annual(y) = sum(tm((y - 1) * 12 + 1:y * 12, s)) / 12.0
       end do
       write(u) s, lon(s), lat(s), annual
    end do
    close(u)
  end subroutine write_annual_series

end module station_db

program station_record_homogenize
  use station_db
  implicit none
  character(len=256) :: dir
  integer :: u, s, kb, hits, found, rep, pass
  real, allocatable :: tm(:, :), an(:, :), ref(:), q(:)
  real :: tmax, shift
  if (command_argument_count() /= 1) stop 'usage: station_record_homogenize DIR'
  call get_command_argument(1, dir)
  allocate(tm(n_months, n_stations), an(n_months, n_stations), ref(n_months), q(n_months))
  call generate_archive(trim(dir)//'/station_months.dat', u)
  call monthly_means(u, tm)
  open(newunit=rep, file=trim(dir)//'/breakpoints.txt', status='replace', action='write')
  write(rep, '(a)') '# pass station  T_max  break_month  year  shift  true_break  true_shift'
  hits = 0; found = 0
  do pass = 1, n_passes
     call anomalies(tm, an)
     do s = 1, n_stations
        call build_reference(an, s, ref)
        q = an(:, s) - ref
        call snht_test(q, tmax, kb)
        if (tmax > 30.0) then
           shift = sum(q(kb + 1:)) / (n_months - kb) - sum(q(1:kb)) / kb
           call apply_adjustment(u, s, kb, shift, tm)
           found = found + 1
           if (pass == 1 .and. true_break(s) > 0 .and. abs(kb + 1 - true_break(s)) <= 6) hits = hits + 1
           write(rep, '(i4,i8,f9.2,i10,i7,f8.3,i10,f9.3)') pass, s, tmax, kb, first_year + kb / 12, &
                shift, true_break(s), true_shift(s)
        end if
     end do
  end do
  close(rep)
  close(u)
  call write_annual_series(trim(dir)//'/annual_means_adjusted.bin', tm)
  print '(a,i0,a,i0,a,i0)', 'detected=', found, ' matched_true_pass1=', hits, ' planted=', count(true_break > 0)
end program station_record_homogenize
