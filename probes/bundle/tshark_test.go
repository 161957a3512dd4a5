package bundle

import (
	"bytes"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// tshark runs tshark with args and returns its standard output, its
// standard error without the "running as root" notice, and its error.
func tshark(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command("tshark", args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var keep []string
	for _, l := range strings.Split(errOut.String(), "\n") {
		if l != "" && !strings.HasPrefix(l, "Running as user") {
			keep = append(keep, l)
		}
	}
	return out.String(), strings.Join(keep, "\n"), err
}

func needTshark(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark not found: install it (Debian: apt-get install tshark) to run the Wireshark oracle tests")
	}
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Wireshark's own reader opens a version 2 bundle, plain or gzip'd, as is:
// every packet of the source capture is there and decoded as RoCE, and
// the rdmatop blocks show as "PCAPNG Custom Block" frames carrying the
// documentation PEN and our magic.
func TestTsharkReadsV2(t *testing.T) {
	needTshark(t)
	src, _, err := tshark(t, "-r", lossyPcap, "-T", "fields", "-e", "frame.number")
	if err != nil {
		t.Fatal(err)
	}
	srcIB, _, err := tshark(t, "-r", lossyPcap, "-Y", "infiniband", "-T", "fields", "-e", "frame.number")
	if err != nil {
		t.Fatal(err)
	}
	nPackets, nRoCE := len(lines(src)), len(lines(srcIB))
	if nRoCE == 0 {
		t.Fatal("tshark decodes no RoCE in the source capture")
	}
	items := withTicks(realFrames(t, lossyPcap, 0), 500)
	nTicks := len(items) - nPackets
	dir := t.TempDir()
	for _, name := range []string{"incident.pcapng", "incident.pcapng.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			b := writeV2(t, PcapngOptions{Gzip: strings.HasSuffix(name, ".gz"), Iface: "eth0"}, items)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			all, stderr, err := tshark(t, "-r", path, "-T", "fields", "-e", "frame.cb_pen", "-e", "data.data")
			if err != nil || stderr != "" {
				t.Fatalf("tshark -r: %v: %s", err, stderr)
			}
			var packets, blocks int
			for i, l := range lines(all) {
				pen, data, _ := strings.Cut(l, "\t")
				if pen == "" {
					packets++
					continue
				}
				kind := byte(KindTick)
				if i == 0 {
					kind = KindHeader
				}
				if pen != "32473" || !strings.HasPrefix(data, hex.EncodeToString([]byte(Magic+string(kind)))) {
					t.Fatalf("frame %d: custom block PEN %s data %.40s…", i+1, pen, data)
				}
				blocks++
			}
			if packets != nPackets || blocks != nTicks+1 {
				t.Errorf("tshark sees %d packets and %d rdmatop blocks, want %d and %d", packets, blocks, nPackets, nTicks+1)
			}
			ib, stderr, err := tshark(t, "-r", path, "-Y", "infiniband")
			if err != nil || stderr != "" {
				t.Fatalf("tshark -Y infiniband: %v: %s", err, stderr)
			}
			if n := len(lines(ib)); n != nRoCE {
				t.Errorf("tshark -Y infiniband lists %d packets, the source %d", n, nRoCE)
			}
			if !strings.Contains(ib, "RRoCE") || !strings.Contains(ib, "RDMA Write") {
				t.Errorf("no RoCEv2 decode in tshark's summary:\n%.300s", ib)
			}
		})
	}

	// Wireshark's editcap cuts a bundle by frame number (the header is
	// frame 1) and keeps the rdmatop blocks in place: the cut reads back.
	if _, err := exec.LookPath("editcap"); err == nil {
		full := filepath.Join(dir, "incident.pcapng")
		cut := filepath.Join(dir, "first600.pcapng")
		if out, err := exec.Command("editcap", "-r", full, cut, "1-600").CombinedOutput(); err != nil {
			t.Fatalf("editcap: %v: %s", err, out)
		}
		b, err := os.ReadFile(cut)
		if err != nil {
			t.Fatal(err)
		}
		r, recs, err := readAll(t, b)
		if r == nil || err != io.EOF || r.Truncated || r.Header.Tool != testHeader.Tool {
			t.Fatalf("editcap's cut: %v", err)
		}
		sameRecords(t, recs, items[:599], layers.LinkTypeEthernet)
	}

	// A recorder killed between ticks leaves a gzip stream without its
	// trailer: rdmatop reads every tick; tshark lists every record too
	// but says the file was cut short.
	var buf bytes.Buffer
	w, err := NewPcapngWriter(&buf, testHeader, PcapngOptions{Gzip: true})
	if err != nil {
		t.Fatal(err)
	}
	few := withTicks(realFrames(t, lossyPcap, 100), 50)
	for _, it := range few {
		if it.tick != nil {
			err = w.WriteTick(it.tick)
		} else {
			err = w.WritePacket(it.ci, it.data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	killed := filepath.Join(dir, "killed.pcapng.gz")
	if err := os.WriteFile(killed, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, recs, err := readAll(t, buf.Bytes())
	if r == nil || r.Truncated || len(recs) != len(few) {
		t.Errorf("rdmatop on the killed recording: %d of %d records, %v", len(recs), len(few), err)
	}
	out, stderr, err := tshark(t, "-r", killed)
	if n := len(lines(out)); n != len(few)+1 {
		t.Errorf("tshark on the killed recording: %d frames, want %d", n, len(few)+1)
	}
	t.Logf("tshark on a gzip'd recording killed between ticks: %v: %s", err, stderr)
}
