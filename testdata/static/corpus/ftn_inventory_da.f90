! Warehouse inventory kept as a direct-access unformatted record file.
! Each record holds one stock item: id, quantity on hand, number of
! movements, value and a small history of recent quantities.  A stream of
! random stock movements is applied as read-modify-write updates of single
! records (READ REC= / WRITE REC=); finally the whole file is scanned in
! record order and the totals are compared with the ones kept in memory.
module inventory_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: i8 = selected_int_kind(15)
  integer, parameter :: nitems = 24000
  integer, parameter :: nmoves = 220000
  integer, parameter :: nhist = 8

  type :: item_rec
    integer :: id
    integer :: qty
    integer :: nmov
    integer :: pad
    real(dp) :: unit_price
    real(dp) :: value
    integer :: history(nhist)
  end type item_rec

  integer(i8) :: seed = 88172645463325252_i8

contains

  integer function next_rand(n)
    ! xorshift64, result in 1..n
    integer, intent(in) :: n
    seed = ieor(seed, ishft(seed, 13))
    seed = ieor(seed, ishft(seed, -7))
    seed = ieor(seed, ishft(seed, 17))
    next_rand = int(modulo(seed, int(n, i8))) + 1
  end function next_rand

  subroutine create_database(path, u, total_qty, total_value)
    character(len=*), intent(in) :: path
    integer, intent(out) :: u
    integer(i8), intent(out) :: total_qty
    real(dp), intent(out) :: total_value
    type(item_rec) :: r
    integer :: rl, k
    inquire(iolength=rl) r
    open(newunit=u, file=path, access='direct', form='unformatted', recl=rl, &
         status='replace', action='readwrite')
    total_qty = 0
    total_value = 0.0_dp
    do k = 1, nitems
      r%id = k
      r%qty = 100 + next_rand(400)
      r%nmov = 0
      r%pad = 0
      r%unit_price = 0.25_dp * next_rand(200)
      r%value = r%qty * r%unit_price
      r%history = r%qty
      write(u, rec=k) r
      total_qty = total_qty + r%qty
      total_value = total_value + r%value
    end do
  end subroutine create_database

  subroutine apply_movements(u, total_qty, total_moves, rejected)
    integer, intent(in) :: u
    integer(i8), intent(inout) :: total_qty
    integer(i8), intent(out) :: total_moves
    integer, intent(out) :: rejected
    type(item_rec) :: r
    integer :: m, k, delta
    total_moves = 0
    rejected = 0
    do m = 1, nmoves
      ! skewed access: popular items are hit more often
      k = next_rand(nitems)
      if (mod(m, 3) == 0) k = 1 + mod(k, nitems / 20)
      delta = next_rand(61) - 31
      read(u, rec=k) r
      if (r%id /= k) then
        print *, 'record', k, ' has id', r%id
        error stop 1
      end if
      if (r%qty + delta < 0) then
        rejected = rejected + 1
        cycle
      end if
      r%qty = r%qty + delta
      r%nmov = r%nmov + 1
      r%value = r%qty * r%unit_price
      r%history(1:nhist-1) = r%history(2:nhist)
      r%history(nhist) = r%qty
      write(u, rec=k) r
      total_qty = total_qty + delta
      total_moves = total_moves + 1
    end do
  end subroutine apply_movements

  subroutine scan_and_verify(u, total_qty, total_moves, report_path)
    integer, intent(in) :: u
    integer(i8), intent(in) :: total_qty, total_moves
    character(len=*), intent(in) :: report_path
    type(item_rec) :: r
    integer :: k, ur, nlow
    integer(i8) :: q, nm
    real(dp) :: v
    q = 0
    nm = 0
    v = 0.0_dp
    nlow = 0
    do k = 1, nitems
      read(u, rec=k) r
      if (r%id /= k .or. r%history(nhist) /= r%qty) then
        print *, 'corrupt record', k
        error stop 1
      end if
      if (abs(r%value - r%qty * r%unit_price) > 1.0e-9_dp * (1.0_dp + r%value)) then
        print *, 'value inconsistent in record', k
        error stop 1
      end if
      q = q + r%qty
      nm = nm + r%nmov
      v = v + r%value
      if (r%qty < 50) nlow = nlow + 1
    end do
    if (q /= total_qty .or. nm /= total_moves) then
      print *, 'totals differ: qty', q, total_qty, ' moves', nm, total_moves
      error stop 1
    end if
    open(newunit=ur, file=report_path, status='replace', action='write')
    write(ur, '(a,i12)') 'items           ', nitems
    write(ur, '(a,i12)') 'total quantity  ', q
    write(ur, '(a,i12)') 'movements       ', nm
    write(ur, '(a,f16.2)') 'stock value     ', v
    write(ur, '(a,i12)') 'items below 50  ', nlow
    close(ur)
  end subroutine scan_and_verify

end module inventory_mod

program ftn_inventory_da
  use inventory_mod
  implicit none
  character(len=512) :: dir
  integer :: u, rejected
  integer(i8) :: total_qty, total_moves
  real(dp) :: total_value

  if (command_argument_count() < 1) then
    print *, 'usage: ftn_inventory_da DIR'
    error stop 2
  end if
  call get_command_argument(1, dir)
  call create_database(trim(dir) // '/inventory.dat', u, total_qty, total_value)
  call apply_movements(u, total_qty, total_moves, rejected)
  call scan_and_verify(u, total_qty, total_moves, trim(dir) // '/inventory_report.txt')
  close(u)
  print '(a,i8,a,i8,a,i10)', 'ftn_inventory_da ok: moves=', total_moves, ' rejected=', rejected, &
       ' qty=', total_qty
end program ftn_inventory_da
