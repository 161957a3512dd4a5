package monitor

import (
	"context"
	"os"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// CaptureTape plays a capture file (pcap or pcapng, plain or gzip). Its
// packets are read ahead on a goroutine of their own (prefetch.go) from
// the first Next to Close.
type CaptureTape struct {
	src    *pcapfile.Source
	n      int
	ahead  *prefetch
	decode *capture.Predecoder
	closed bool
}

// OpenCapture opens a capture file as a tape.
func OpenCapture(path string) (*CaptureTape, error) {
	src, err := pcapfile.Open(path)
	if err != nil {
		return nil, err
	}
	return &CaptureTape{src: src}, nil
}

// ctxEvery is how many packets a tape reads between looks at its context.
const ctxEvery = 4096

// Next returns the next packet.
func (t *CaptureTape) Next(ctx context.Context) (Record, error) {
	if t.n++; t.n%ctxEvery == 0 {
		if err := ctx.Err(); err != nil {
			return Record{}, err
		}
	}
	if t.closed {
		return Record{}, errTapeClosed
	}
	if t.ahead == nil {
		t.ahead = startPrefetch(t.src, t.decode)
	}
	return t.ahead.nextRecord(ctx)
}

// DecodeAhead makes the reader decode each packet with pd as well (Record's
// Decoded). It has effect only before the first Next, which starts the
// reader.
func (t *CaptureTape) DecodeAhead(pd *capture.Predecoder) {
	if t.ahead == nil {
		t.decode = pd
	}
}

// Close stops reading and closes the file.
func (t *CaptureTape) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	if t.ahead != nil {
		return t.ahead.close(t.src.Close)
	}
	return t.src.Close()
}

// Progress returns the bytes of the file read so far and its size.
func (t *CaptureTape) Progress() (done, total int64) { return t.src.Progress() }

// Describe names the file, its format and link type in an analysis.
func (t *CaptureTape) Describe(s *capture.Summary) {
	s.File, s.Format, s.Compressed = t.src.Path, string(t.src.Format), t.src.Compressed
	s.LinkType, s.Snaplen = capture.LinkName(t.src.LinkType()), t.src.Snaplen
}

// PeekSpan measures the file's first packets (spanMeter) from a second
// handle on it, so that the replay need not copy them aside to read them
// twice: the lookahead's 16 MB of copies cost more than reading them again
// where the kernel's page faults are slow. A compressed file or one that
// is not a regular file (a pipe cannot be read twice) is not peeked.
func (t *CaptureTape) PeekSpan(want int64) (span int64, eof, ok bool) {
	if t.src.Compressed || t.ahead != nil {
		return 0, false, false
	}
	if st, err := os.Stat(t.src.Path); err != nil || !st.Mode().IsRegular() {
		return 0, false, false
	}
	src, err := pcapfile.Open(t.src.Path)
	if err != nil {
		return 0, false, false
	}
	defer src.Close()
	m := spanMeter{want: want}
	for {
		data, ci, _, err := src.ReadPacket()
		if err != nil {
			return m.span(), true, true // the end, or damage: as the lookahead
		}
		if m.add(&Record{Data: data, CI: ci}) {
			return m.span(), false, true
		}
	}
}
