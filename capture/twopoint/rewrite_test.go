package twopoint

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// rewrite copies the capture at path into a pcap in a test directory,
// each frame and its time passed through edit, which may drop it.
func rewrite(t *testing.T, path string, edit func(data []byte, ts time.Time) (time.Time, bool)) string {
	t.Helper()
	src, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out := filepath.Join(t.TempDir(), filepath.Base(strings.TrimSuffix(path, ".gz")))
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriterNanos(f)
	if err := w.WriteFileHeader(262144, src.LinkType()); err != nil {
		t.Fatal(err)
	}
	for {
		data, ci, _, err := src.ReadPacket()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data = append([]byte(nil), data...)
		var keep bool
		if ci.Timestamp, keep = edit(data, ci.Timestamp); !keep {
			continue
		}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
}

// zeroIPv4ID clears the IPv4 identification of an Ethernet frame, as
// hardware RoCE NICs send it (and fixes nothing else: the committed
// captures keep 128 bytes, so no ICRC is checked).
func zeroIPv4ID(data []byte) {
	if len(data) >= 14+20 && data[12] == 0x08 && data[13] == 0x00 {
		data[14+4], data[14+5] = 0, 0
	}
}

// B's clock 3.5 s ahead of A's: the offset is recovered within its
// stated uncertainty, and every fate is the same.
func TestOffsetRecovered(t *testing.T) {
	dir := "../../testdata/wiretruth/loss5-write"
	const shift = 3500 * time.Millisecond
	a := filepath.Join(dir, "veth0.pcap.gz")
	b := rewrite(t, filepath.Join(dir, "veth1.pcap.gz"), func(_ []byte, ts time.Time) (time.Time, bool) { return ts.Add(shift), true })
	base, err := CompareFiles(a, filepath.Join(dir, "veth1.pcap.gz"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := CompareFiles(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	off := got.Offset
	if !off.Known || off.Inconsistent || abs(off.NS-int64(shift)) > off.UncertaintyNS || off.UncertaintyNS > int64(time.Millisecond) {
		t.Errorf("offset %+v, want %v within its uncertainty (and that under 1 ms)", off, shift)
	}
	for i := range base.Flows {
		if got.Flows[i].Fate != base.Flows[i].Fate {
			t.Errorf("flow %d: %+v shifted, %+v not", i, got.Flows[i].Fate, base.Flows[i].Fate)
		}
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Every run again with every IPv4 ID zeroed, as hardware RoCE sends
// them: a resend then looks like its original. Each way's totals stay
// within 1 % of the truth's, and a way loses packets exactly where the
// truth says it did.
func TestIDsZeroed(t *testing.T) {
	if testing.Short() {
		t.Skip("every campaign run: in the full pass (the package has no goroutines for -race to watch)")
	}
	dirs, _ := filepath.Glob("../../testdata/wiretruth/*/truth.json.gz")
	if len(dirs) < 40 {
		t.Fatalf("%d runs", len(dirs))
	}
	for _, tj := range dirs {
		dir := filepath.Dir(tj)
		run := filepath.Base(dir)
		zero := func(data []byte, ts time.Time) (time.Time, bool) { zeroIPv4ID(data); return ts, true }
		r, err := CompareFiles(rewrite(t, filepath.Join(dir, "veth0.pcap.gz"), zero), rewrite(t, filepath.Join(dir, "veth1.pcap.gz"), zero), Options{})
		if err != nil {
			t.Errorf("%s: %v", run, err)
			continue
		}
		var want, got [2]Fate // by upstream: veth0 (A), veth1 (B)
		for _, tf := range loadTruth(t, dir) {
			i := map[string]int{"veth0": 0, "veth1": 1}[tf.Upstream]
			want[i].add(Fate{Sent: tf.Sent, Delivered: tf.Delivered + tf.Corrupted, Lost: tf.Lost, Duplicated: tf.Duplicated, CEMarked: tf.CEMarked})
		}
		for _, f := range r.Flows {
			i := map[string]int{"A": 0, "B": 1}[f.Upstream]
			got[i].add(Fate{Sent: f.Sent, Delivered: f.Delivered + f.Corrupted, Lost: f.Lost + f.Unknown, Duplicated: f.Duplicated, CEMarked: f.CEMarked})
		}
		for i := range want {
			w, g := want[i], got[i]
			if (w.Lost > 0) != (g.Lost > 0) || !near(g.Sent, w.Sent) || !near(g.Delivered, w.Delivered) || !near(g.Lost, w.Lost) ||
				!near(g.Duplicated, w.Duplicated) || !near(g.CEMarked, w.CEMarked) {
				t.Errorf("%s, %s upstream: IDs zeroed %+v, truth %+v", run, []string{"A", "B"}[i], g, w)
			}
		}
	}
}

// near: within 1 % (or 2 packets, for small counts).
func near(got, want uint64) bool {
	d := int64(got) - int64(want)
	return abs(d) <= max(2, int64(want)/100)
}

// Captures of different traffic are said to be, not compared.
func TestUnrelatedCaptures(t *testing.T) {
	_, err := CompareFiles("../../testdata/wiretruth/loss5-write/veth0.pcap.gz", "../../testdata/wiretruth/dup5-send/veth1.pcap.gz", Options{})
	if !errors.Is(err, ErrNothingInCommon) {
		t.Fatalf("%v, want ErrNothingInCommon", err)
	}
}

// A capture cut inside a record is damage, with the record's byte offset.
func TestTruncatedCapture(t *testing.T) {
	dir := "../../testdata/wiretruth/loss5-write"
	full := rewrite(t, filepath.Join(dir, "veth1.pcap.gz"), func(_ []byte, ts time.Time) (time.Time, bool) { return ts, true })
	raw, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(cut, raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = CompareFiles(filepath.Join(dir, "veth0.pcap.gz"), cut, Options{})
	if !errors.Is(err, pcapfile.ErrTruncated) || !strings.Contains(err.Error(), "byte offset") {
		t.Fatalf("%v, want the truncated record and its byte offset", err)
	}
}

// One capture given twice (or two taken at one point) shows nothing of
// a path, and says so.
func TestSamePoint(t *testing.T) {
	const f = "../../testdata/rxe/pcap/lossy1.pcap"
	if _, err := CompareFiles(f, f, Options{}); !errors.Is(err, ErrSamePoint) {
		t.Fatalf("%v, want ErrSamePoint", err)
	}
}

// A QP whose every packet was lost on the way is a flow the downstream
// capture lacks: all of it lost, not left out. clean-multiqp's sender
// has four QPs; all of one's packets are taken out of B's capture.
func TestWholeQPLost(t *testing.T) {
	dir := "../../testdata/wiretruth/clean-multiqp"
	var taken uint64
	b := rewrite(t, filepath.Join(dir, "veth1.pcap.gz"), func(data []byte, ts time.Time) (time.Time, bool) {
		// IPv4 from 192.168.77.1, BTH destination QP 26 (Ethernet 14,
		// IPv4 20, UDP 8, then the BTH: the QP in its bytes 5 to 7).
		if len(data) >= 54 && data[12] == 0x08 && data[29] == 1 && data[47] == 0 && data[48] == 0 && data[49] == 26 {
			taken++
			return ts, false
		}
		return ts, true
	})
	if taken == 0 {
		t.Fatal("no packet of QP 26 in B's capture: the test tests nothing")
	}
	r, err := CompareFiles(filepath.Join(dir, "veth0.pcap.gz"), b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Flows {
		if f.Src == "192.168.77.1" && f.DestQP == 26 {
			found = true
			if f.Lost != f.Sent || f.Sent != taken {
				t.Errorf("QP 26: %+v, want all %d lost", f.Fate, taken)
			}
		}
	}
	if !found {
		t.Errorf("QP 26 is not among the flows: %+v", r.Flows)
	}
}

// Traffic one way only (B's answers taken out of both captures): the
// offset is unknown, the side comes from the clocks agreeing, and
// Upstream says it outright; a wrong Upstream is the user's, and shows.
func TestUpstreamOneWay(t *testing.T) {
	dir := "../../testdata/wiretruth/loss5-write"
	// IPv4 source 192.168.77.2 (untagged Ethernet): B's side, dropped.
	fromA := func(data []byte, ts time.Time) (time.Time, bool) { return ts, !(len(data) > 29 && data[29] == 2) }
	a, b := rewrite(t, filepath.Join(dir, "veth0.pcap.gz"), fromA), rewrite(t, filepath.Join(dir, "veth1.pcap.gz"), fromA)
	for _, c := range []struct {
		upstream  string
		side      string
		delivered uint64 // a wrong side delivers nothing: every packet came too early
	}{{"", "A", 7578}, {"A", "A", 7578}, {"B", "B", 0}} {
		r, err := CompareFiles(a, b, Options{Upstream: c.upstream})
		if err != nil {
			t.Fatal(err)
		}
		if r.Offset.Known || len(r.Segments) != 1 || r.Segments[0].Upstream != c.side || r.Segments[0].Delivered != c.delivered ||
			c.side == "A" && r.Segments[0].Lost != 397 {
			t.Errorf("upstream %q: offset %+v, segments %+v; want %s upstream, %d delivered", c.upstream, r.Offset, r.Segments, c.side, c.delivered)
		}
	}
	if _, err := CompareFiles(a, b, Options{Upstream: "C"}); err == nil {
		t.Error("upstream C: no error")
	}
}

// Captures of one connection taken at different times share no packet:
// said, with each capture's span.
func TestWindowsApart(t *testing.T) {
	dir := "../../testdata/wiretruth/loss5-write"
	var mid time.Time
	src, err := pcapfile.Open(filepath.Join(dir, "veth0.pcap.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4000; i++ {
		_, ci, _, err := src.ReadPacket()
		if err != nil {
			t.Fatal(err)
		}
		mid = ci.Timestamp
	}
	src.Close()
	a := rewrite(t, filepath.Join(dir, "veth0.pcap.gz"), func(_ []byte, ts time.Time) (time.Time, bool) { return ts, !ts.After(mid) })
	b := rewrite(t, filepath.Join(dir, "veth1.pcap.gz"), func(_ []byte, ts time.Time) (time.Time, bool) { return ts, ts.After(mid.Add(100 * time.Millisecond)) })
	_, err = CompareFiles(a, b, Options{})
	if !errors.Is(err, ErrNothingInCommon) || !strings.Contains(err.Error(), "A from ") || !strings.Contains(err.Error(), ", B from ") {
		t.Fatalf("%v, want ErrNothingInCommon with both spans", err)
	}
}
