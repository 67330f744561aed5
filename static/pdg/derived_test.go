package pdg

import "testing"

// Unformatted transfers of a derived-type value move its components one
// after the other; a component moves its own elements; INQUIRE IOLENGTH
// gives the record length of its items; a formatted transfer writes each
// component element as text.
func TestDerivedTypeTransfers(t *testing.T) {
	src := []source{{"prog.f90", `module recs
  integer, parameter :: nd = 31
  type :: month_rec
     integer :: station, year, month, ndays
     real :: tday(nd)
     integer :: flags(nd)
  end type month_rec
  type :: pair
     type(month_rec) :: a, b
     real(8) :: w
  end type pair
end module recs
program p
  use recs
  type(month_rec) :: r, rs(12)
  type(pair) :: q
  integer :: u, v, reclen, i
  inquire(iolength=reclen) r
  open(newunit=u, file='a.bin', access='direct', form='unformatted', recl=reclen)
  do i = 1, reclen
     write(u, rec=i) r ! whole record
  end do
  write(u, rec=1) r%tday ! one component
  write(u, rec=1) r%tday(1:10) ! component section
  write(u, rec=1) rs(3)%flags(2) ! element of a component
  write(u, rec=1) rs ! array of records
  write(u, rec=1) q ! nested
  close(u)
  open(newunit=v, file='a.txt')
  write(v, *) r ! as text
  close(v)
end program p
`}}
	g := buildSources(t, Options{}, src...)
	const rec = 4*4 + 31*4 + 31*4
	checkBytes(t, g, src, []bytesWant{
		{"whole record", rec},
		{"one component", 31 * 4},
		{"component section", 10 * 4},
		{"element of a component", 4},
		{"array of records", 12 * rec},
		{"nested", 2*rec + 8},
		{"as text", 35*8 + 31*16}, // 35 integers and 31 reals as text
	})
	checkTrips(t, g, src, []tripWant{{"do i = 1, reclen", rec}})
}
