! Fortran unformatted direct-access reader: build_db writes nrec records
! of reclen reals to a direct-access file (the database); lookup_db reads
! nlook records at scattered record numbers (a multiplicative hash of the
! query number) with READ(REC=...) and accumulates them into a profile;
! fit_profile smooths the profile by repeated averaging (compute). The
! write_report writes the smoothed profile as text, one formatted line
! per value. The procedures are external subroutines; sizes come in as
! arguments.
! Usage: ftn_direct_read DIR
program ftn_direct_read
  implicit none
  integer, parameter :: nrec = 4096, reclen = 512, nlook = 20000
  real(8) :: prof(reclen)
  character(len=4096) :: dir, path
  call get_command_argument(1, dir)
  path = trim(dir) // '/records.da'
  call build_db(trim(path), nrec, reclen)
  prof = 0d0
  call lookup_db(trim(path), nrec, reclen, nlook, prof)
  call fit_profile(prof, reclen, 3000)
  call write_report(trim(dir) // '/profile.txt', prof, reclen)
  print '(es16.8)', sum(prof)
end program ftn_direct_read

subroutine build_db(path, nrec, reclen)
  implicit none
  character(len=*), intent(in) :: path
  integer, intent(in) :: nrec, reclen
  real(8) :: rec(reclen)
  integer :: k, j
  open (unit=31, file=path, access='direct', form='unformatted', recl=8 * reclen, status='replace')
  do k = 1, nrec
     do j = 1, reclen
        rec(j) = dble(k) + 1d-3 * dble(j)
     end do
     write (31, rec=k) rec
  end do
  close (31)
end subroutine build_db

subroutine lookup_db(path, nrec, reclen, nlook, prof)
  implicit none
  character(len=*), intent(in) :: path
  integer, intent(in) :: nrec, reclen, nlook
  real(8), intent(inout) :: prof(reclen)
  real(8) :: rec(reclen)
  integer :: q, k
  open (unit=32, file=path, access='direct', form='unformatted', recl=8 * reclen, status='old', action='read')
  do q = 1, nlook
     k = 1 + mod(q * 7919 + 17, nrec)
     read (32, rec=k) rec
     prof = prof + rec / dble(nlook)
  end do
  close (32)
end subroutine lookup_db

subroutine write_report(path, prof, n)
  implicit none
  character(len=*), intent(in) :: path
  integer, intent(in) :: n
  real(8), intent(in) :: prof(n)
  integer :: i
  open (unit=33, file=path, status='replace', form='formatted', action='write')
  do i = 1, n
     write (33, '(i5,1x,es22.14)') i, prof(i)
  end do
  close (33)
end subroutine write_report

subroutine fit_profile(prof, n, iters)
  implicit none
  integer, intent(in) :: n, iters
  real(8), intent(inout) :: prof(n)
  real(8) :: tmp(n)
  integer :: it, i
  do it = 1, iters
     tmp(1) = prof(1)
     tmp(n) = prof(n)
     do i = 2, n - 1
        tmp(i) = 0.25d0 * prof(i - 1) + 0.5d0 * prof(i) + 0.25d0 * prof(i + 1)
     end do
     prof = tmp
  end do
end subroutine fit_profile
