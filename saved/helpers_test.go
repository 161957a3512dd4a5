package saved

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
)

const (
	realDir = "../testdata/real/"
	rxeDir  = "../testdata/saved/rxe/"
	sosDir  = "../testdata/sosreport/sosreport-roce01-2026-12-01-rdmtop"
)

// load runs Load and fails the test on an error.
func load(t *testing.T, paths ...string) *Result {
	t.Helper()
	res, err := Load(paths)
	if err != nil {
		t.Fatalf("Load(%v): %v", paths, err)
	}
	return res
}

// input finds the input whose path ends in name.
func input(t *testing.T, res *Result, name string) Input {
	t.Helper()
	for _, in := range res.Inputs {
		if filepath.Base(in.Path) == name || in.Path == name {
			return in
		}
	}
	t.Fatalf("no input %s in %+v", name, res.Inputs)
	return Input{}
}

// last is the model's last snapshot.
func last(res *Result) *probes.Snapshot { return res.Snapshots[len(res.Snapshots)-1] }

// port finds a port by netdev (RDMA device "" for netdev-only ports) or
// by device and port.
func portOf(t *testing.T, s *probes.Snapshot, dev string, port int, netdev string) *probes.Port {
	t.Helper()
	for i := range s.Ports {
		p := &s.Ports[i]
		if netdev != "" && p.Netdev == netdev || netdev == "" && p.Device == dev && p.Port == port {
			return p
		}
	}
	t.Fatalf("no port %s/%d %s in the model", dev, port, netdev)
	return nil
}

// counter finds a counter by its native name.
func counter(p *probes.Port, native string) *probes.Counter {
	for i := range p.Counters {
		if p.Counters[i].Native == native {
			return &p.Counters[i]
		}
	}
	return nil
}

func value(t *testing.T, p *probes.Port, native string) uint64 {
	t.Helper()
	c := counter(p, native)
	if c == nil {
		t.Fatalf("%s/%d %s: no counter %s", p.Device, p.Port, p.Netdev, native)
	}
	return c.Value
}

// write puts files in a new directory.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func gzipWriter(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }
