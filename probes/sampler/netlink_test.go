package sampler

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

// loadExchanges turns a captured `rdma` command (NN-send.bin followed by
// its NN-recv.bin buffers) into replayable exchanges.
func loadExchanges(t *testing.T, dir string) []rdmanl.Exchange {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []rdmanl.Exchange
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, "-send.bin") {
			out = append(out, rdmanl.Exchange{Request: b})
			continue
		}
		out[len(out)-1].Replies = append(out[len(out)-1].Replies, b)
	}
	return out
}

// rxeTree reads the real rxe sysfs snapshot (a tarball of sys/...).
func rxeTree(t *testing.T, name string, drop func(string) bool) fstest.MapFS {
	t.Helper()
	f, err := os.Open(fixtures + "sysfs/rxe/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	m := fstest.MapFS{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return m
		}
		if err != nil {
			t.Fatal(err)
		}
		p := strings.TrimPrefix(strings.TrimPrefix(h.Name, "./"), "/")
		if drop(p) {
			continue
		}
		switch h.Typeflag {
		case tar.TypeReg:
			b, _ := io.ReadAll(tr)
			m[p] = &fstest.MapFile{Data: b, Mode: 0o444}
		case tar.TypeDir:
			m[strings.TrimSuffix(p, "/")] = &fstest.MapFile{Mode: os.ModeDir | 0o555}
		}
	}
}

// Real Soft-RoCE netlink answers (iproute2 captures) with the real rxe
// sysfs tree: QPs come from the QP dump, and a port whose sysfs has no
// counters gets them from STAT_GET instead.
func TestNetlinkQPsAndStatGetFallback(t *testing.T) {
	base := fixtures + "rxe-netlink/netlink/"
	var ex []rdmanl.Exchange
	for _, d := range []string{"link", "res_show_qp", "statistic_show"} {
		ex = append(ex, loadExchanges(t, base+d)...)
	}
	fsys := rxeTree(t, "sysfs-final.tar.gz", func(p string) bool { return strings.Contains(p, "rxe1/ports/1/hw_counters") })
	s := New(Sources{FS: fsys, RDMA: rdmanl.NewReplay(ex)}, Options{})
	snap := s.Sample(context.Background(), time.Unix(1_800_000_000, 0))

	if len(snap.QPs) == 0 {
		t.Fatalf("no QPs; status %+v", snap.Status)
	}
	var rc int
	for _, q := range snap.QPs {
		if q.Type == "RC" {
			rc++
		}
	}
	if rc != 8 { // taken with 4 RC QPs up, 0x11..0x14 on each device (MANIFEST: qpup)
		t.Errorf("%d RC QPs, want 8: %+v", rc, snap.QPs)
	}
	p0, p1 := findPort(snap, "rxe0", 1), findPort(snap, "rxe1", 1)
	if p0 == nil || p1 == nil {
		t.Fatalf("ports %+v", snap.Ports)
	}
	for _, c := range p0.Counters {
		if c.Source == "netlink" {
			t.Errorf("rxe0 has sysfs counters, yet netlink %s was used", c.Native)
		}
	}
	var nl int
	for _, c := range p1.Counters {
		if c.Source == "netlink" {
			nl++
		}
	}
	if nl == 0 {
		t.Errorf("rxe1 lost its sysfs hw_counters but got none from STAT_GET: %+v", p1.Counters)
	}
}
