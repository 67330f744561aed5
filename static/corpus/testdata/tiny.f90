! Fortran names: work is a module procedure (__tiny_mod_MOD_work), dump an
! external subroutine (dump_); dump writes NDUMP unformatted records.
module tiny_mod
  implicit none
  integer, parameter :: ndump = 50
contains
  real(8) function work(k)
    integer, intent(in) :: k
    integer :: i
    work = 0d0
    do i = 1, 10000
      work = work + sqrt(dble(i + k))
    end do
  end function work
end module tiny_mod

subroutine dump(u, x)
  integer, intent(in) :: u
  real(8), intent(in) :: x
  real(8) :: rec(512)
  rec = x
  write(u) rec
  flush(u)
end subroutine dump

program tiny
  use tiny_mod
  implicit none
  character(len=4096) :: dir
  integer :: u, k
  real(8) :: s
  call get_command_argument(1, dir)
  open(newunit=u, file=trim(dir)//'/tiny.bin', form='unformatted', status='replace')
  s = 0d0
  do k = 1, ndump
    s = s + work(k)
    call dump(u, s)
  end do
  close(u)
end program tiny
