package darshan

import "testing"

func TestRecordIDVectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		want uint64
	}{
		{"", 10211412111675192767},
		{"a", 2110215103713784748},
		{"<STDIN>", 14734109647742566553},
		{"heatmap:POSIX", 16592106915301738621},
		{"abcdefghijklmnopqrstuvw", 15927770037946912996},
		{"abcdefghijklmnopqrstuvwx", 12207599811442368889},
		{"/tmp/tmp/mpi-io-test.tmp.dat", 11344915649860608681},
		{"/home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat", 9347516096890457488},
	} {
		if got := RecordID(tc.name); got != tc.want {
			t.Errorf("RecordID(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := hash64([]byte("hello"), 1234567); got != 15173636554514906329 {
		t.Errorf("hash64(hello, 1234567) = %d, want 15173636554514906329", got)
	}
}
