! Fortran unformatted I/O: module records_mod computes NREC records of
! RECLEN reals (make_record), writes them to a sequential unformatted file
! (write_sequential), then to a direct-access file (write_direct), and
! reads the direct-access records back in reverse order (read_direct).
! Usage: ftn_unformatted DIR
module records_mod
  implicit none
  integer, parameter :: nrec = 20000, reclen = 256
contains
  subroutine make_record(k, r)
    integer, intent(in) :: k
    real(8), intent(out) :: r(reclen)
    integer :: i
    do i = 1, reclen
      r(i) = sin(dble(k) * 0.001d0 + dble(i))
    end do
  end subroutine make_record

  subroutine write_sequential(path)
    character(len=*), intent(in) :: path
    real(8) :: r(reclen)
    integer :: u, k
    open(newunit=u, file=path, form='unformatted', access='sequential', status='replace')
    do k = 1, nrec
      call make_record(k, r)
      write(u) r
    end do
    close(u)
  end subroutine write_sequential

  subroutine write_direct(path)
    character(len=*), intent(in) :: path
    real(8) :: r(reclen)
    integer :: u, k
    open(newunit=u, file=path, form='unformatted', access='direct', recl=8*reclen, status='replace')
    do k = 1, nrec
      call make_record(k, r)
      write(u, rec=k) r
    end do
    close(u)
  end subroutine write_direct

  real(8) function read_direct(path) result(total)
    character(len=*), intent(in) :: path
    real(8) :: r(reclen)
    integer :: u, k
    total = 0d0
    open(newunit=u, file=path, form='unformatted', access='direct', recl=8*reclen, status='old')
    do k = nrec, 1, -1
      read(u, rec=k) r
      total = total + sum(r)
    end do
    close(u)
  end function read_direct
end module records_mod

program ftn_unformatted
  use records_mod
  implicit none
  character(len=4096) :: dir
  call get_command_argument(1, dir)
  call write_sequential(trim(dir) // '/seq.bin')
  call write_direct(trim(dir) // '/direct.bin')
  print '(f20.6)', read_direct(trim(dir) // '/direct.bin')
end program ftn_unformatted
