package sysfs

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/rdmatop/rdmatop/probes"
)

const (
	mlx5_0Dir = "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0"
	mlx5_1Dir = "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1/infiniband/mlx5_1"
	hwDir0    = "sys/class/infiniband/mlx5_0/ports/1/hw_counters"
	pmaDir0   = "sys/class/infiniband/mlx5_0/ports/1/counters"
)

func oneError(t *testing.T, s CounterSet, name string, kind ErrorKind) CounterError {
	t.Helper()
	if len(s.Errors) != 1 {
		t.Fatalf("errors %v, want one for %s", s.Errors, name)
	}
	e := s.Errors[0]
	if e.Name != name || e.Kind != kind {
		t.Fatalf("error %+v, want %s %s", e, name, kind)
	}
	if _, ok := s.Get(e.Source, name); ok {
		t.Fatalf("%s is both an error and a counter", name)
	}
	if len(s.Counters) != 51 {
		t.Fatalf("%d other counters, want 51", len(s.Counters))
	}
	return e
}

// A counter file that vanishes between ReadDir and ReadFile is skipped and
// noted; the others are read.
func TestFaultVanished(t *testing.T) {
	f := &faultFS{MapFS: mapCopy(t, "mlx5-roce-cx6dx-t0")}
	f.afterList = func(dir string) {
		if dir == hwDir0 {
			delete(f.MapFS, mlx5_0Dir+"/ports/1/hw_counters/out_of_sequence")
		}
	}
	s, err := ReadCounters(f, "mlx5_0", 1, "mlx5_core")
	if err != nil {
		t.Fatal(err)
	}
	e := oneError(t, s, "out_of_sequence", KindVanished)
	if e.Source != SourceHW || e.Path != hwDir0+"/out_of_sequence" || !errors.Is(e, fs.ErrNotExist) {
		t.Errorf("vanished %+v", e)
	}
}

// EACCES names the file in a *probes.PermissionError; EAGAIN, EINVAL,
// EOPNOTSUPP and EIO are per-counter read errors. None stops the others.
func TestFaultErrno(t *testing.T) {
	for _, c := range []struct {
		errno syscall.Errno
		kind  ErrorKind
	}{
		{syscall.EACCES, KindPermission},
		{syscall.EPERM, KindPermission},
		{syscall.EAGAIN, KindRead},
		{syscall.EINVAL, KindRead},
		{syscall.EOPNOTSUPP, KindRead},
		{syscall.EIO, KindRead},
	} {
		p := pmaDir0 + "/symbol_error"
		f := &faultFS{MapFS: mapCopy(t, "mlx5-roce-cx6dx-t0"), readErr: map[string]error{p: c.errno}}
		s, err := ReadCounters(f, "mlx5_0", 1, "")
		if err != nil {
			t.Fatal(err)
		}
		e := oneError(t, s, "symbol_error", c.kind)
		if !errors.Is(e, c.errno) || e.Source != SourcePMA || e.Path != p {
			t.Errorf("%v: %+v", c.errno, e)
		}
		if c.kind == KindPermission {
			var pe *probes.PermissionError
			if !errors.As(e, &pe) || pe.What != "read "+p || probes.StatusOf("sysfs", e).State != probes.StatePermissionDenied {
				t.Errorf("%v: not a PermissionError naming the file: %v", c.errno, e)
			}
		}
	}
}

// Garbage in a counter file is a per-counter parse error.
func TestFaultGarbage(t *testing.T) {
	for _, junk := range []string{"12abc\n", "-5\n", "\n", "18446744073709551616\n", "0x10\n", "NA\n"} {
		m := mapCopy(t, "mlx5-roce-cx6dx-t0")
		m[mlx5_0Dir+"/ports/1/hw_counters/np_cnp_sent"].Data = []byte(junk)
		s, err := ReadCounters(m, "mlx5_0", 1, "")
		if err != nil {
			t.Fatal(err)
		}
		e := oneError(t, s, "np_cnp_sent", KindParse)
		if e.Err == nil || e.Error() == "" {
			t.Errorf("%q: %+v", junk, e)
		}
	}
	// A value at the 64-bit limit is fine.
	m := mapCopy(t, "mlx5-roce-cx6dx-t0")
	m[mlx5_0Dir+"/ports/1/hw_counters/np_cnp_sent"].Data = []byte("18446744073709551615\n")
	if s := readSet(t, m, "mlx5_0", 1); get(t, s, SourceHW, "np_cnp_sent").Value != 1<<64-1 {
		t.Error("max uint64")
	}
	// So is a broken lifespan: noted, the counters read.
	m[mlx5_0Dir+"/ports/1/hw_counters/lifespan"].Data = []byte("soon\n")
	if s := readSet(t, m, "mlx5_0", 1); s.LifespanMS != nil || len(s.Errors) != 1 || s.Errors[0].Name != "lifespan" || len(s.Counters) != 52 {
		t.Errorf("bad lifespan: %+v", s.Errors)
	}
}

// A counter directory that cannot be listed is noted; the other is read.
func TestFaultDirectory(t *testing.T) {
	f := &faultFS{MapFS: mapCopy(t, "mlx5-roce-cx6dx-t0"), dirErr: map[string]error{pmaDir0: syscall.EACCES}}
	s, err := ReadCounters(f, "mlx5_0", 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.PMA || !s.HW || len(s.Counters) != 31 || len(s.Errors) != 1 || s.Errors[0].Name != "" || s.Errors[0].Kind != KindPermission {
		t.Errorf("pma %v hw %v counters %d errors %+v", s.PMA, s.HW, len(s.Counters), s.Errors)
	}
}

// A whole device disappears between discovery and the counter read.
func TestFaultDeviceGone(t *testing.T) {
	m := mapCopy(t, "mlx5-roce-cx6dx-t0")
	devs, err := Discover(m)
	if err != nil || len(devs) != 2 {
		t.Fatal(devs, err)
	}
	removeTree(m, mlx5_1Dir)
	delete(m, "sys/class/infiniband/mlx5_1")
	if _, err := ReadCounters(m, "mlx5_1", 1, ""); !errors.Is(err, ErrGone) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("gone device: %v", err)
	}
	if _, err := ReadPortState(m, "mlx5_1", 1); !errors.Is(err, ErrGone) {
		t.Errorf("gone port state: %v", err)
	}
	sets, err := ReadAllCounters(m, devs)
	if !errors.Is(err, ErrGone) || len(sets) != 1 || sets[0].Device != "mlx5_0" || len(sets[0].Counters) != 52 {
		t.Errorf("ReadAllCounters: %d sets, %v", len(sets), err)
	}
	if !strings.Contains(err.Error(), "mlx5_1 port 1") {
		t.Errorf("error does not name the port: %v", err)
	}
	devs, err = Discover(m)
	if err != nil || len(devs) != 1 {
		t.Errorf("rediscovery: %v %v", devs, err)
	}
}

// The device goes away while its counters are being read: every file
// vanishes after the listing.
func TestFaultDeviceGoneMidRead(t *testing.T) {
	f := &faultFS{MapFS: mapCopy(t, "mlx5-roce-cx6dx-t0")}
	f.afterList = func(dir string) {
		if dir == hwDir0 {
			removeTree(f.MapFS, mlx5_0Dir)
			delete(f.MapFS, "sys/class/infiniband/mlx5_0")
		}
	}
	s, err := ReadCounters(f, "mlx5_0", 1, "")
	if !errors.Is(err, ErrGone) {
		t.Errorf("err %v, %d counters, %d errors", err, len(s.Counters), len(s.Errors))
	}
}

// A device that vanishes during discovery is left out.
func TestFaultGoneDuringDiscovery(t *testing.T) {
	f := &faultFS{MapFS: mapCopy(t, "mlx5-roce-cx6dx-t0")}
	f.afterList = func(dir string) {
		if dir == ibClass {
			removeTree(f.MapFS, mlx5_1Dir)
			delete(f.MapFS, "sys/class/infiniband/mlx5_1")
		}
	}
	devs, err := Discover(f)
	if err != nil || len(devs) != 1 || devs[0].Name != "mlx5_0" {
		t.Errorf("devices %v, %v", devs, err)
	}
	if _, err := readDevice(newResolver(fstest.MapFS{}), "mlx5_9"); !errors.Is(err, ErrGone) {
		t.Errorf("readDevice of nothing: %v", err)
	}
}
