package bundle

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"
	"time"
)

// FuzzOpen: whatever the bytes, Open and ReadRecord never panic, never
// return a record that is not exactly a tick or a packet, and set
// Truncated only with io.EOF. Seeded with the first 2 KiB of real
// bundles of both versions, plain and gzip'd, and of real captures.
func FuzzOpen(f *testing.F) {
	// Seeds are cut to their first 2 KiB: a cut bundle is what a damaged
	// file is, and the engine spent a 60 s run minimizing the first
	// interesting mutation of a whole bundle (9 execs from a clean cache).
	add := func(b []byte) { f.Add(b[:min(len(b), 2048)]) }
	items := withTicks(realFrames(f, lossyPcap, 4), 2)
	items = append(items, pkt(time.Unix(1764385200, 1), []byte{1, 2, 3}))
	add(writeV2(f, PcapngOptions{Iface: "eth0"}, items))
	add(writeV2(f, PcapngOptions{Gzip: true}, items[:6]))
	for _, gz := range []bool{false, true} {
		var v1 bytes.Buffer
		w, _ := NewWriter(&v1, testHeader, gz)
		w.WriteTick(sample(0))
		w.WriteTick(sample(1))
		w.Close()
		add(v1.Bytes())
	}
	le := binary.LittleEndian
	add(append(append(ngSHB(le), ngCustom(le, KindHeader, `{"format":"rdmatop-bundle","version":2}`)...), ngCustom(le, KindTick, `{}`)...))
	for _, path := range []string{oferbyNG, oferbyPcap} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Sniff(data)
		r, err := Open(bytes.NewReader(data))
		if err != nil {
			if r != nil {
				t.Fatal("a reader and an error")
			}
			return
		}
		for {
			rec, err := r.ReadRecord()
			if err != nil {
				if r.Truncated && err != io.EOF {
					t.Fatalf("Truncated with %v", err)
				}
				if err != io.EOF && err.Error() == "" {
					t.Fatal("empty error")
				}
				return
			}
			if (rec.Tick == nil) == (rec.Packet == nil) {
				t.Fatalf("record %+v", rec)
			}
			if p := rec.Packet; p != nil && p.CI.CaptureLength != len(p.Data) {
				t.Fatalf("capture length %d, %d bytes", p.CI.CaptureLength, len(p.Data))
			}
		}
	})
}
