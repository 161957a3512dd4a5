package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

const cleanPcap = "../testdata/rxe/pcap/clean.pcap"

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// comparableSummary strips what legitimately differs between two containers of
// the same packets.
func comparableSummary(s *Summary) Summary {
	c := *s
	c.File, c.Format, c.Compressed, c.LinkType, c.Snaplen = "", "", false, "", 0
	return c
}

func TestGzipAndPcapNGGiveSameAnalysis(t *testing.T) {
	raw, err := os.ReadFile(cleanPcap)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	want := analyze(t, cleanPcap, Config{})
	got, err := AnalyzeFile(writeTemp(t, "clean.pcap.gz", gz.Bytes()), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Compressed || got.Format != "pcap" {
		t.Errorf("format %s compressed %v", got.Format, got.Compressed)
	}
	if !reflect.DeepEqual(comparableSummary(got), comparableSummary(want)) {
		t.Error("gzip-compressed capture analyses differently")
	}
	a := analyze(t, "../testdata/pcaps/oferby-proxy_roce.pcap", Config{})
	b := analyze(t, "../testdata/pcaps/oferby-proxy_roce.pcapng", Config{})
	if b.Format != "pcapng" || !reflect.DeepEqual(comparableSummary(a), comparableSummary(b)) {
		t.Error("pcapng and pcap of the same packets analyse differently")
	}
}

// Re-encapsulate clean.pcap's frames in other link types: the analysis must
// not change.
func TestLinkTypes(t *testing.T) {
	want := analyze(t, cleanPcap, Config{})
	for _, lt := range []struct {
		name string
		link layers.LinkType
		wrap func(eth []byte) []byte
	}{
		{"raw", layers.LinkTypeRaw, func(eth []byte) []byte { return eth[14:] }},
		{"ipv4", layers.LinkTypeIPv4, func(eth []byte) []byte { return eth[14:] }},
		{"sll", layers.LinkTypeLinuxSLL, func(eth []byte) []byte {
			h := make([]byte, 16)
			binary.BigEndian.PutUint16(h[0:], 0)      // to us
			binary.BigEndian.PutUint16(h[2:], 1)      // ARPHRD_ETHER
			binary.BigEndian.PutUint16(h[4:], 6)      // address length
			copy(h[6:12], eth[6:12])                  // source MAC
			binary.BigEndian.PutUint16(h[14:], 0x800) // protocol
			return append(h, eth[14:]...)
		}},
		{"sll2", layers.LinkTypeLinuxSLL2, func(eth []byte) []byte {
			h := make([]byte, 20)
			binary.BigEndian.PutUint16(h[0:], 0x800) // protocol
			binary.BigEndian.PutUint32(h[4:], 3)     // interface index
			binary.BigEndian.PutUint16(h[8:], 1)     // ARPHRD_ETHER
			h[10], h[11] = 0, 6                      // packet type, address length
			copy(h[12:18], eth[6:12])
			return append(h, eth[14:]...)
		}},
	} {
		t.Run(lt.name, func(t *testing.T) {
			src, err := pcapfile.Open(cleanPcap)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var buf bytes.Buffer
			w := pcapgo.NewWriter(&buf)
			w.WriteFileHeader(262144, lt.link)
			for {
				data, ci, _, err := src.ReadPacket()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				out := lt.wrap(data)
				ci.CaptureLength, ci.Length = len(out), ci.Length-len(data)+len(out)
				if err := w.WritePacket(ci, out); err != nil {
					t.Fatal(err)
				}
			}
			got, err := AnalyzeFile(writeTemp(t, lt.name+".pcap", buf.Bytes()), Config{})
			if err != nil {
				t.Fatal(err)
			}
			g, w2 := comparableSummary(got), comparableSummary(want)
			g.Bytes, w2.Bytes = 0, 0 // frames are shorter without Ethernet
			for i := range g.Flows {
				g.Flows[i].Bytes, w2.Flows[i].Bytes = 0, 0
				g.Flows[i].Gbps, w2.Flows[i].Gbps = 0, 0
			}
			for i := range min(len(g.Paths), len(w2.Paths)) {
				g.Paths[i].Bytes, w2.Paths[i].Bytes = 0, 0
				g.Paths[i].MaxQPBytes, w2.Paths[i].MaxQPBytes = 0, 0
				g.Paths[i].MaxPortBytes, w2.Paths[i].MaxPortBytes = 0, 0
			}
			if !reflect.DeepEqual(g, w2) {
				t.Errorf("%s capture analyses differently from Ethernet: %d RoCE packets vs %d", lt.name, got.RoCEPackets, want.RoCEPackets)
			}
		})
	}
}

func TestUnsupportedLinkTypeIsCountedNotFatal(t *testing.T) {
	s := analyze(t, "../testdata/pcaps/rdma-softroce-demo_infiniband-erf.pcap", Config{})
	if s.RoCEPackets != 0 || s.NonRoCEPackets != s.Packets || s.Packets == 0 {
		t.Errorf("ERF capture: %d RoCE, %d other of %d", s.RoCEPackets, s.NonRoCEPackets, s.Packets)
	}
}

func TestDamagedFiles(t *testing.T) {
	raw, err := os.ReadFile(cleanPcap)
	if err != nil {
		t.Fatal(err)
	}
	// Record offsets, to cut and corrupt at known places.
	var offs []int
	for off := 24; off < len(raw); {
		offs = append(offs, off)
		off += 16 + int(binary.LittleEndian.Uint32(raw[off+8:]))
	}
	if len(offs) != 1750 {
		t.Fatalf("%d records", len(offs))
	}

	t.Run("truncated mid-record", func(t *testing.T) {
		cut := raw[:offs[100]+30] // record 101 ends early
		s, err := AnalyzeFile(writeTemp(t, "cut.pcap", cut), Config{})
		var ie *pcapfile.InputError
		if !errors.As(err, &ie) || !errors.Is(err, pcapfile.ErrTruncated) {
			t.Fatalf("error %v, want a truncation pcapfile.InputError", err)
		}
		if ie.Record != 101 || ie.Offset != int64(offs[100]) {
			t.Errorf("error names record %d offset %d, want 101 at %d", ie.Record, ie.Offset, offs[100])
		}
		if !strings.Contains(err.Error(), "record 101 at byte offset") {
			t.Errorf("message %q", err)
		}
		if s == nil || s.Packets != 100 || s.Error == "" {
			t.Fatalf("summary of the first 100 records missing: %+v", s)
		}
	})
	t.Run("record longer than snaplen", func(t *testing.T) {
		bad := bytes.Clone(raw)
		binary.LittleEndian.PutUint32(bad[offs[5]+8:], 0x7fff0000)
		s, err := AnalyzeFile(writeTemp(t, "big.pcap", bad), Config{})
		var ie *pcapfile.InputError
		if !errors.As(err, &ie) || ie.Record != 6 || ie.Offset != int64(offs[5]) || !strings.Contains(err.Error(), "snap length") {
			t.Fatalf("error %v", err)
		}
		if s.Packets != 5 {
			t.Errorf("%d packets analysed before the damage, want 5", s.Packets)
		}
	})
	t.Run("bad magic", func(t *testing.T) {
		_, err := AnalyzeFile(writeTemp(t, "x.pcap", []byte("this is not a capture file")), Config{})
		if err == nil || !strings.Contains(err.Error(), "not a pcap or pcapng capture") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		_, err := AnalyzeFile(writeTemp(t, "empty.pcap", nil), Config{})
		if err == nil || !strings.Contains(err.Error(), "empty file") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("header cut", func(t *testing.T) {
		_, err := AnalyzeFile(writeTemp(t, "hdr.pcap", raw[:10]), Config{})
		if err == nil || !strings.Contains(err.Error(), "cut short") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		_, err := AnalyzeFile(filepath.Join(t.TempDir(), "nope.pcap"), Config{})
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("pcapng truncated", func(t *testing.T) {
		ng, err := os.ReadFile("../testdata/pcaps/oferby-proxy_roce.pcapng")
		if err != nil {
			t.Fatal(err)
		}
		s, err := AnalyzeFile(writeTemp(t, "cut.pcapng", ng[:len(ng)/2]), Config{})
		var ie *pcapfile.InputError
		if !errors.As(err, &ie) || ie.Record != int(s.Packets)+1 {
			t.Fatalf("error %v after %d packets", err, s.Packets)
		}
		if s.Packets == 0 || s.Packets >= 123 {
			t.Errorf("%d packets before the damage", s.Packets)
		}
	})
}
