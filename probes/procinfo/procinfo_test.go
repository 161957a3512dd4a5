package procinfo

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/owner"
)

var (
	realRoot  = filepath.Join("..", "..", "testdata", "procinfo")
	synthRoot = filepath.Join("..", "..", "testdata", "procinfo", "synthetic")
)

func u(v uint64) *uint64 { return &v }

func fixture(t testing.TB, root string) *FS {
	t.Helper()
	f, err := New(root, Options{PageSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestMemoryFixture(t *testing.T) {
	m, err := fixture(t, realRoot).Memory()
	if err != nil {
		t.Fatal(err)
	}
	want := Memory{
		MemFreeBytes:      u(23569724 * 1024),
		MemAvailableBytes: u(24273344 * 1024),
		HugePagesTotal:    u(0), HugePagesFree: u(0), HugePagesRsvd: u(0), HugePagesSurp: u(0),
		HugePageSizeBytes: u(2048 * 1024),
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %s\nwant %s", js(m), js(want))
	}
	m, err = fixture(t, synthRoot).Memory()
	if err != nil || *m.HugePagesTotal != 1024 || *m.HugePagesFree != 1000 || *m.HugePagesRsvd != 8 {
		t.Errorf("synthetic: %v %s", err, js(m))
	}
}

// blocks computes free and high-order bytes of one buddyinfo line by hand.
func blocks(counts []uint64) (free, high uint64) {
	for order, n := range counts {
		b := n * (1 << order) * 4096
		free += b
		if order >= 9 {
			high += b
		}
	}
	return
}

func TestFragmentationFixture(t *testing.T) {
	fr, err := fixture(t, realRoot).Fragmentation()
	if err != nil {
		t.Fatal(err)
	}
	lines := [][]uint64{ // testdata/procinfo/proc/buddyinfo, by hand
		{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 3},
		{3, 2, 4, 2, 5, 4, 3, 3, 4, 2, 752},
		{7268, 6995, 3505, 2076, 907, 315, 168, 36, 7, 93, 358},
	}
	zones := []string{"DMA", "DMA32", "Normal"}
	var free, high uint64
	for i, l := range lines {
		f, h := blocks(l)
		z := fr.Zones[i]
		if z.Node != "0" || z.Zone != zones[i] || !reflect.DeepEqual(z.Blocks, l) || z.FreeBytes != f || z.HighOrderBytes != h {
			t.Errorf("zone %d: %+v, want free %d high %d", i, z, f, h)
		}
		free += f
		high += h
	}
	if fr.HighOrder != 9 || fr.PageSize != 4096 || fr.FreeBytes != free || fr.HighOrderBytes != high || len(fr.Zones) != 3 {
		t.Errorf("%s", js(fr))
	}
	if fr.HighOrderFraction == nil || math.Abs(*fr.HighOrderFraction-float64(high)/float64(free)) > 1e-12 {
		t.Errorf("fraction %v", fr.HighOrderFraction)
	}

	s, err := fixture(t, synthRoot).Fragmentation()
	if err != nil {
		t.Fatal(err)
	}
	if s.FreeBytes != 1280536576 || s.HighOrderBytes != 14680064 || len(s.Zones) != 3 || s.Zones[2].Node != "1" || *s.HighOrderFraction > 0.012 {
		t.Errorf("synthetic: %s", js(s))
	}
}

func TestHighOrder(t *testing.T) {
	for ps, want := range map[int]int{4096: 9, 16384: 7, 65536: 5, 2 << 20: 0} {
		if got := highOrder(ps); got != want {
			t.Errorf("page size %d: order %d, want %d", ps, got, want)
		}
	}
}

func TestProcessFixture(t *testing.T) {
	f := fixture(t, realRoot)
	// 15232, 2 and 4242 were copied without their cgroup file: the owner
	// is unknown and says why, the rest stands.
	noCgroup := func(p *Process) {
		if !strings.Contains(p.CgroupErr, "/cgroup: ") {
			t.Errorf("pid %d: cgroup error %q", p.PID, p.CgroupErr)
		}
		p.CgroupErr = ""
	}
	p, err := f.Process(15232)
	noCgroup(&p)
	want := Process{PID: 15232, Comm: "sleep", MemlockSoft: Limit{Bytes: 65536}, MemlockHard: Limit{Bytes: 8388608}, VmLckBytes: u(0), VmPinBytes: u(0)}
	if err != nil || !reflect.DeepEqual(p, want) {
		t.Errorf("%v %s", err, js(p))
	}
	p, err = f.Process(2) // kthreadd: no VmLck/VmPin at all
	noCgroup(&p)
	want = Process{PID: 2, Comm: "kthreadd", MemlockSoft: Limit{Bytes: 8388608}, MemlockHard: Limit{Bytes: 8388608}}
	if err != nil || !reflect.DeepEqual(p, want) {
		t.Errorf("%v %s", err, js(p))
	}
	// 675: a process of a hybrid cgroup v1/v2 host whose memory
	// hierarchy alone places it (in no container).
	p, err = f.Process(675)
	if err != nil || p.Comm != "sleep" || p.CgroupErr != "" || p.Owner != (owner.Owner{Cgroup: "/process_api/bbc2f3ab23569ccfde511451b1930361"}) {
		t.Errorf("pid 675: %v %s", err, js(p))
	}
	p, err = fixture(t, synthRoot).Process(4242)
	noCgroup(&p)
	want = Process{PID: 4242, Comm: "ib_write_bw", MemlockSoft: Limit{Unlimited: true}, MemlockHard: Limit{Unlimited: true}, VmLckBytes: u(1 << 20), VmPinBytes: u(64 << 20)}
	if err != nil || !reflect.DeepEqual(p, want) {
		t.Errorf("%v %s", err, js(p))
	}
	if soft, unl := p.MemlockSnapshot(); soft != nil || !unl {
		t.Errorf("snapshot: %v %v", soft, unl)
	}
	if b, _ := json.Marshal(p.MemlockSoft); string(b) != `{"unlimited":true}` || p.MemlockSoft.String() != "unlimited" {
		t.Errorf("%s", b)
	}
}

func TestProcessGone(t *testing.T) {
	f := fixture(t, realRoot)
	_, err := f.Process(999999)
	var ge *ProcessGoneError
	if !errors.Is(err, ErrProcessGone) || !errors.As(err, &ge) || ge.PID != 999999 || err.Error() != "pid 999999: process has exited" {
		t.Fatalf("%v", err)
	}
	procs, gone, err := f.Processes([]int{2, 999999, 15232})
	if err != nil || len(procs) != 2 || !reflect.DeepEqual(gone, []int{999999}) {
		t.Errorf("%v %v %v", procs, gone, err)
	}
	// A PID whose directory is there but whose files vanish mid-read.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proc", "77"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proc", "77", "comm"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fixture(t, dir).Process(77); !errors.Is(err, ErrProcessGone) {
		t.Errorf("limits vanished: %v", err)
	}
}

func TestErrors(t *testing.T) {
	if _, err := New(t.TempDir(), Options{}); !errors.Is(err, probes.ErrNotSupported) {
		t.Errorf("no proc dir: %v", err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "proc")
	os.MkdirAll(filepath.Join(p, "5"), 0o755)
	os.WriteFile(filepath.Join(p, "meminfo"), []byte("MemFree: lots kB\n"), 0o644)
	os.WriteFile(filepath.Join(p, "buddyinfo"), []byte("Node 0, zone Normal 1 2\nNode 0, zone DMA 1\n"), 0o644)
	os.WriteFile(filepath.Join(p, "5", "comm"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(p, "5", "limits"), []byte("Limit                     Soft Limit           Hard Limit           Units     \nMax cpu time              unlimited            unlimited            seconds   \n"), 0o644)
	f := fixture(t, dir)
	if _, err := f.Memory(); err == nil {
		t.Error("garbage meminfo: no error")
	}
	if _, err := f.Fragmentation(); err == nil {
		t.Error("garbage buddyinfo: no error")
	}
	if _, err := f.Process(5); err == nil || errors.Is(err, ErrProcessGone) {
		t.Errorf("limits without memlock: %v", err)
	}
	if _, err := hardMemlock([]byte("Max locked memory         65536\n")); err == nil {
		t.Error("short line: no error")
	}
	if _, err := hardMemlock([]byte("Max locked memory         65536   lots  bytes\n")); err == nil {
		t.Error("bad number: no error")
	}
}

func TestSnapshot(t *testing.T) {
	f := fixture(t, synthRoot)
	m, _ := f.Memory()
	fr, _ := f.Fragmentation()
	s := m.Snapshot(&fr)
	if *s.HugePagesTotal != 1024 || *s.HugePagesFree != 1000 || *s.HugePageSizeKB != 2048 || *s.HighOrderFreeKB != 14336 || s.MemAvailableKB == nil {
		t.Errorf("%s", js(s))
	}
	if s := (Memory{}).Snapshot(nil); s.HighOrderFreeKB != nil || s.HugePageSizeKB != nil {
		t.Errorf("%s", js(s))
	}
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }
