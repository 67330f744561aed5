! kepler_orbit_ephemeris.f90
!
! Two-body ephemeris generator and close-approach screener for a synthetic
! main-belt asteroid population.  Run parameters are read from a namelist
! file written at start-up; osculating elements are written to and read back
! from a formatted catalogue.  Heliocentric positions at every epoch are
! obtained by solving Kepler's equation and stored as one direct-access
! unformatted record per epoch.  A formatted ephemeris (RA/Dec/distance as
! seen from the Earth) is produced for a few targets, and the direct-access
! file is swept record by record to screen all body pairs for close
! approaches, which are refined by golden-section search in time.
module ephem_kinds
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  real(dp), parameter :: deg = pi / 180.0_dp
  real(dp), parameter :: gm_sun = 2.959122082855911e-4_dp   ! AU^3/day^2
  real(dp), parameter :: au_km = 1.495978707e8_dp
end module ephem_kinds

module orbit_model
  use ephem_kinds
  implicit none
  type :: elements_t
     character(len=12) :: name
     real(dp) :: a, e, inc, node, peri, m0
  end type elements_t
contains
  pure function solve_kepler(m, e, tol) result(ea)
    real(dp), intent(in) :: m, e, tol
    real(dp) :: ea, f, fp, fpp, d
    integer :: it
    ea = m + e * sin(m)
    if (e > 0.8_dp) ea = pi
    do it = 1, 30
       f = ea - e * sin(ea) - m
       fp = 1.0_dp - e * cos(ea)
       fpp = e * sin(ea)
       d = -f / (fp - 0.5_dp * f * fpp / fp)      ! Halley step
       ea = ea + d
       if (abs(d) < tol) exit
    end do
  end function solve_kepler

  pure subroutine position(el, t, tol, r)
    type(elements_t), intent(in) :: el
    real(dp), intent(in) :: t, tol
    real(dp), intent(out) :: r(3)
    real(dp) :: n, m, ea, xp, yp, cw, sw, cn, sn, ci, si
    n = sqrt(gm_sun / el%a**3)
    m = modulo(el%m0 + n * t, 2.0_dp * pi)
    ea = solve_kepler(m, el%e, tol)
    xp = el%a * (cos(ea) - el%e)
    yp = el%a * sqrt(1.0_dp - el%e**2) * sin(ea)
    cw = cos(el%peri); sw = sin(el%peri)
    cn = cos(el%node); sn = sin(el%node)
    ci = cos(el%inc);  si = sin(el%inc)
    r(1) = (cw * cn - sw * sn * ci) * xp + (-sw * cn - cw * sn * ci) * yp
    r(2) = (cw * sn + sw * cn * ci) * xp + (-sw * sn + cw * cn * ci) * yp
    r(3) = (sw * si) * xp + (cw * si) * yp
  end subroutine position
end module orbit_model

module ephem_io
  use ephem_kinds
  use orbit_model
  implicit none
  integer :: nbody = 0, nepoch = 0, n_targets = 0
  real(dp) :: t_start = 0, dt_days = 0, kepler_tol = 0, screen_au = 0
  namelist /ephem_cfg/ nbody, nepoch, n_targets, t_start, dt_days, kepler_tol, screen_au
contains
  subroutine write_namelist(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '! close-approach screening run'
    write(u, '(a)') '&ephem_cfg'
    write(u, '(a)') '  nbody = 560,'
    write(u, '(a)') '  nepoch = 1800,'
    write(u, '(a)') '  n_targets = 12,'
    write(u, '(a)') '  t_start = 0.0d0,'
    write(u, '(a)') '  dt_days = 2.5d0,'
    write(u, '(a)') '  kepler_tol = 1.0d-13,'
    write(u, '(a)') '  screen_au = 0.02d0'
    write(u, '(a)') '/'
    close(u)
  end subroutine write_namelist

  subroutine read_namelist(path)
    character(len=*), intent(in) :: path
    integer :: u, ios
    open(newunit=u, file=path, status='old', action='read')
    read(u, nml=ephem_cfg, iostat=ios)
    if (ios /= 0) stop 'bad namelist'
    close(u)
  end subroutine read_namelist

  subroutine write_catalogue(path, n)
    character(len=*), intent(in) :: path
    integer, intent(in) :: n
    integer :: u, k
    integer(8) :: s
    real(dp) :: r(6)
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '# name            a[AU]          e        i[deg]     node[deg]     peri[deg]       M0[deg]'
    ! body 1 is the Earth
    write(u, '(a12,6f14.8)') 'EARTH       ', 1.00000261_dp, 0.01671123_dp, 0.00001531_dp, 0.0_dp, &
         102.93768193_dp, 357.51716_dp
    s = 987654321_8
    do k = 2, n
       call lcg6(s, r)
       write(u, '(a4,i8.8,6f14.8)') 'AST-', 100000 + k, 1.9_dp + 1.4_dp * r(1), 0.28_dp * r(2)**1.5_dp, &
            18.0_dp * r(3)**2, 360.0_dp * r(4), 360.0_dp * r(5), 360.0_dp * r(6)
    end do
    close(u)
  end subroutine write_catalogue

  subroutine lcg6(s, r)
    integer(8), intent(inout) :: s
    real(dp), intent(out) :: r(6)
    integer :: k
    do k = 1, 6
       s = modulo(s * 6364136223_8 + 1442695_8, 2147483647_8)
       r(k) = real(s, dp) / 2147483647.0_dp
    end do
  end subroutine lcg6

  subroutine read_catalogue(path, els)
    character(len=*), intent(in) :: path
    type(elements_t), intent(out) :: els(:)
    integer :: u, k
    character(len=200) :: header
    real(dp) :: v(6)
    open(newunit=u, file=path, status='old', action='read')
    read(u, '(a)') header
    do k = 1, size(els)
       read(u, '(a12,6f14.8)') els(k)%name, v
       els(k)%a = v(1); els(k)%e = v(2)
       els(k)%inc = v(3) * deg; els(k)%node = v(4) * deg
       els(k)%peri = v(5) * deg; els(k)%m0 = v(6) * deg
    end do
    close(u)
  end subroutine read_catalogue
end module ephem_io

module screening
  use ephem_kinds
  use orbit_model
  use ephem_io
  implicit none
contains
  ! Positions of all bodies at every epoch -> one direct-access record per epoch.
  subroutine propagate_all(path, els)
    character(len=*), intent(in) :: path
    type(elements_t), intent(in) :: els(:)
    real(dp), allocatable :: pos(:,:)
    integer :: u, rl, k, b
    real(dp) :: t
    allocate(pos(3, size(els)))
    inquire(iolength=rl) pos
    open(newunit=u, file=path, access='direct', form='unformatted', recl=rl, status='replace', action='write')
    do k = 1, nepoch
       t = t_start + (k - 1) * dt_days
       do b = 1, size(els)
          call position(els(b), t, kepler_tol, pos(:, b))
       end do
       write(u, rec=k) pos
    end do
    close(u)
  end subroutine propagate_all

  ! Geocentric RA/Dec/distance of the first n_targets asteroids, read back by record.
  subroutine write_ephemeris(dapath, txtpath, els)
    character(len=*), intent(in) :: dapath, txtpath
    type(elements_t), intent(in) :: els(:)
    real(dp), allocatable :: pos(:,:)
    real(dp) :: g(3), eq(3), ra, dec, dist, eps
    integer :: u, v, rl, k, j
    allocate(pos(3, size(els)))
    inquire(iolength=rl) pos
    eps = 23.4392911_dp * deg
    open(newunit=u, file=dapath, access='direct', form='unformatted', recl=rl, status='old', action='read')
    open(newunit=v, file=txtpath, status='replace', action='write')
    write(v, '(a)') '#   day  target          RA[h]       Dec[deg]     delta[AU]       r[AU]'
    do k = 1, nepoch, 2
       read(u, rec=k) pos
       do j = 2, n_targets + 1
          g = pos(:, j) - pos(:, 1)
          eq(1) = g(1)
          eq(2) = g(2) * cos(eps) - g(3) * sin(eps)
          eq(3) = g(2) * sin(eps) + g(3) * cos(eps)
          dist = norm2(eq)
          ra = modulo(atan2(eq(2), eq(1)), 2 * pi) / deg / 15.0_dp
          dec = asin(eq(3) / dist) / deg
          write(v, '(f8.1,2x,a12,4f14.7)') t_start + (k - 1) * dt_days, els(j)%name, ra, dec, dist, &
               norm2(pos(:, j))
       end do
    end do
    close(v)
    close(u)
  end subroutine write_ephemeris

  ! Sweep epochs (direct-access reads) and keep the closest sample per pair.
  subroutine screen_pairs(dapath, n, best_d, best_k)
    character(len=*), intent(in) :: dapath
    integer, intent(in) :: n
    real(dp), intent(out) :: best_d(n, n)
    integer, intent(out) :: best_k(n, n)
    real(dp), allocatable :: pos(:,:)
    integer :: u, rl, k, i, j
    real(dp) :: d2, dx, dy, dz
    allocate(pos(3, n))
    inquire(iolength=rl) pos
    best_d = huge(1.0_dp)
    best_k = 0
    open(newunit=u, file=dapath, access='direct', form='unformatted', recl=rl, status='old', action='read')
    do k = nepoch, 1, -1                     ! newest first
       read(u, rec=k) pos
       do j = 2, n
          do i = 2, j - 1
             dx = pos(1, i) - pos(1, j)
             dy = pos(2, i) - pos(2, j)
             dz = pos(3, i) - pos(3, j)
             d2 = dx * dx + dy * dy + dz * dz
             if (d2 < best_d(i, j)) then
                best_d(i, j) = d2
                best_k(i, j) = k
             end if
          end do
       end do
    end do
    close(u)
    best_d = sqrt(best_d)
  end subroutine screen_pairs

  ! Golden-section minimisation of the separation around the best epoch.
  subroutine refine_encounter(ei, ej, tc, dmin, tmin)
    type(elements_t), intent(in) :: ei, ej
    real(dp), intent(in) :: tc
    real(dp), intent(out) :: dmin, tmin
    real(dp), parameter :: gr = 0.6180339887498949_dp
    real(dp) :: a, b, c, d, fc, fd
    integer :: it
    a = tc - dt_days; b = tc + dt_days
    c = b - gr * (b - a); d = a + gr * (b - a)
    fc = sep(c); fd = sep(d)
    do it = 1, 60
       if (fc < fd) then
          b = d; d = c; fd = fc
          c = b - gr * (b - a); fc = sep(c)
       else
          a = c; c = d; fc = fd
          d = a + gr * (b - a); fd = sep(d)
       end if
    end do
    tmin = 0.5_dp * (a + b)
    dmin = sep(tmin)
  contains
    real(dp) function sep(t)
      real(dp), intent(in) :: t
      real(dp) :: ri(3), rj(3)
      call position(ei, t, kepler_tol, ri)
      call position(ej, t, kepler_tol, rj)
      sep = norm2(ri - rj)
    end function sep
  end subroutine refine_encounter
end module screening

program kepler_orbit_ephemeris
  use ephem_kinds
  use orbit_model
  use ephem_io
  use screening
  implicit none
  character(len=1024) :: dir
  type(elements_t), allocatable :: els(:)
  real(dp), allocatable :: best_d(:,:)
  integer, allocatable :: best_k(:,:)
  integer :: i, j, u, nenc
  real(dp) :: dmin, tmin

  if (command_argument_count() /= 1) stop 'usage: kepler_orbit_ephemeris DIR'
  call get_command_argument(1, dir)

  call write_namelist(trim(dir) // '/ephem.nml')
  call read_namelist(trim(dir) // '/ephem.nml')
  call write_catalogue(trim(dir) // '/elements.cat', nbody)
  allocate(els(nbody))
  call read_catalogue(trim(dir) // '/elements.cat', els)

  call propagate_all(trim(dir) // '/positions.da', els)
  call write_ephemeris(trim(dir) // '/positions.da', trim(dir) // '/ephemeris.txt', els)

  allocate(best_d(nbody, nbody), best_k(nbody, nbody))
  call screen_pairs(trim(dir) // '/positions.da', nbody, best_d, best_k)

  open(newunit=u, file=trim(dir) // '/encounters.txt', status='replace', action='write')
  write(u, '(a)') '# body_i       body_j        t_sample   d_sample[AU]   t_min[day]   d_min[km]'
  nenc = 0
  do j = 2, nbody
     do i = 2, j - 1
        if (best_d(i, j) < screen_au) then
           call refine_encounter(els(i), els(j), t_start + (best_k(i, j) - 1) * dt_days, dmin, tmin)
           write(u, '(a12,1x,a12,f12.2,es15.6,f12.3,es14.5)') els(i)%name, els(j)%name, &
                t_start + (best_k(i, j) - 1) * dt_days, best_d(i, j), tmin, dmin * au_km
           nenc = nenc + 1
        end if
     end do
  end do
  close(u)
  print '(a,i0,a,i0,a,i0,a)', 'propagated ', nbody, ' bodies over ', nepoch, ' epochs; ', nenc, &
       ' close approaches'
end program kepler_orbit_ephemeris
