! particle_cell_sort: out-of-core binning of particles by grid cell.
! Particles are generated and pushed chunk by chunk and stored as
! structure-of-arrays chunks in an unformatted STREAM file together with a
! stream file of their cell numbers.  A counting sort then re-reads both
! files chunk by chunk and scatters every particle as one record to its
! sorted position (WRITE with POS=).  Per-cell summaries go to a DIRECT
! access file written in reverse cell order; the sorted store is finally read
! back cell by cell and checked against the summaries and in-memory sums.
module particle_store
  use, intrinsic :: iso_c_binding, only: c_double, c_int32_t, c_int, c_char, c_null_char
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: i8 = selected_int_kind(18)
  integer, parameter :: np = 262144
  integer, parameter :: nchunk = 4096
  integer, parameter :: ngrid = 32
  integer, parameter :: ncell = ngrid * ngrid
  integer, parameter :: npush = 12
  real(dp), parameter :: dt = 2.0e-3_dp
  real(dp), parameter :: twopi = 6.283185307179586_dp

  type, bind(c) :: prec
     real(c_double) :: x, y, vx, vy
     integer(c_int32_t) :: id, cell
  end type prec

  integer :: count_cell(ncell)
  real(dp) :: ke_cell(ncell)
  integer(i8) :: first_cell(ncell)

  interface
     function c_mkdir(path, mode) bind(c, name='mkdir') result(rc)
       import :: c_int, c_char
       character(kind=c_char), dimension(*), intent(in) :: path
       integer(c_int), value :: mode
       integer(c_int) :: rc
     end function c_mkdir
  end interface

contains

  function hash_unit(k, salt) result(r)
    integer, intent(in) :: k, salt
    real(dp) :: r
    integer(i8) :: h
    h = modulo(int(k, i8) * 2654435761_i8 + int(salt, i8) * 40503_i8, 4294967296_i8)
    h = modulo(ieor(h, ishft(h, -15)) * 2146121005_i8, 4294967296_i8)
    h = modulo(ieor(h, ishft(h, -13)) * 1621135501_i8, 4294967296_i8)
    h = ieor(h, ishft(h, -16))
    r = real(h, dp) / 4294967296.0_dp
  end function hash_unit

  subroutine generate_chunk(i0, n, x, y, vx, vy, id)
    integer, intent(in) :: i0, n
    real(dp), intent(out) :: x(n), y(n), vx(n), vy(n)
    integer, intent(out) :: id(n)
    integer :: k, g
    do k = 1, n
       g = i0 + k - 1
       id(k) = g
       ! clustered initial positions: two blobs plus a uniform background
       if (mod(g, 3) == 0) then
          x(k) = hash_unit(g, 1)
          y(k) = hash_unit(g, 2)
       else
          x(k) = modulo(0.3_dp + 0.15_dp * (hash_unit(g, 1) - 0.5_dp) + 0.4_dp * mod(g, 2), 1.0_dp)
          y(k) = modulo(0.5_dp + 0.2_dp * (hash_unit(g, 2) - 0.5_dp), 1.0_dp)
       end if
       vx(k) = 0.2_dp * (hash_unit(g, 3) - 0.5_dp)
       vy(k) = 0.2_dp * (hash_unit(g, 4) - 0.5_dp)
    end do
  end subroutine generate_chunk

  ! leapfrog in a periodic cellular force field
  subroutine push_chunk(n, x, y, vx, vy)
    integer, intent(in) :: n
    real(dp), intent(inout) :: x(n), y(n), vx(n), vy(n)
    integer :: k, s
    real(dp) :: fx, fy
    do s = 1, npush
       do k = 1, n
          fx = -sin(twopi * x(k)) * cos(twopi * y(k))
          fy = cos(twopi * x(k)) * sin(twopi * y(k))
          vx(k) = vx(k) + dt * fx
          vy(k) = vy(k) + dt * fy
          x(k) = modulo(x(k) + dt * vx(k), 1.0_dp)
          y(k) = modulo(y(k) + dt * vy(k), 1.0_dp)
       end do
    end do
  end subroutine push_chunk

  pure function cell_of(x, y) result(c)
    real(dp), intent(in) :: x, y
    integer :: c
    c = min(int(x * ngrid), ngrid - 1) + ngrid * min(int(y * ngrid), ngrid - 1) + 1
  end function cell_of

  subroutine stage_generate(rawfile, cellfile)
    character(len=*), intent(in) :: rawfile, cellfile
    real(dp) :: x(nchunk), y(nchunk), vx(nchunk), vy(nchunk)
    integer :: id(nchunk), cells(nchunk)
    integer :: ur, uc, i0, k
    open(newunit=ur, file=rawfile, access='stream', form='unformatted', status='replace', action='write')
    open(newunit=uc, file=cellfile, access='stream', form='unformatted', status='replace', action='write')
    count_cell = 0
    ke_cell = 0.0_dp
    do i0 = 1, np, nchunk
       call generate_chunk(i0, nchunk, x, y, vx, vy, id)
       call push_chunk(nchunk, x, y, vx, vy)
       do k = 1, nchunk
          cells(k) = cell_of(x(k), y(k))
          count_cell(cells(k)) = count_cell(cells(k)) + 1
          ke_cell(cells(k)) = ke_cell(cells(k)) + 0.5_dp * (vx(k)**2 + vy(k)**2)
       end do
       write(ur) x, y, vx, vy, id
       write(uc) cells
    end do
    close(ur)
    close(uc)
  end subroutine stage_generate

  subroutine compute_offsets()
    integer :: c
    first_cell(1) = 0
    do c = 2, ncell
       first_cell(c) = first_cell(c - 1) + count_cell(c - 1)
    end do
  end subroutine compute_offsets

  subroutine stage_scatter(rawfile, cellfile, sortfile)
    character(len=*), intent(in) :: rawfile, cellfile, sortfile
    real(dp) :: x(nchunk), y(nchunk), vx(nchunk), vy(nchunk)
    integer :: id(nchunk), cells(nchunk)
    integer(i8) :: fill(ncell), recbytes, pos
    integer :: ur, uc, us, ich, k
    type(prec) :: p
    recbytes = int(storage_size(p) / 8, i8)
    fill = 0
    open(newunit=ur, file=rawfile, access='stream', form='unformatted', status='old', action='read')
    open(newunit=uc, file=cellfile, access='stream', form='unformatted', status='old', action='read')
    open(newunit=us, file=sortfile, access='stream', form='unformatted', status='replace', action='write')
    ! visit the chunks in reverse order to exercise positioned reads
    do ich = np / nchunk, 1, -1
       pos = int(ich - 1, i8) * nchunk * (4 * 8 + 4) + 1
       read(ur, pos=pos) x, y, vx, vy, id
       pos = int(ich - 1, i8) * nchunk * 4 + 1
       read(uc, pos=pos) cells
       do k = 1, nchunk
          p%x = x(k); p%y = y(k); p%vx = vx(k); p%vy = vy(k)
          p%id = id(k); p%cell = cells(k)
          pos = (first_cell(cells(k)) + fill(cells(k))) * recbytes + 1
          fill(cells(k)) = fill(cells(k)) + 1
          write(us, pos=pos) p
       end do
    end do
    close(ur)
    close(uc)
    close(us)
  end subroutine stage_scatter

  subroutine write_summaries(sumfile)
    character(len=*), intent(in) :: sumfile
    integer :: u, c, rl
    real(dp) :: rec(4)
    inquire(iolength=rl) rec
    open(newunit=u, file=sumfile, access='direct', form='unformatted', recl=rl, status='replace', action='write')
    do c = ncell, 1, -1
       rec = [real(c, dp), real(count_cell(c), dp), ke_cell(c), real(first_cell(c), dp)]
       write(u, rec=c) rec
    end do
    close(u)
  end subroutine write_summaries

  subroutine verify_sorted(sortfile, sumfile, nbad)
    character(len=*), intent(in) :: sortfile, sumfile
    integer, intent(out) :: nbad
    type(prec), allocatable :: buf(:)
    integer :: us, ud, c, k, rl, n
    integer(i8) :: recbytes, idsum
    real(dp) :: rec(4), ke
    type(prec) :: p
    recbytes = int(storage_size(p) / 8, i8)
    inquire(iolength=rl) rec
    allocate(buf(maxval(count_cell)))
    nbad = 0
    idsum = 0
    open(newunit=us, file=sortfile, access='stream', form='unformatted', status='old', action='read')
    open(newunit=ud, file=sumfile, access='direct', form='unformatted', recl=rl, status='old', action='read')
    do c = 1, ncell
       read(ud, rec=c) rec
       n = count_cell(c)
       if (nint(rec(1)) /= c .or. nint(rec(2)) /= n) nbad = nbad + 1
       if (n == 0) cycle
       read(us, pos=first_cell(c) * recbytes + 1) buf(1:n)
       ke = 0.0_dp
       do k = 1, n
          if (buf(k)%cell /= c .or. cell_of(buf(k)%x, buf(k)%y) /= c) nbad = nbad + 1
          ke = ke + 0.5_dp * (buf(k)%vx**2 + buf(k)%vy**2)
          idsum = idsum + buf(k)%id
       end do
       if (abs(ke - rec(3)) > 1.0e-9_dp * max(1.0_dp, rec(3))) nbad = nbad + 1
    end do
    close(us)
    close(ud)
    if (idsum /= int(np, i8) * (int(np, i8) + 1) / 2) nbad = nbad + 1
    deallocate(buf)
  end subroutine verify_sorted

end module particle_store

program particle_cell_sort
  use particle_store
  implicit none
  character(len=512) :: dir
  integer :: nbad, rc

  if (command_argument_count() < 1) then
     write(0, '(a)') 'usage: particle_cell_sort DIR'
     stop 1
  end if
  call get_command_argument(1, dir)
  rc = c_mkdir(trim(dir)//c_null_char, int(o'755', c_int))

  call stage_generate(trim(dir)//'/raw_chunks.bin', trim(dir)//'/cells.bin')
  if (sum(count_cell) /= np) then
     write(0, '(a)') 'particle_cell_sort: lost particles while binning'
     stop 2
  end if
  call compute_offsets()
  call stage_scatter(trim(dir)//'/raw_chunks.bin', trim(dir)//'/cells.bin', trim(dir)//'/sorted.bin')
  call write_summaries(trim(dir)//'/cell_summary.dat')
  call verify_sorted(trim(dir)//'/sorted.bin', trim(dir)//'/cell_summary.dat', nbad)
  if (nbad /= 0) then
     write(0, '(a,i0,a)') 'particle_cell_sort: ', nbad, ' inconsistencies in sorted store'
     stop 3
  end if
  write(*, '(a,i0,a,i0,a,i0)') 'particle_cell_sort: ', np, ' particles in ', ncell, &
       ' cells verified, fullest cell ', maxval(count_cell)
end program particle_cell_sort
