// Package pcapstream is a live source of captured frames read from a pcap
// or pcapng stream: standard input, a FIFO or a file, written by a sniffer
// the site already runs (tcpdump -i mlx5_0 -U -w -, NVIDIA's ibdump, a
// switch mirror's collector). A hardware RoCE NIC hands its RoCE packets
// to the kernel only through its sniffer device, so on such a host this
// is how a live run gets a wire.
//
// The stream is read on a goroutine of its own, and ReadPacket waits for
// a frame at most the poll timeout (live.ErrTimeout, as a live capture
// does), so a stream that gives nothing never holds a run that is
// stopping. The end of the stream, a stream that is not a capture and
// damage within it are errors of ReadPacket that name the stream, the
// record and the byte. It knows nothing of RoCE; package capture analyses
// what it yields (capture.Source).
package pcapstream

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/term"

	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// DefaultPollTimeout is how long ReadPacket waits for a frame before
// returning live.ErrTimeout: a live capture's.
const DefaultPollTimeout = live.DefaultPollTimeout

// queued is how many frames the reader may be ahead of the analysis:
// enough to ride out a tick's cut (tens of milliseconds at 100,000 flows)
// at a sniffer's rate, few enough that the queue is not a second buffer
// hiding a reader that cannot keep up.
const queued = 4096

// writerPoll is how often a FIFO with no writer yet is looked at again.
const writerPoll = 50 * time.Millisecond

// Source reads frames from a capture stream.
type Source struct {
	name string
	file *os.File
	fifo bool // a named pipe: until a writer opens it, reads find its end

	frames chan frame
	free   chan []byte
	stop   chan struct{}
	done   chan struct{} // closed when the reader has returned; err says why
	err    error
	held   []byte // the frame last returned, given back on the next call
	timer  *time.Timer
	poll   time.Duration
	once   sync.Once

	mu  sync.Mutex
	hdr Header // once the reader has read it
}

// Header is what a stream's header says.
type Header struct {
	Format  pcapfile.Format // pcap or pcapng
	Link    layers.LinkType // of its (first) interface
	Snaplen uint32          // 0: not stated
}

// frame is one record read, its bytes a copy the Source owns.
type frame struct {
	data []byte
	ci   gopacket.CaptureInfo
	link layers.LinkType
}

// Open opens path ("-": standard input) and starts reading it. The
// stream's header is read by the reader: a stream that is not a capture
// is ReadPacket's error, not Open's, since a sniffer may write its header
// only once it has started.
func Open(path string) (*Source, error) {
	s := &Source{name: path, poll: DefaultPollTimeout}
	if path == "-" {
		if term.IsTerminal(int(os.Stdin.Fd())) {
			return nil, errors.New("--wire -: standard input is a terminal: pipe a capture into it " +
				"(tcpdump -i mlx5_0 -U -w - udp port 4791 | rdmatop -i eth0 --wire -)")
		}
		// Non-blocking, so that the runtime's poller waits for it and
		// Close wakes a pending read; a pipe or socket only.
		if err := syscall.SetNonblock(0, true); err != nil {
			return nil, fmt.Errorf("--wire -: standard input: %w", err)
		}
		s.name, s.file = "stdin", os.NewFile(0, "stdin")
	} else {
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("--wire: %w", err)
		}
		s.fifo = st.Mode()&os.ModeNamedPipe != 0
		flag := os.O_RDONLY
		if s.fifo {
			flag |= syscall.O_NONBLOCK // open(2) would wait for a writer
		}
		if s.file, err = os.OpenFile(path, flag, 0); err != nil {
			return nil, fmt.Errorf("--wire: %w", err)
		}
	}
	s.frames = make(chan frame, queued)
	s.free = make(chan []byte, queued+2)
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go s.read()
	return s, nil
}

// Stream is the stream as messages name it: stdin, or its path.
func (s *Source) Stream() string { return s.name }

// Header returns the stream's header; ok is false until it has been read.
func (s *Source) Header() (h Header, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hdr, s.hdr.Format != ""
}

// ReadPacket returns the next frame, valid until the next call. It
// returns live.ErrTimeout when none came within the poll timeout, and
// the reader's error once the frames before it are read: an *EndError
// at the stream's end, else what was wrong with the stream.
func (s *Source) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	if s.held != nil {
		select {
		case s.free <- s.held[:0]:
		default:
		}
		s.held = nil
	}
	select {
	case f := <-s.frames:
		s.held = f.data
		return f.data, f.ci, f.link, nil
	default:
	}
	if s.timer == nil {
		s.timer = time.NewTimer(s.poll)
	} else {
		s.timer.Reset(s.poll)
	}
	select {
	case f := <-s.frames:
		s.held = f.data
		return f.data, f.ci, f.link, nil
	case <-s.done:
		// Frames queued before the reader stopped come first.
		select {
		case f := <-s.frames:
			s.held = f.data
			return f.data, f.ci, f.link, nil
		default:
		}
		return nil, gopacket.CaptureInfo{}, 0, s.err
	case <-s.timer.C:
		return nil, gopacket.CaptureInfo{}, 0, live.ErrTimeout
	}
}

// Close stops the reader and closes the stream; it waits for the reader
// to return (closing the file wakes a pending read).
func (s *Source) Close() error {
	var err error
	s.once.Do(func() {
		close(s.stop)
		err = s.file.Close()
		<-s.done
	})
	return err
}

// EndError is ReadPacket's error at the end of the stream.
type EndError struct {
	Name    string
	Packets int // records read
}

func (e *EndError) Error() string {
	if e.Packets == 0 {
		return e.Name + " ended before its first packet (did the sniffer start? it says why on its standard error)"
	}
	return fmt.Sprintf("%s ended after %d packets", e.Name, e.Packets)
}

// read reads the stream until it ends, fails or Close is called; s.err
// then says why.
func (s *Source) read() {
	defer close(s.done)
	in := &stopReader{s: s}
	src, err := pcapfile.NewReader(s.name, in)
	switch {
	case err != nil && !in.read:
		s.err = s.stopped(&EndError{Name: s.name}) // the writer went before writing
		return
	case err != nil:
		s.err = s.stopped(&headerError{err})
		return
	}
	s.mu.Lock()
	s.hdr = Header{Format: src.Format, Link: src.LinkType(), Snaplen: src.Snaplen}
	s.mu.Unlock()
	for {
		data, ci, link, err := src.ReadPacket()
		if err == io.EOF {
			s.err = &EndError{Name: s.name, Packets: src.Records()}
			return
		}
		if err != nil {
			s.err = s.stopped(err)
			return
		}
		var buf []byte
		select {
		case buf = <-s.free:
		default:
		}
		f := frame{data: append(buf, data...), ci: ci, link: link}
		select {
		case s.frames <- f:
		case <-s.stop:
			s.err = errClosed
			return
		}
	}
}

var errClosed = errors.New("stream closed")

// ErrNotCapture is wrapped by ReadPacket's error when the stream does not
// start with a pcap or pcapng header.
var ErrNotCapture = errors.New("not a pcap or pcapng stream")

// headerError is a stream whose header is not a capture's; its text is
// the reader's (which says what the first bytes were).
type headerError struct{ err error }

func (e *headerError) Error() string   { return e.err.Error() }
func (e *headerError) Unwrap() []error { return []error{ErrNotCapture, e.err} }

// stopped is the reader's error: errClosed once Close was called (the
// read it interrupted failed), else err.
func (s *Source) stopped(err error) error {
	select {
	case <-s.stop:
		return errClosed
	default:
		return err
	}
}

// stopReader reads the stream's file. A FIFO opened before its writer
// reads as ended until the writer opens it: until the first byte, the
// end of a FIFO is waited out (every writerPoll, until Close).
type stopReader struct {
	s    *Source
	read bool // a byte has been read
}

func (r *stopReader) Read(p []byte) (int, error) {
	for {
		n, err := r.s.file.Read(p)
		if n > 0 {
			r.read = true
		}
		if err != io.EOF || r.read || !r.s.fifo {
			return n, err
		}
		select {
		case <-r.s.stop:
			return 0, errClosed
		case <-time.After(writerPoll):
		}
	}
}
