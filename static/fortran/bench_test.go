package fortran

import (
	"fmt"
	"strings"
	"testing"
)

// generate returns a free-form source of about lines lines: a module of
// subroutines with declarations, nested loops, branches, calls and I/O.
func generate(lines int) []byte {
	var b strings.Builder
	b.WriteString("module gen\n  implicit none\n  integer, parameter :: dp = kind(1.0d0), n = 100\n" +
		"  real(dp), allocatable :: field(:,:)\ncontains\n")
	for k := 0; b.Len() < 40*lines; k++ {
		fmt.Fprintf(&b, `  subroutine step%[1]d(u, m, it)
    integer, intent(in) :: m, it
    real(dp), intent(inout) :: u(m, m)
    integer :: i, j, unit, ios
    character(len=64) :: fname
    ! relax the interior and write a checkpoint now and then
    do j = 2, m - 1
      do i = 2, m - 1
        u(i, j) = 0.25_dp * (u(i-1, j) + u(i+1, j) + &
                  u(i, j-1) + u(i, j+1))
      end do
    end do
    if (mod(it, 10) == 0 .and. it > 0) then
      write(fname, '(a, i0, ".bin")') 'ckpt_', it
      open(newunit=unit, file=trim(fname), form='unformatted', access='stream', iostat=ios)
      write(unit) ((u(i, j), i = 1, m), j = 1, m)
      close(unit)
    else if (it < 0) then
      call report%[1]d(u, m)
    end if
    select case (it)
    case (1)
      print *, 'first step', norm2(u)
    case default
      continue
    end select
  end subroutine step%[1]d
`, k)
	}
	b.WriteString("end module gen\n")
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	src := generate(200_000)
	lines := strings.Count(string(src), "\n")
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		f, err := Parse("gen.f90", src)
		if err != nil || len(f.Errors) > 0 {
			b.Fatalf("Parse: %v %v", err, f.Errors)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
