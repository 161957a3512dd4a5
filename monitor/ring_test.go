package monitor

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// ringWire hands out frames from one buffer that Close releases, as a
// zero-copy AF_PACKET ring does (Close unmaps it): a frame's data is valid
// until the next ReadPacket or Close. Close overwrites the buffer, so a
// reader still using a frame after Close is a data race (go test -race)
// and, without the race detector, a garbled frame.
type ringWire struct {
	fileWire
	ring sync.Mutex
	buf  [2048]byte
}

func (w *ringWire) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	data, ci, link, err := w.fileWire.ReadPacket()
	if err != nil {
		return nil, ci, link, err
	}
	w.ring.Lock()
	defer w.ring.Unlock()
	return w.buf[:copy(w.buf[:], data)], ci, link, nil
}

func (w *ringWire) Close() error {
	err := w.fileWire.Close()
	w.ring.Lock()
	defer w.ring.Unlock()
	for i := range w.buf {
		w.buf[i] = 0xff // the ring is gone
	}
	return err
}

// The run stops its reader before it closes the capture: the last frame
// the reader took still lives in the source's memory. (rdmatop record on
// the lab crashed with SIGSEGV on Ctrl-C at full speed when the ring was
// unmapped under the reader.)
func TestLiveClosesWireAfterReader(t *testing.T) {
	for range 5 {
		src, err := pcapfile.Open("../testdata/rxe/pcap/lossy1.pcap")
		if err != nil {
			t.Fatal(err)
		}
		w := &ringWire{fileWire: fileWire{src: src, pace: 200 * time.Microsecond}}
		r, err := New(Config{Host: &slowHost{}, Wire: w, WireName: "veth0", Interval: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		for _, err := range r.Frames(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 3 {
				cancel() // mid-stream, frames still flowing
			}
		}
		cancel()
		if m := r.Result().Wire.MalformedPackets; m != 0 {
			t.Fatalf("%d malformed packets: a frame was read after its ring was released", m)
		}
	}
}
