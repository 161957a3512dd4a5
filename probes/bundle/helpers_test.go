package bundle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// Shared test fixtures (relative to this package).
const (
	lossyPcap   = "../../testdata/rxe/pcap/lossy1.pcap"
	oferbyPcap  = "../../testdata/pcaps/oferby-proxy_roce.pcap"
	oferbyNG    = "../../testdata/pcaps/oferby-proxy_roce.pcapng"
	labBundleV1 = "../../testdata/lab/probes/record.bundle.gz"
)

// item is one record to write: a packet or a tick.
type item struct {
	ci   gopacket.CaptureInfo
	data []byte
	tick *Tick
}

func pkt(ts time.Time, data []byte) item {
	return item{ci: gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(data), Length: len(data)}, data: data}
}

func tk(i int) item { return item{tick: sample(i)} }

// realFrames reads up to max packets (all when max <= 0) of a capture.
func realFrames(t testing.TB, path string, max int) []item {
	t.Helper()
	src, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out []item
	for max <= 0 || len(out) < max {
		data, ci, _, err := src.ReadPacket()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, item{ci: ci, data: bytes.Clone(data)})
	}
	return out
}

// withTicks puts a tick after every n packets and one at the end; the
// ticks carry the time of the packet before them.
func withTicks(frames []item, n int) []item {
	var out []item
	ticks := 0
	for i, f := range frames {
		out = append(out, f)
		if (i+1)%n == 0 || i == len(frames)-1 {
			s := sample(ticks)
			s.Time = f.ci.Timestamp.UTC()
			out = append(out, item{tick: s})
			ticks++
		}
	}
	return out
}

var testHeader = Header{Created: time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC), Tool: "rdmatop test",
	Host: Host{Hostname: "h1", Kernel: "6.1.0-rxe", Arch: "amd64"}, Interval: "1s", Selection: "-i eth0"}

// writeV2 writes a version 2 bundle of items and closes the writer.
func writeV2(t testing.TB, opt PcapngOptions, items []item) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewPcapngWriter(&buf, testHeader, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.tick != nil {
			err = w.WriteTick(it.tick)
		} else {
			err = w.WritePacket(it.ci, it.data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Size() != int64(buf.Len()) {
		t.Errorf("Size() = %d after Close, %d bytes written", w.Size(), buf.Len())
	}
	return buf.Bytes()
}

// readAll opens b and reads every record up to the first error.
func readAll(t testing.TB, b []byte) (*Reader, []Record, error) {
	t.Helper()
	r, err := Open(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	var recs []Record
	for {
		rec, err := r.ReadRecord()
		if err != nil {
			return r, recs, err
		}
		if (rec.Tick == nil) == (rec.Packet == nil) {
			t.Fatalf("record %d: want exactly one of Tick and Packet: %+v", len(recs)+1, rec)
		}
		recs = append(recs, rec)
	}
}

// sameRecords checks that got are the items in order, packets with the
// link type link.
func sameRecords(t testing.TB, got []Record, want []item, link layers.LinkType) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d records, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		switch {
		case w.tick != nil:
			if g.Tick == nil || !reflect.DeepEqual(g.Tick, w.tick) {
				t.Fatalf("record %d: got %+v, want tick %+v", i+1, g, w.tick)
			}
		case g.Packet == nil:
			t.Fatalf("record %d: got tick %+v, want a packet", i+1, g.Tick)
		default:
			p := g.Packet
			if !p.CI.Timestamp.Equal(w.ci.Timestamp) || p.CI.CaptureLength != len(w.data) ||
				p.CI.Length != w.ci.Length || !bytes.Equal(p.Data, w.data) || p.Link != link {
				t.Fatalf("record %d: packet %v len %d/%d link %v, want %v len %d/%d link %v",
					i+1, p.CI.Timestamp, p.CI.CaptureLength, p.CI.Length, p.Link,
					w.ci.Timestamp, len(w.data), w.ci.Length, link)
			}
		}
	}
}

// blockEnds returns the end offset of every block of a little-endian
// pcapng file.
func blockEnds(t testing.TB, b []byte) []int {
	t.Helper()
	var ends []int
	for off := 0; off < len(b); {
		n := int(binary.LittleEndian.Uint32(b[off+4:]))
		if n < 12 || off+n > len(b) {
			t.Fatalf("bad block at %d", off)
		}
		off += n
		ends = append(ends, off)
	}
	return ends
}

// order is a byte order that can also append.
type order interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// ngBlock frames one pcapng block in the given byte order.
func ngBlock(o order, typ uint32, body ...[]byte) []byte {
	var b []byte
	for _, p := range body {
		b = append(b, p...)
	}
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	out := o.AppendUint32(nil, typ)
	out = o.AppendUint32(out, uint32(12+len(b)))
	out = append(out, b...)
	return o.AppendUint32(out, uint32(12+len(b)))
}

// ngSHB is a section header block in the given order.
func ngSHB(o order) []byte {
	body := o.AppendUint32(nil, byteOrderMagic)
	body = o.AppendUint16(body, 1)
	body = o.AppendUint16(body, 0)
	body = o.AppendUint64(body, ^uint64(0))
	return ngBlock(o, blockSHB, body)
}

// ngCustom is an rdmatop custom block of kind around js.
func ngCustom(o order, kind byte, js string) []byte {
	return ngBlock(o, blockCustom, o.AppendUint32(nil, PEN), []byte(Magic), []byte{kind}, []byte(js))
}

// isBlockError checks that err is a BlockError at offset whose text
// contains want.
func isBlockError(t testing.TB, err error, offset int64, want string) {
	t.Helper()
	var be *BlockError
	if !errors.As(err, &be) {
		t.Fatalf("error %v (%T), want a *BlockError", err, err)
	}
	if be.Offset != offset || !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Fatalf("error %q at offset %d, want offset %d and %q", err, be.Offset, offset, want)
	}
}
