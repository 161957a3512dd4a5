// Package bundle is rdmatop's recording format: everything the probes read
// on a host, tick by tick, so that an incident recorded at 3 a.m. replays
// anywhere through the same parsers.
//
// A bundle is JSON Lines, optionally gzip-compressed: a header line, then
// one line per tick. Each tick is written and flushed as a whole, so a
// Ctrl-C or a kill loses at most the tick being written; a reader stops
// cleanly at a cut last line. The format is documented in docs/bundle.md.
package bundle

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/fsrec"
)

// Format and Version identify a bundle; readers refuse other versions.
const (
	Format  = "rdmatop-bundle"
	Version = 1
)

// Header is the first line of a bundle.
type Header struct {
	Format   string    `json:"format"`
	Version  int       `json:"version"`
	Created  time.Time `json:"created"`
	Tool     string    `json:"tool"` // rdmatop version that recorded it
	Host     Host      `json:"host"`
	Interval string    `json:"interval"` // sampling interval, time.Duration text
	// Selection is what the recording was limited to (-i / -d), if anything.
	Selection string `json:"selection,omitempty"`
}

// Host holds facts about the recorded machine.
type Host struct {
	Hostname string `json:"hostname"`
	Kernel   string `json:"kernel"`
	Arch     string `json:"arch,omitempty"`
	Uid      int    `json:"uid"`
}

// Tick is what the probes saw at one sample time: the files read (sysfs,
// proc), the raw answers of the other sources keyed by source name
// ("ethtool/eth0", "rtnl/eth0", "rdmanl", "dcb/eth0", "kmsg"), and how
// each source fared.
type Tick struct {
	Time   time.Time                  `json:"time"`
	Files  fsrec.Tree                 `json:"files,omitempty"`
	Raw    map[string]json.RawMessage `json:"raw,omitempty"`
	Status []probes.Status            `json:"status,omitempty"`
}

// Writer writes a bundle.
type Writer struct {
	w   *bufio.Writer
	gz  *gzip.Writer
	out io.Writer
}

// NewWriter writes h to w and returns a Writer for the ticks. With gz the
// stream is gzip-compressed (each tick is flushed as a gzip block).
func NewWriter(w io.Writer, h Header, gz bool) (*Writer, error) {
	h.Format, h.Version = Format, Version
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

// Reader reads a bundle.
type Reader struct {
	Header Header
	s      *bufio.Scanner
	line   int
	// Truncated is set when the last tick was cut (a kill while writing).
	Truncated bool
}

// ErrNotBundle is returned for input that is not an rdmatop bundle.
var ErrNotBundle = errors.New("not an rdmatop bundle")

// IsBundle reports whether head (the first bytes of a file, after gzip
// decompression) starts like a bundle.
func IsBundle(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(head, " \t"), []byte(`{"format":"`+Format+`"`))
}

// NewReader reads the header from r, which may be gzip-compressed.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("bundle: bad gzip stream: %w", err)
		}
		br = bufio.NewReaderSize(gz, 1<<16)
	}
	s := bufio.NewScanner(br)
	s.Buffer(make([]byte, 1<<20), 1<<30)
	rd := &Reader{s: s}
	if !s.Scan() {
		if err := s.Err(); err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		return nil, fmt.Errorf("%w: empty input", ErrNotBundle)
	}
	rd.line = 1
	if err := json.Unmarshal(s.Bytes(), &rd.Header); err != nil || rd.Header.Format != Format {
		return nil, fmt.Errorf("%w: first line is not a bundle header", ErrNotBundle)
	}
	if rd.Header.Version != Version {
		return nil, fmt.Errorf("bundle version %d: this rdmatop reads version %d", rd.Header.Version, Version)
	}
	return rd, nil
}

// Next returns the next tick, or io.EOF after the last. A cut last line
// (a recording killed mid-write) ends the bundle with Truncated set; a
// damaged line elsewhere is an error naming the line.
func (r *Reader) Next() (*Tick, error) {
	if !r.s.Scan() {
		if err := r.s.Err(); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("bundle line %d: %w", r.line+1, err)
		}
		return nil, io.EOF
	}
	r.line++
	var t Tick
	if err := json.Unmarshal(r.s.Bytes(), &t); err != nil {
		// Only the last line may be cut short.
		line := r.line
		if !r.s.Scan() {
			r.Truncated = true
			return nil, io.EOF
		}
		return nil, fmt.Errorf("bundle line %d: %w", line, err)
	}
	return &t, nil
}
