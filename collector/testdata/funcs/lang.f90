! Fortran I/O statements in function profiles (funcs_lang_test.go), built
! with -finstrument-functions:
!   lang DIR N
! Each subroutine below does only I/O: N formatted lines written (I8, 1X,
! ES24.16: 34 bytes a line) and read back, N/4 unformatted records (an
! INTEGER*4 and 64 REAL*8: 516 bytes between two 4-byte markers) written
! and read back, N lines written through derived-type I/O (I8, 1X, I8: 18
! bytes), N/100 writes that fail (IOSTAT=) and a read loop ended by END=.
! finternal does N internal writes and reads (and one derived-type write on
! a character variable), which are not file I/O.
module pairs
  implicit none
  type :: pair
     integer :: a, b
   contains
     procedure :: put => pair_put
     generic :: write(formatted) => put
  end type pair
contains
  subroutine pair_put(dtv, unit, iotype, vlist, iostat, iomsg)
    class(pair), intent(in) :: dtv
    integer, intent(in) :: unit
    character(*), intent(in) :: iotype
    integer, intent(in) :: vlist(:)
    integer, intent(out) :: iostat
    character(*), intent(inout) :: iomsg
    write(unit, '(I8,1X,I8)', iostat=iostat, iomsg=iomsg) dtv%a, dtv%b
  end subroutine pair_put
end module pairs

program lang
  implicit none
  character(len=4096) :: dir
  character(len=32) :: arg
  integer :: n, lines, errs
  double precision :: s1, s2
  integer(8) :: chars

  call get_command_argument(1, dir)
  call get_command_argument(2, arg)
  read(arg, *) n
  call fwrite_fmt(trim(dir)//'/fmt.txt', n)
  call ferrors(trim(dir)//'/fmt.txt', n / 100, errs)
  call fread_end(trim(dir)//'/fmt.txt', lines)
  call fread_fmt(trim(dir)//'/fmt.txt', n, s1)
  call fwrite_unf(trim(dir)//'/unf.bin', n / 4)
  call fread_unf(trim(dir)//'/unf.bin', n / 4, s2)
  call fwrite_dtio(trim(dir)//'/dtio.txt', n)
  call finternal(n, chars)
  ! s1 = sum(i / 7, i = 1..n), s2 = sum(2 * i, i = 1..n/4)
  if (lines /= n .or. abs(14 * s1 / (dble(n) * (n + 1)) - 1) > 1d-9 .or. &
      s2 /= dble(n / 4) * (n / 4 + 1) .or. chars <= 0 .or. errs /= n / 100) then
     print *, 'lang: bad results', lines, s1, s2, chars, errs
     error stop 1
  end if
end program lang

subroutine fwrite_fmt(path, n)
  implicit none
  character(*), intent(in) :: path
  integer, intent(in) :: n
  integer :: u, i
  open(newunit=u, file=path, status='replace', action='write')
  do i = 1, n
     write(u, '(I8,1X,ES24.16)') i, dble(i) / 7
  end do
  close(u)
end subroutine fwrite_fmt

subroutine fread_fmt(path, n, s)
  implicit none
  character(*), intent(in) :: path
  integer, intent(in) :: n
  double precision, intent(out) :: s
  integer :: u, i, k
  double precision :: x
  s = 0
  open(newunit=u, file=path, status='old', action='read')
  do k = 1, n
     read(u, '(I8,1X,ES24.16)') i, x
     s = s + x
  end do
  close(u)
end subroutine fread_fmt

subroutine ferrors(path, n, errs)
  implicit none
  character(*), intent(in) :: path
  integer, intent(in) :: n
  integer, intent(out) :: errs
  integer :: u, i, ios
  errs = 0
  open(newunit=u, file=path, status='old', action='read')
  do i = 1, n
     write(u, '(I8)', iostat=ios) i
     if (ios /= 0) errs = errs + 1
  end do
  close(u)
end subroutine ferrors

subroutine fread_end(path, lines)
  implicit none
  character(*), intent(in) :: path
  integer, intent(out) :: lines
  integer :: u, i
  double precision :: x
  lines = 0
  open(newunit=u, file=path, status='old', action='read')
  do
     read(u, '(I8,1X,ES24.16)', end=10) i, x
     lines = lines + 1
  end do
10 close(u)
end subroutine fread_end

subroutine fwrite_unf(path, n)
  implicit none
  character(*), intent(in) :: path
  integer, intent(in) :: n
  integer :: u, i
  double precision :: v(64)
  v = 1
  open(newunit=u, file=path, form='unformatted', status='replace', action='write')
  do i = 1, n
     v(1) = i
     write(u) i, v
  end do
  close(u)
end subroutine fwrite_unf

subroutine fread_unf(path, n, s)
  implicit none
  character(*), intent(in) :: path
  integer, intent(in) :: n
  double precision, intent(out) :: s
  integer :: u, i, k
  double precision :: v(64)
  s = 0
  open(newunit=u, file=path, form='unformatted', status='old', action='read')
  do k = 1, n
     read(u) i, v
     s = s + v(1) + i
  end do
  close(u)
end subroutine fread_unf

subroutine fwrite_dtio(path, n)
  use pairs
  implicit none
  character(*), intent(in) :: path
  integer, intent(in) :: n
  integer :: u, i
  open(newunit=u, file=path, status='replace', action='write')
  do i = 1, n
     write(u, '(DT)') pair(i, 2 * i)
  end do
  close(u)
end subroutine fwrite_dtio

subroutine finternal(n, chars)
  use pairs
  implicit none
  integer, intent(in) :: n
  integer(8), intent(out) :: chars
  character(len=40) :: line
  integer :: i, j
  chars = 0
  do i = 1, n
     write(line, '(I8,1X,ES24.16)') i, dble(i) / 7
     read(line, '(I8)') j
     chars = chars + len_trim(line) + j - i
  end do
  write(line, '(DT)') pair(1, 2)
  chars = chars + len_trim(line)
end subroutine finternal
