package monitor

import (
	"context"

	"github.com/rdmatop/rdmatop/capture"
)

// CaptureTape plays a capture file (pcap or pcapng, plain or gzip).
type CaptureTape struct {
	src *capture.FileSource
	n   int
}

// OpenCapture opens a capture file as a tape.
func OpenCapture(path string) (*CaptureTape, error) {
	src, err := capture.OpenFile(path)
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
	data, ci, link, err := t.src.ReadPacket()
	if err != nil {
		return Record{}, err
	}
	return Record{Data: data, CI: ci, Link: link}, nil
}

// Close closes the file.
func (t *CaptureTape) Close() error { return t.src.Close() }

// Progress returns the bytes of the file read so far and its size.
func (t *CaptureTape) Progress() (done, total int64) { return t.src.Progress() }

// Describe names the file, its format and link type in an analysis.
func (t *CaptureTape) Describe(s *capture.Summary) {
	s.File, s.Format, s.Compressed = t.src.Path, string(t.src.Format), t.src.Compressed
	s.LinkType, s.Snaplen = capture.LinkName(t.src.LinkType()), t.src.Snaplen
}
