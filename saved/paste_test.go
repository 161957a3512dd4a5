package saved

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A ticket paste: several commands with their prompts and a date line
// before each round, taken twice 10 s apart, the way docs/saved-outputs.md
// asks for them. Readings with times give rates.
func TestPastedRoundsGiveRates(t *testing.T) {
	round := func(date string, xmit, outOfBuf, pause uint64) string {
		return "$ date -Is\n" + date + "\n" +
			"$ sudo ethtool -S enp59s0f0np0 | grep -E 'prio3|out_of_buffer'\n" +
			"     rx_prio3_pause: " + u(pause) + "\n     rx_prio3_pause_duration: 0\n     rx_out_of_buffer: " + u(outOfBuf) + "\n" +
			"$ grep . /sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data /sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence\n" +
			"/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data:" + u(xmit) + "\n" +
			"/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:7\n" +
			"$ rdma link show\nlink mlx5_0/1 state ACTIVE physical_state LINK_UP netdev enp59s0f0np0\n"
	}
	dir := write(t, map[string]string{
		"1.txt": round("2026-12-01T10:00:00+00:00", 1000, 5, 100),
		"2.txt": round("2026-12-01T10:00:10+00:00", 251000, 25, 600),
	})
	res := load(t, dir)
	if len(res.Snapshots) != 2 || res.Snapshots[1].Interval != 10 {
		t.Fatalf("%d snapshots, interval %v: want 2, 10 s apart", len(res.Snapshots), res.Snapshots[1].Interval)
	}
	p := portOf(t, last(res), "mlx5_0", 1, "")
	if p.Netdev != "enp59s0f0np0" {
		t.Errorf("netdev %q", p.Netdev)
	}
	for native, want := range map[string]float64{"port_xmit_data": 4 * 250000 / 10, "rx_out_of_buffer": 2, "rx_prio3_pause": 50, "out_of_sequence": 0} {
		c := counter(p, native)
		if c == nil || c.Rate == nil || *c.Rate != want {
			t.Errorf("%s: %+v, want %v/s", native, c, want)
		}
	}
	if len(p.PFC) != 1 || p.PFC[0].Priority != 3 || p.PFC[0].RxPausePerSec == nil || *p.PFC[0].RxPausePerSec != 50 {
		t.Errorf("PFC %+v, want priority 3 at 50 pause/s", p.PFC)
	}
	in := input(t, res, "1.txt")
	if in.Time == nil || in.Time.Format("15:04:05") != "10:00:00" || len(in.Read) != 3 {
		t.Errorf("input %+v", in)
	}
}

func u(v uint64) string { return itoa(int(v)) }

// Garbage, empty, binary and truncated inputs are reported and skipped;
// what else was given is still read.
func TestBadInputsReportedNotFatal(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	bin := make([]byte, 4096)
	rnd.Read(bin)
	good := read(t, realDir+"ethtool_S_ice_ethq.txt")
	dir := write(t, map[string]string{
		"a-empty.txt":    "",
		"b-binary.bin":   string(bin),
		"c-prose.txt":    "The customer says RoCE is slow since Tuesday.\nPlease advise.\n",
		"d-ethtool.txt":  good,
		"e-cut.txt":      good[:len(good)/2] + "rx_prio3_pa", // cut mid-line
		"f-capture.pcap": "\xd4\xc3\xb2\xa1\x02\x00\x04\x00",
	})
	tgz := filepath.Join(dir, "g-cut.tar.gz")
	writeTar(t, sosDir, tgz, gzipWriter)
	b, _ := os.ReadFile(tgz)
	if err := os.WriteFile(tgz, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	res := load(t, dir)
	want := map[string]Kind{"a-empty.txt": KindEmpty, "b-binary.bin": KindBinary, "c-prose.txt": KindUnknown,
		"d-ethtool.txt": KindEthtool, "f-capture.pcap": KindCapture}
	for name, k := range want {
		if in := input(t, res, name); in.Kind != k {
			t.Errorf("%s: %q, want %q", name, in.Kind, k)
		}
	}
	// A paste cut mid-line is read up to the cut, and says so.
	if in := input(t, res, "e-cut.txt"); in.Kind != KindEthtool || !strings.Contains(strings.Join(in.Ignored, " "), "rx_prio3_pa") {
		t.Errorf("cut ethtool dump: %+v", in)
	}
	cut := false
	for _, in := range res.Inputs {
		if strings.Contains(in.Path, "g-cut.tar.gz") && in.Kind == KindTruncated {
			cut = true
		}
	}
	if !cut {
		t.Errorf("truncated tarball not reported: %+v", res.Inputs)
	}
}

// A directory of unrelated files is an error naming what was looked for,
// with every file still reported.
func TestNothingReadable(t *testing.T) {
	dir := write(t, map[string]string{"notes.txt": "hello\n", "config.yaml": "a: 1\n"})
	res, err := Load([]string{dir})
	if err == nil || !strings.Contains(err.Error(), "looked for ethtool -S") {
		t.Fatalf("err %v", err)
	}
	if res == nil || len(res.Inputs) != 2 {
		t.Errorf("inputs %+v", res)
	}
	if _, err := Load([]string{filepath.Join(dir, "missing.txt")}); err == nil || !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
