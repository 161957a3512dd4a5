package bundle

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
)

// The version 1 writer: rdmatop writes version 2 (PcapngWriter) and reads
// both, so only the tests write version 1, to prove it still reads.

// Writer writes a version 1 bundle (JSON Lines, host ticks only).
type Writer struct {
	w   *bufio.Writer
	gz  *gzip.Writer
	out io.Writer
}

// NewWriter writes h to w as a version 1 header and returns a Writer for
// the ticks. With gz the stream is gzip-compressed (each tick is flushed
// as a gzip block).
func NewWriter(w io.Writer, h Header, gz bool) (*Writer, error) {
	h.Format, h.Version = Format, Version1
	bw := &Writer{out: w}
	if gz {
		bw.gz = gzip.NewWriter(w)
		bw.w = bufio.NewWriter(bw.gz)
	} else {
		bw.w = bufio.NewWriter(w)
	}
	if err := bw.line(h); err != nil {
		return nil, err
	}
	return bw, nil
}

func (w *Writer) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.w.Write(b)
	w.w.WriteByte('\n')
	if err := w.w.Flush(); err != nil {
		return err
	}
	if w.gz != nil {
		return w.gz.Flush()
	}
	return nil
}

// WriteTick appends one tick and flushes it to the underlying writer.
func (w *Writer) WriteTick(t *Tick) error { return w.line(t) }

// Close ends the stream (the gzip trailer); it does not close the file.
func (w *Writer) Close() error {
	if err := w.w.Flush(); err != nil {
		return err
	}
	if w.gz != nil {
		return w.gz.Close()
	}
	return nil
}
