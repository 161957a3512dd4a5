package bundle

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// Packets and ticks come back in the order written, packets with their
// bytes, lengths and nanosecond timestamps, ticks deep-equal.
func TestPcapngRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 123456789, time.UTC)
	real := realFrames(t, lossyPcap, 40)
	items := []item{
		pkt(t0, []byte{1, 2, 3}), // 3 bytes: padded to 4
		tk(0),
		pkt(t0.Add(1), bytes.Repeat([]byte{0xab}, 61)),
		pkt(t0.Add(time.Second+7), nil), // an empty packet
		tk(1),
		tk(2),
	}
	items = append(items, withTicks(real, 7)...)
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip=%v", gz), func(t *testing.T) {
			b := writeV2(t, PcapngOptions{Gzip: gz, Iface: "eth0"}, items)
			if gz != (b[0] == 0x1f && b[1] == 0x8b) {
				t.Errorf("gzip %v, file starts % x", gz, b[:2])
			}
			r, recs, err := readAll(t, b)
			if err != io.EOF {
				t.Fatalf("read: %v", err)
			}
			want := testHeader
			want.Format, want.Version = Format, Version2
			want.Host.ByteOrder = nlmsg.NativeName() // the writer states it
			if r.Header != want {
				t.Errorf("header %+v, want %+v", r.Header, want)
			}
			if r.Truncated {
				t.Error("Truncated set on a whole file")
			}
			sameRecords(t, recs, items, layers.LinkTypeEthernet)

			// Next (the version 1 API) skips the packets.
			r, err = NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			var ticks []item
			for _, it := range items {
				if it.tick != nil {
					ticks = append(ticks, it)
				}
			}
			for i, want := range ticks {
				got, err := r.Next()
				if err != nil || !equalTick(got, want.tick) {
					t.Fatalf("Next %d: %+v, %v", i, got, err)
				}
			}
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("Next at the end: %v", err)
			}
		})
	}
}

func equalTick(a, b *Tick) bool {
	return a != nil && b != nil && reflect.DeepEqual(a, b)
}

// The interface carries the link type, snap length and name given;
// packets longer than the snap length are cut and keep their length.
func TestPcapngOptions(t *testing.T) {
	t0 := time.Unix(1764385200, 5)
	long := bytes.Repeat([]byte{7}, 100)
	b := writeV2(t, PcapngOptions{LinkType: layers.LinkTypeLinuxSLL, SnapLen: 64, Iface: "rxe0-netdev"},
		[]item{pkt(t0, long)})
	r, recs, err := readAll(t, b)
	if err != io.EOF || len(recs) != 1 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	p := recs[0].Packet
	if p.Link != layers.LinkTypeLinuxSLL || p.CI.CaptureLength != 64 || p.CI.Length != 100 || !bytes.Equal(p.Data, long[:64]) {
		t.Errorf("packet %+v link %v", p.CI, p.Link)
	}
	if r.Header.Version != Version2 {
		t.Errorf("version %d", r.Header.Version)
	}
	if r.SnapLen() != 64 {
		t.Errorf("the reader's snap length %d, want the interface's 64", r.SnapLen())
	}
	// The IDB as gopacket sees it: name, snap length, nanoseconds.
	ng := capturePackets(t, b)
	if ng.Snaplen != 64 || ng.LinkType() != layers.LinkTypeLinuxSLL {
		t.Errorf("capture reader: snaplen %d link %v", ng.Snaplen, ng.LinkType())
	}
	if !bytes.Contains(b, []byte("rxe0-netdev")) {
		t.Error("if_name option missing")
	}
}

func capturePackets(t *testing.T, b []byte) *pcapfile.Source {
	t.Helper()
	src, err := pcapfile.NewReader("v2", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestPcapngWriterRefuses(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewPcapngWriter(&buf, Header{}, PcapngOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}, []byte{1}); err == nil {
		t.Error("a packet before 1970 was accepted")
	}
	if err := w.WritePacket(gopacket.CaptureInfo{}, []byte{1}); err == nil {
		t.Error("a packet with a zero timestamp was accepted")
	}

	// A tick over the block limit is refused whole; the writer goes on.
	defer func(m int) { maxBlock = m }(maxBlock)
	maxBlock = 4096
	big := sample(0)
	big.Raw["big"] = []byte(`"` + strings.Repeat("x", 5000) + `"`)
	size := buf.Len()
	if err := w.WriteTick(big); !errors.Is(err, ErrBlockTooLarge) {
		t.Errorf("oversized tick: %v", err)
	}
	if buf.Len() != size {
		t.Errorf("the refused tick wrote %d bytes", buf.Len()-size)
	}
	if err := w.WriteTick(sample(1)); err != nil {
		t.Errorf("tick after a refused one: %v", err)
	}
	if _, err := NewPcapngWriter(io.Discard, Header{}, PcapngOptions{SnapLen: 8192}); err == nil {
		t.Error("a snap length over the block limit was accepted")
	}
	maxBlock = MaxBlockLen

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteTick(sample(2)); err == nil {
		t.Error("WriteTick after Close")
	}
	if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Now()}, []byte{1}); err == nil {
		t.Error("WritePacket after Close")
	}
	_, recs, err := readAll(t, buf.Bytes())
	if err != io.EOF || len(recs) != 1 || !equalTick(recs[0].Tick, sample(1)) {
		t.Errorf("after refusals: %d records, %v", len(recs), err)
	}

	// A failed write breaks the stream: every later call says so.
	fw := &failWriter{n: 1 << 20}
	w, err = NewPcapngWriter(fw, Header{}, PcapngOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fw.n = 10
	if err := w.WriteTick(sample(0)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing writer: %v", err)
	}
	fw.n = 1 << 20
	if err := w.WriteTick(sample(1)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("after a failed write: %v", err)
	}
}

// One goroutine writing packets while another writes ticks: every block
// arrives whole, and each goroutine's records keep their order.
func TestPcapngConcurrent(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewPcapngWriter(&buf, testHeader, PcapngOptions{Gzip: true})
	if err != nil {
		t.Fatal(err)
	}
	const packets, ticks = 2000, 50
	t0 := time.Unix(1764385200, 0)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range packets {
			data := binary.BigEndian.AppendUint32(bytes.Repeat([]byte{byte(i)}, i%200), uint32(i))
			if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i)), Length: len(data)}, data); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() {
		for i := range ticks {
			if err := w.WriteTick(sample(i)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, recs, err := readAll(t, buf.Bytes())
	if err != io.EOF {
		t.Fatal(err)
	}
	np, nt := 0, 0
	for _, rec := range recs {
		if rec.Tick != nil {
			if !equalTick(rec.Tick, sample(nt)) {
				t.Fatalf("tick %d out of order: %v", nt, rec.Tick.Time)
			}
			nt++
			continue
		}
		d := rec.Packet.Data
		if len(d) != np%200+4 || binary.BigEndian.Uint32(d[len(d)-4:]) != uint32(np) || !rec.Packet.CI.Timestamp.Equal(t0.Add(time.Duration(np))) {
			t.Fatalf("packet %d damaged or out of order: %d bytes", np, len(d))
		}
		np++
	}
	if np != packets || nt != ticks {
		t.Errorf("%d packets and %d ticks, want %d and %d", np, nt, packets, ticks)
	}
}

// When WriteTick returns, the file on disk holds that tick and every
// packet before it: a copy of the bytes at that moment (a recorder killed
// right then, gzip trailer missing) reads back completely.
func TestPcapngFlushedPerTick(t *testing.T) {
	t0 := time.Unix(1764385200, 0)
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip=%v", gz), func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewPcapngWriter(&buf, testHeader, PcapngOptions{Gzip: gz})
			if err != nil {
				t.Fatal(err)
			}
			var written []item
			for i := range 5 {
				for j := range 3 {
					p := pkt(t0.Add(time.Duration(10*i+j)), []byte(fmt.Sprintf("packet %d.%d", i, j)))
					if err := w.WritePacket(p.ci, p.data); err != nil {
						t.Fatal(err)
					}
					written = append(written, p)
				}
				if err := w.WriteTick(sample(i)); err != nil {
					t.Fatal(err)
				}
				written = append(written, tk(i))
				if w.Size() != int64(buf.Len()) {
					t.Errorf("Size %d, %d bytes written", w.Size(), buf.Len())
				}
				r, recs, err := readAll(t, bytes.Clone(buf.Bytes()))
				if err != io.EOF || r.Truncated {
					t.Fatalf("after tick %d: %v, truncated %v", i, err, r.Truncated)
				}
				sameRecords(t, recs, written, layers.LinkTypeEthernet)
			}
		})
	}
}

// A file cut anywhere: the reader returns every record whose block is
// complete, then io.EOF with Truncated set exactly when the cut is inside
// a block; a file cut before its header is complete is refused.
func TestPcapngCutEverywhere(t *testing.T) {
	t0 := time.Unix(1764385200, 999999999)
	items := []item{pkt(t0, []byte("a")), tk(0), pkt(t0.Add(1), []byte("bcdef")), pkt(t0.Add(2), []byte("gh")), tk(1), tk(2), pkt(t0.Add(3), []byte("ijkl"))}
	b := writeV2(t, PcapngOptions{}, items)
	ends := blockEnds(t, b) // SHB, IDB, header, then one block per item
	if len(ends) != 3+len(items) {
		t.Fatalf("%d blocks", len(ends))
	}
	headerEnd := ends[2]
	for cut := range len(b) {
		r, recs, err := readAll(t, b[:cut])
		if cut < headerEnd {
			if r != nil || err == nil {
				t.Fatalf("cut at %d (inside the header): opened", cut)
			}
			// Cut between the section header and the interface, or after
			// the interface, the file is a pcapng file without packets;
			// inside a block it is a cut bundle.
			boundary := cut == ends[0] || cut == ends[1]
			if boundary && !errors.Is(err, ErrNotBundle) || !boundary && cut > 4 && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("cut at %d: %v", cut, err)
			}
			continue
		}
		if err != io.EOF {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		complete, boundary := 0, false
		for i, end := range ends[3:] {
			if end <= cut {
				complete = i + 1
			}
		}
		for _, end := range ends {
			boundary = boundary || end == cut
		}
		if r.Truncated == boundary {
			t.Fatalf("cut at %d: Truncated %v, on a block boundary %v", cut, r.Truncated, boundary)
		}
		sameRecords(t, recs, items[:complete], layers.LinkTypeEthernet)
	}
}

// The same with real frames: every offset within the last block, and a
// sample elsewhere; and cuts of the gzip'd file.
func TestPcapngCutRealFrames(t *testing.T) {
	items := withTicks(realFrames(t, lossyPcap, 300), 50)
	b := writeV2(t, PcapngOptions{}, items)
	ends := blockEnds(t, b)
	last := ends[len(ends)-2]
	var cuts []int
	for cut := ends[2]; cut < len(b); cut += 97 {
		cuts = append(cuts, cut)
	}
	for cut := last; cut < len(b); cut++ {
		cuts = append(cuts, cut)
	}
	for _, cut := range cuts {
		r, recs, err := readAll(t, b[:cut])
		if err != io.EOF {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		n := 0
		for _, end := range ends[3:] {
			if end <= cut {
				n++
			}
		}
		if cut > last && (!r.Truncated || len(recs) != len(items)-1) {
			t.Fatalf("cut at %d in the last block: %d records, truncated %v", cut, len(recs), r.Truncated)
		}
		sameRecords(t, recs, items[:n], layers.LinkTypeEthernet)
	}

	gz := writeV2(t, PcapngOptions{Gzip: true}, items)
	for cut := 0; cut < len(gz); cut += 1 + cut/50 {
		r, recs, err := readAll(t, gz[:cut])
		if r == nil {
			if err == nil {
				t.Fatalf("gzip cut at %d: no reader, no error", cut)
			}
			continue
		}
		if err != io.EOF {
			t.Fatalf("gzip cut at %d: %v", cut, err)
		}
		sameRecords(t, recs, items[:len(recs)], layers.LinkTypeEthernet)
	}
}

// Damage inside a file is an error naming the block and its offset, and
// the reader stays at it.
func TestPcapngDamage(t *testing.T) {
	t0 := time.Unix(1764385200, 0)
	items := []item{pkt(t0, []byte("first")), tk(0), pkt(t0.Add(1), []byte("second")), tk(1)}
	good := writeV2(t, PcapngOptions{}, items)
	ends := blockEnds(t, good)
	epb2, tick1 := ends[4], ends[5] // offsets of the second packet and the second tick
	le := binary.LittleEndian
	for _, c := range []struct {
		name   string
		edit   func(b []byte)
		offset int
		want   string
	}{
		{"length not a multiple of 4", func(b []byte) { le.PutUint32(b[epb2+4:], 41) }, epb2, "enhanced packet block) at byte offset " + fmt.Sprint(epb2) + ": block length 41 is not a multiple of 4"},
		{"length below the minimum", func(b []byte) { le.PutUint32(b[epb2+4:], 8) }, epb2, "below the minimum"},
		{"length over the limit", func(b []byte) { le.PutUint32(b[epb2+4:], 0xFFFFFFF0) }, epb2, "exceeds the 67108864-byte limit"},
		{"trailing length", func(b []byte) { le.PutUint32(b[tick1-4:], 12) }, ends[4], "trailing block length 12 does not match"},
		{"captured length", func(b []byte) { le.PutUint32(b[epb2+20:], 999) }, epb2, "captured length 999 exceeds the 8 bytes"},
		{"interface", func(b []byte) { le.PutUint32(b[epb2+8:], 3) }, epb2, "packet on interface 3, but the section declares 1 interface(s)"},
		{"tick JSON", func(b []byte) { b[tick1+8+customHead] = 'x' }, tick1, "rdmatop tick custom block) at byte offset " + fmt.Sprint(tick1) + ": tick JSON"},
		{"simple packet block", func(b []byte) { le.PutUint32(b[epb2:], blockSPB) }, epb2, "enhanced packet blocks only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := bytes.Clone(good)
			c.edit(b)
			r, recs, err := readAll(t, b)
			isBlockError(t, err, int64(c.offset), c.want)
			var n int
			for n = 0; n < len(items) && ends[3+n] <= c.offset; n++ {
			}
			sameRecords(t, recs, items[:n], layers.LinkTypeEthernet)
			if _, again := r.ReadRecord(); again != err {
				t.Errorf("second read: %v, want the same error", again)
			}
		})
	}
	// Gzip: the offset is in the decompressed stream, and says so.
	b := bytes.Clone(good)
	le.PutUint32(b[epb2+20:], 999)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(b)
	zw.Close()
	_, _, err := readAll(t, zb.Bytes())
	isBlockError(t, err, int64(epb2), "of the decompressed stream")
}

// A damaged length field must not make the reader allocate what it
// claims: memory follows the bytes really present.
func TestPcapngBoundedMemory(t *testing.T) {
	good := writeV2(t, PcapngOptions{}, nil)
	le := binary.LittleEndian
	head := le.AppendUint32(nil, blockEPB)
	head = le.AppendUint32(head, 60<<20) // under MaxBlockLen, far over the file
	b := append(append(bytes.Clone(good), head...), make([]byte, 100)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, recs, err := readAll(t, b)
	runtime.ReadMemStats(&after)
	if err != io.EOF || !r.Truncated || len(recs) != 0 {
		t.Errorf("%d records, %v, truncated %v", len(recs), err, r != nil && r.Truncated)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading a 60 MiB claim backed by 100 bytes allocated %d bytes", alloc)
	}
}

// Files other tools write or rewrite: big-endian sections, interfaces in
// microseconds or binary fractions with an offset, other tools' blocks
// (even with rdmatop's documentation PEN), an interface before the
// header, a second section.
func TestPcapngForeignBlocks(t *testing.T) {
	for _, o := range []order{binary.LittleEndian, binary.BigEndian} {
		t.Run(fmt.Sprint(o), func(t *testing.T) {
			idb := func(link layers.LinkType, opts ...[]byte) []byte {
				body := o.AppendUint16(nil, uint16(link))
				body = o.AppendUint16(body, 0)
				body = o.AppendUint32(body, 65535)
				for _, op := range opts {
					body = append(body, op...)
				}
				return ngBlock(o, blockIDB, body, o.AppendUint32(nil, 0))
			}
			opt := func(code uint16, val []byte) []byte {
				b := o.AppendUint16(nil, code)
				b = o.AppendUint16(b, uint16(len(val)))
				b = append(b, val...)
				for len(b)%4 != 0 {
					b = append(b, 0)
				}
				return b
			}
			epb := func(id uint32, ts uint64, data string) []byte {
				body := o.AppendUint32(nil, id)
				body = o.AppendUint32(body, uint32(ts>>32))
				body = o.AppendUint32(body, uint32(ts))
				body = o.AppendUint32(body, uint32(len(data)))
				body = o.AppendUint32(body, uint32(len(data)+10))
				return ngBlock(o, blockEPB, body, []byte(data))
			}
			var f []byte
			f = append(f, ngSHB(o)...)
			f = append(f, idb(layers.LinkTypeEthernet)...) // default resolution: microseconds
			f = append(f, ngBlock(o, blockCustom, o.AppendUint32(nil, PEN), []byte("someone else's data"))...)
			f = append(f, ngBlock(o, blockCustomNoCopy, o.AppendUint32(nil, 9999), []byte(Magic+"T{}"))...)
			f = append(f, ngCustom(o, KindHeader, `{"format":"rdmatop-bundle","version":2,"tool":"t"}`)...)
			f = append(f, ngBlock(o, blockNRB, o.AppendUint32(nil, 0))...)
			f = append(f, epb(0, 1764385200_123456, "usec")...)
			f = append(f, ngCustom(o, 'Z', `future kind`)...)
			f = append(f, ngCustom(o, KindTick, `{"time":"2026-11-29T03:00:00Z"}`)...)
			f = append(f, idb(layers.LinkTypeRaw, opt(optTsResol, []byte{0x80 | 20}), opt(optTsOffset, o.AppendUint64(nil, 100)))...)
			f = append(f, epb(1, 3<<20|1<<19, "binary")...) // 3.5 s after the offset
			f = append(f, ngBlock(o, blockISB, make([]byte, 12))...)
			f = append(f, ngSHB(binary.LittleEndian)...)
			second := len(f)
			f = append(f, emptyEPB()...)
			r, recs, err := readAll(t, f)
			if err == nil || r == nil {
				t.Fatalf("reader %v, err %v", r, err)
			}
			// A packet on interface 0 of the second section, which has
			// none yet, is damage.
			isBlockError(t, err, int64(second), "packet on interface 0, but the section declares 0")
			if r.Header.Tool != "t" || len(recs) != 3 {
				t.Fatalf("header %+v, %d records", r.Header, len(recs))
			}
			p0, tick, p1 := recs[0].Packet, recs[1].Tick, recs[2].Packet
			if p0 == nil || !p0.CI.Timestamp.Equal(time.Unix(1764385200, 123456000)) || string(p0.Data) != "usec" || p0.CI.Length != 14 || p0.Link != layers.LinkTypeEthernet {
				t.Errorf("first packet %+v", p0)
			}
			if tick == nil || !tick.Time.Equal(time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)) {
				t.Errorf("tick %+v", tick)
			}
			if p1 == nil || !p1.CI.Timestamp.Equal(time.Unix(103, 500000000)) || p1.Link != layers.LinkTypeRaw || p1.CI.InterfaceIndex != 1 {
				t.Errorf("second packet %+v", p1)
			}
			if v, ok := Sniff(f); !ok || v != 2 {
				t.Errorf("Sniff: %d %v", v, ok)
			}
		})
	}
}

// emptyEPB is a little-endian enhanced packet block on interface 0.
func emptyEPB() []byte {
	le := binary.LittleEndian
	body := le.AppendUint32(nil, 0)
	body = le.AppendUint64(body, 0)
	body = le.AppendUint32(body, 0)
	body = le.AppendUint32(body, 0)
	return ngBlock(le, blockEPB, body)
}

func TestTimestampResolutions(t *testing.T) {
	for _, c := range []struct {
		resol uint8
		ts    uint64
		want  time.Time
	}{
		{9, 1764385200_123456789, time.Unix(1764385200, 123456789)},
		{6, 1764385200_123456, time.Unix(1764385200, 123456000)},
		{0, 42, time.Unix(42, 0)},
		{12, 1_500_000_000_999, time.Unix(1, 500000000)},
		{19, 15_000_000_000_000_000_000, time.Unix(1, 500000000)},
		{25, 1 << 62, time.Unix(0, 461)},
		{30, 1 << 62, time.Unix(0, 0)}, // below a nanosecond
		{0x80 | 30, 5<<30 | 1<<29, time.Unix(5, 500000000)},
		{0x80 | 0, 7, time.Unix(7, 0)},
		{0x80 | 64, 1 << 63, time.Unix(0, 500000000)},
		{0x80 | 127, 1 << 63, time.Unix(0, 0)},
	} {
		ifc := ngIface{tsresol: c.resol}
		if got := ifc.time(c.ts); !got.Equal(c.want) {
			t.Errorf("resolution %#x, %d: %v, want %v", c.resol, c.ts, got, c.want)
		}
	}
}

// Sniff and IsBundle tell both versions, plain or gzip'd, from captures.
func TestSniff(t *testing.T) {
	file := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b[:min(len(b), SniffLen)]
	}
	var v1, v1gz bytes.Buffer
	for _, c := range []struct {
		buf *bytes.Buffer
		gz  bool
	}{{&v1, false}, {&v1gz, true}} {
		w, _ := NewWriter(c.buf, testHeader, c.gz)
		w.WriteTick(sample(0))
		w.Close()
	}
	items := withTicks(realFrames(t, lossyPcap, 20), 5)
	v2 := writeV2(t, PcapngOptions{Iface: "eth0"}, items)
	v2gz := writeV2(t, PcapngOptions{Gzip: true, Iface: "eth0"}, items)
	for _, c := range []struct {
		name string
		head []byte
		want int
	}{
		{"v1", v1.Bytes(), 1},
		{"v1 gzip", v1gz.Bytes(), 1},
		{"v1 lab recording", file(labBundleV1), 1},
		{"v2", v2, 2},
		{"v2 gzip", v2gz, 2},
		{"v2 first 128 bytes", v2[:128], 2},
		{"v2 first 64 bytes", v2[:64], 0}, // the header block starts at 68
		{"v2 gzip first 256 bytes", v2gz[:256], 2},
		{"pcapng capture", file(oferbyNG), 0},
		{"pcap capture", file(oferbyPcap), 0},
		{"rxe pcap", file(lossyPcap), 0},
		{"empty", nil, 0},
		{"v2 cut in the header magic", v2[:80], 0},
		{"text", []byte("hello"), 0},
	} {
		v, ok := Sniff(c.head)
		if v != c.want || ok != (c.want != 0) || IsBundle(c.head) != ok {
			t.Errorf("%s: Sniff = %d, %v; want %d", c.name, v, ok, c.want)
		}
	}
}

// Open refuses captures and versions it does not know, saying which.
func TestOpenRefuses(t *testing.T) {
	file := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	le := binary.LittleEndian
	v2 := func(hdr string) []byte {
		return append(ngSHB(le), ngCustom(le, KindHeader, hdr)...)
	}
	for _, c := range []struct {
		name    string
		in      []byte
		notBndl bool
		want    string
	}{
		{"pcapng capture", file(oferbyNG), true, "a pcapng capture"},
		{"pcap capture", file(oferbyPcap), true, "a pcap capture"},
		{"empty pcapng", ngSHB(le), true, "without an rdmatop bundle header"},
		{"v2 version 3", v2(`{"format":"rdmatop-bundle","version":3}`), false, "bundle version 3: this rdmatop reads versions 1 and 2"},
		{"v2 claims version 1", v2(`{"format":"rdmatop-bundle","version":1}`), false, "version 1 bundles are JSON Lines"},
		{"v2 other format", v2(`{"format":"other","version":2}`), false, `header names format "other"`},
		{"v2 bad header JSON", v2(`{"format":`), false, "rdmatop header custom block) at byte offset 28: header JSON"},
		{"v2 tick first", append(ngSHB(le), ngCustom(le, KindTick, `{}`)...), false, "a tick before the bundle header"},
		{"v1 version 99", []byte(`{"format":"rdmatop-bundle","version":99}` + "\n"), false, "bundle version 99"},
		{"v1 claims version 2", []byte(`{"format":"rdmatop-bundle","version":2}` + "\n"), false, "version 2 bundles are pcapng"},
		{"bad gzip", []byte{0x1f, 0x8b, 0, 0}, false, "bad gzip stream"},
	} {
		_, err := Open(bytes.NewReader(c.in))
		if err == nil || errors.Is(err, ErrNotBundle) != c.notBndl || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q (ErrNotBundle %v)", c.name, err, c.want, c.notBndl)
		}
	}
}

// The capture reader (gopacket's pcapng reader underneath) reads a
// version 2 bundle as a plain capture: the packets, nothing else.
func TestCaptureReadsV2(t *testing.T) {
	frames := realFrames(t, lossyPcap, 500)
	for _, gz := range []bool{false, true} {
		b := writeV2(t, PcapngOptions{Gzip: gz, Iface: "eth0"}, withTicks(frames, 37))
		src := capturePackets(t, b)
		if src.Format != pcapfile.FormatPcapNG || src.Compressed != gz {
			t.Errorf("gzip %v: format %s compressed %v", gz, src.Format, src.Compressed)
		}
		n := 0
		for ; ; n++ {
			data, ci, link, err := src.ReadPacket()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if n >= len(frames) || !bytes.Equal(data, frames[n].data) || !ci.Timestamp.Equal(frames[n].ci.Timestamp) ||
				ci.Length != frames[n].ci.Length || link != layers.LinkTypeEthernet {
				t.Fatalf("gzip %v: packet %d differs", gz, n+1)
			}
		}
		if n != len(frames) {
			t.Errorf("gzip %v: capture reader saw %d packets, want %d", gz, n, len(frames))
		}
	}
}

// BenchmarkWritePacket: the recorder must keep up with a busy capture;
// target: well under 1 µs and 0 allocations per packet.
func BenchmarkWritePacket(b *testing.B) {
	w, err := NewPcapngWriter(io.Discard, Header{}, PcapngOptions{})
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 1078)
	ci := gopacket.CaptureInfo{Timestamp: time.Unix(1764385200, 0), CaptureLength: len(data), Length: len(data)}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.WritePacket(ci, data); err != nil {
			b.Fatal(err)
		}
	}
}
