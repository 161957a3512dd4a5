package monitor

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// The tape reading ahead returns what the file source returns, record for
// record (bytes, capture info, link type) and then the same error: at the
// end, at damage, and across batch boundaries.
func TestPrefetchSameAsSource(t *testing.T) {
	for _, path := range []string{lossy, "../testdata/scenarios/truncated.pcap",
		"../testdata/pcaps/oferby-proxy_roce.pcapng", "../testdata/lab/pipeline/incident.pcapng.gz"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := pcapfile.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			type rec struct {
				data []byte
				ci   gopacket.CaptureInfo
				link layers.LinkType
			}
			var want []rec
			var wantErr error
			for {
				data, ci, link, err := src.ReadPacket()
				if err != nil {
					wantErr = err
					break
				}
				want = append(want, rec{append([]byte(nil), data...), ci, link})
			}
			tape, err := OpenCapture(path)
			if err != nil {
				t.Fatal(err)
			}
			defer tape.Close()
			for i, w := range want {
				r, err := tape.Next(context.Background())
				if err != nil {
					t.Fatalf("record %d of %d: %v", i+1, len(want), err)
				}
				if !bytes.Equal(r.Data, w.data) || r.CI.Timestamp != w.ci.Timestamp || r.CI.Length != w.ci.Length ||
					r.CI.InterfaceIndex != w.ci.InterfaceIndex || r.Link != w.link {
					t.Fatalf("record %d differs from the source's", i+1)
				}
			}
			for range 2 { // the error sticks
				if _, err := tape.Next(context.Background()); err == nil || err.Error() != wantErr.Error() {
					t.Fatalf("after %d records: %v, want %v", len(want), err, wantErr)
				}
			}
			if len(want) == 0 {
				t.Fatal("no records")
			}
		})
	}
}

// fakeSource returns n records of the given sizes in turn, then err.
type fakeSource struct {
	sizes []int
	n     int
	err   error
	buf   []byte
}

func (s *fakeSource) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	if s.n == len(s.sizes) {
		return nil, gopacket.CaptureInfo{}, 0, s.err
	}
	size := s.sizes[s.n]
	s.n++
	s.buf = s.buf[:0]
	for i := range size {
		s.buf = append(s.buf, byte(s.n+i)) // reused, as a zero-copy reader's
	}
	return s.buf, gopacket.CaptureInfo{CaptureLength: size, Length: s.n}, layers.LinkTypeEthernet, nil
}

// Records that do not fit a batch's bytes start the next batch; one larger
// than a batch gets it alone; many small ones fill batches by count.
func TestPrefetchBatchBoundaries(t *testing.T) {
	var sizes []int
	for range 3 * batchRecords {
		sizes = append(sizes, 60)
	}
	sizes = append(sizes, batchBytes-100, 200, 3*batchBytes, 0, 1500)
	for range 2000 {
		sizes = append(sizes, 1500)
	}
	bad := errors.New("record 9001: cut short")
	p := startPrefetch(&fakeSource{sizes: sizes, err: bad}, nil)
	defer p.close(func() error { return nil })
	for i, size := range sizes {
		r, err := p.nextRecord(context.Background())
		if err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		if len(r.Data) != size || r.CI.Length != i+1 {
			t.Fatalf("record %d: %d bytes, number %d; want %d bytes", i+1, len(r.Data), r.CI.Length, size)
		}
		for j, b := range r.Data {
			if b != byte(i+1+j) {
				t.Fatalf("record %d: byte %d is %d, want %d", i+1, j, b, byte(i+1+j))
			}
		}
	}
	if _, err := p.nextRecord(context.Background()); !errors.Is(err, bad) {
		t.Fatalf("at the end: %v, want %v", err, bad)
	}
}

// Closing a tape in the middle stops its reader (no goroutine left behind)
// and later calls say it is closed.
func TestPrefetchCloseMidway(t *testing.T) {
	noLeak(t)
	tape, err := OpenCapture(lossy)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := tape.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := tape.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := tape.Next(context.Background()); !errors.Is(err, errTapeClosed) {
		t.Errorf("Next after Close: %v", err)
	}
	if err := tape.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A file that ends cleanly ends the tape with io.EOF.
func TestPrefetchEOF(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "*.pcap")
	if err != nil {
		t.Fatal(err)
	}
	// A pcap header and no record.
	f.Write([]byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 0, 0})
	f.Close()
	tape, err := OpenCapture(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer tape.Close()
	if _, err := tape.Next(context.Background()); err != io.EOF {
		t.Errorf("empty capture: %v, want io.EOF", err)
	}
}

// Peeking at a file's first packets from a second handle measures what
// buffering them measures: the same span and the same end, at damage too.
func TestPeekSpanAsLookahead(t *testing.T) {
	for _, path := range []string{lossy, "../testdata/scenarios/truncated.pcap", "../testdata/pcaps/oferby-proxy_roce.pcapng"} {
		for _, want := range []int64{1e6, 4e9, 1 << 62} {
			tape, err := OpenCapture(path)
			if err != nil {
				t.Fatal(err)
			}
			span, eof, ok := tape.PeekSpan(want)
			if !ok {
				t.Fatalf("%s: not peeked", path)
			}
			la := &lookahead{tape: tape}
			if s := la.fill(context.Background(), want); s != span || la.eof != eof {
				t.Errorf("%s, %d ns: peeked span %d end %v, buffered %d end %v", path, want, span, eof, s, la.eof)
			}
			tape.Close()
		}
	}
	// A compressed file is buffered instead.
	tape, err := OpenCapture("../testdata/lab/pipeline/incident.pcapng.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer tape.Close()
	if _, _, ok := tape.PeekSpan(1e9); ok {
		t.Error("a gzip file was peeked")
	}
}

// A replay from a pipe whose writer goes quiet (tcpdump -w - piped into
// rdmatop replay /dev/stdin, the capture stalled; a recording streamed
// from another host) stops when its context is cancelled, and closing the
// tape does not wait for the blocked read. The capture tape's reader used
// to wait on its batch channel without the context, Close on the reader
// blocked in its read, and a recording's read had no way out at all.
func TestPipeReplayCancels(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		open       func(string) (Tape, error)
	}{
		{"capture", lossy, func(p string) (Tape, error) { return OpenCapture(p) }},
		{"recording", "../testdata/incidents/access-read-range.pcapng.gz", func(p string) (Tape, error) { return OpenBundle(p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeak(t)
			head, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(t.TempDir(), "pipe")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			writer := make(chan *os.File, 1)
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					writer <- nil
					return
				}
				w.Write(head[:min(len(head)/2, 64<<10)]) // the start, then nothing
				writer <- w
			}()
			tape, err := tc.open(fifo)
			if err != nil {
				t.Fatal(err)
			}
			w := <-writer
			if w == nil {
				t.Fatal("could not open the pipe for writing")
			}
			defer w.Close() // the writer stays open: the pipe never ends

			r, err := New(Config{Tape: tape, Interval: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			ended := make(chan time.Time, 1)
			go func() {
				for _, err := range r.Frames(ctx) {
					if err != nil {
						break
					}
				}
				ended <- time.Now()
			}()
			time.Sleep(200 * time.Millisecond) // the run has read all there is and waits
			at := time.Now()
			cancel()
			select {
			case end := <-ended:
				t.Logf("the run ended %v after the cancel", end.Sub(at))
			case <-time.After(5 * time.Second):
				t.Fatal("a replay from a quiet pipe did not stop within 5 s of its cancel")
			}
		})
	}
}
