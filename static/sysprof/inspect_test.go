package sysprof

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestInspectFixture(t *testing.T) {
	root := unpackFixture(t, filepath.Join("testdata", "machine.txtar"))
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		dir        string
		mountPoint string
		fsType     string
		device     string
		class      Class
		rotational bool
		parallel   bool
	}{
		{"/nonexistent-iolens/run", "/", "ext4", "nvme0n1", ClassNVMe, false, false},
		{"/database", "/", "ext4", "nvme0n1", ClassNVMe, false, false}, // not under /data
		{"/data/run", "/data", "xfs", "sda", ClassHDD, true, false},
		{"/data/overlay/x", "/data/overlay", "overlay", "", ClassUnknown, false, false},
		{"/scratch/user", "/scratch", "lustre", "", ClassNetwork, false, true},
		{"/nfs/x", "/nfs", "nfs4", "", ClassNetwork, false, false},
		{"/dev/shm/iolens-nonexistent", "/dev/shm", "tmpfs", "", ClassMemory, false, false},
		{"/mnt/my disk/f", "/mnt/my disk", "ext4", "sdb", ClassSSD, false, false},
		{"/home/nonexistent-iolens", "/home", "ext4", "dm-0", ClassHDD, true, false},
		{"/work/a", "/work", "xfs", "sda", ClassHDD, true, false}, // the later mount hides the NFS one
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			p, err := Inspect(tt.dir, Options{Root: root, Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			s := p.Storage
			got := []any{s.Mount.MountPoint, s.Mount.FSType, s.Device, s.Class, s.Rotational, s.Parallel, s.Targets}
			want := []any{tt.mountPoint, tt.fsType, tt.device, tt.class, tt.rotational, tt.parallel, 1}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("storage (-want +got):\n%s", diff)
			}
			wantCPU := CPU{Model: "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", Threads: 4, Cores: 3, MHz: 2200}
			if diff := cmp.Diff(wantCPU, p.CPU); diff != "" {
				t.Errorf("cpu (-want +got):\n%s", diff)
			}
			wantMem := Memory{Total: 16384000 * 1024, Available: 8192000 * 1024}
			if p.Memory != wantMem {
				t.Errorf("memory = %+v, want %+v", p.Memory, wantMem)
			}
			if len(p.Mounts) != 11 {
				t.Errorf("%d mounts, want 11", len(p.Mounts))
			}
			if p.Perf != DefaultPerf(tt.class) || p.Perf.Probed {
				t.Errorf("perf = %+v, want the unprobed defaults of %s", p.Perf, tt.class)
			}
			if !p.ProbedAt.Equal(now) || p.Format != FormatVersion {
				t.Errorf("probed at %v format %d", p.ProbedAt, p.Format)
			}
		})
	}
}

func TestInspectTargets(t *testing.T) {
	root := unpackFixture(t, filepath.Join("testdata", "machine.txtar"))
	p, err := Inspect("/scratch/u", Options{Root: root, Targets: 8})
	if err != nil {
		t.Fatal(err)
	}
	s := p.System()
	s.Ranks = 64
	if got := s.RanksPerTarget(); got != 8 {
		t.Errorf("ranks per target = %v, want 8", got)
	}
}

func TestInspectMissingProcIsDefaults(t *testing.T) {
	p, err := Inspect(t.TempDir(), Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if p.Storage.Class != ClassUnknown || p.CPU.MHz != 0 || p.Perf != DefaultPerf(ClassUnknown) {
		t.Errorf("profile without /proc = %+v", p)
	}
	if got := p.System().SecondsPerOp; got != 1/(DefaultMHz*1e6) {
		t.Errorf("seconds per op = %v, want the default clock's", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
		parse            func(string) error
	}{
		{"mountinfo separator", "27 1 8:1 / / rw ext4 /dev/sda1 rw\n", "line 1: no ' - ' separator", func(s string) error {
			_, err := parseMountInfo(strings.NewReader(s))
			return err
		}},
		{"mountinfo device", "22 27 0:21 / /proc rw - proc proc rw\n27 1 8 / / rw - ext4 /dev/sda1 rw\n", "line 2: device \"8\"", func(s string) error {
			_, err := parseMountInfo(strings.NewReader(s))
			return err
		}},
		{"meminfo value", "MemTotal: lots kB\n", "MemTotal", func(s string) error {
			_, err := parseMemInfo(strings.NewReader(s))
			return err
		}},
		{"meminfo total", "MemFree: 1 kB\n", "no MemTotal", func(s string) error {
			_, err := parseMemInfo(strings.NewReader(s))
			return err
		}},
	}
	for _, tt := range tests {
		err := tt.parse(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/plain`:         "/plain",
		`/a\040b`:        "/a b",
		`/tab\011x\134y`: "/tab\tx\\y",
		`/short\04`:      `/short\04`,
		`/not\999octal`:  `/not\999octal`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseCPUInfoARM(t *testing.T) {
	// No "cpu MHz", no core ids: cores fall back to the logical CPUs.
	cpu, err := parseCPUInfo(strings.NewReader("processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cpu != (CPU{Threads: 2, Cores: 2}) {
		t.Errorf("cpu = %+v", cpu)
	}
	mhz, err := parseMaxFreq([]byte("2600000\n"))
	if err != nil || mhz != 2600 {
		t.Errorf("max freq = %v, %v; want 2600", mhz, err)
	}
}
