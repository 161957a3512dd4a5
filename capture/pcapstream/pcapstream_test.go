package pcapstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// lossy1 is a real Soft-RoCE capture (testdata/rxe/MANIFEST.upstream.md).
const lossy1 = "../../testdata/rxe/pcap/lossy1.pcap"

// fifo makes a named pipe in a test directory.
func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "wire")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// openFIFO opens a new FIFO as a stream, closed at the end of the test.
func openFIFO(t *testing.T) (path string, s *Source) {
	t.Helper()
	path = fifo(t)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return path, s
}

// lossy1Bytes is the capture's file as written.
func lossy1Bytes(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(lossy1)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// feed opens path for writing (a FIFO's writer) and writes b to it in
// pieces of chunk bytes, then closes it unless keepOpen.
func feed(t *testing.T, path string, b []byte, chunk int, keepOpen bool) (closeW func()) {
	t.Helper()
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Errorf("open for writing: %v", err)
			opened <- nil
			return
		}
		opened <- w
		for len(b) > 0 {
			n := min(chunk, len(b))
			if _, err := w.Write(b[:n]); err != nil {
				return
			}
			b = b[n:]
		}
		if !keepOpen {
			w.Close()
		}
	}()
	return func() {
		if w := <-opened; w != nil {
			w.Close()
		}
	}
}

// readAll reads s until its first error other than live.ErrTimeout, or
// until deadline.
func readAll(t *testing.T, s *Source, deadline time.Duration) (frames [][]byte, times []time.Time, err error) {
	t.Helper()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		data, ci, _, err := s.ReadPacket()
		if errors.Is(err, live.ErrTimeout) {
			continue
		}
		if err != nil {
			return frames, times, err
		}
		frames = append(frames, bytes.Clone(data))
		times = append(times, ci.Timestamp)
	}
	t.Fatalf("no end of the stream within %v (%d frames read)", deadline, len(frames))
	return nil, nil, nil
}

// A real capture written through a FIFO in small pieces, the writer
// opening it after the reader: every frame arrives with its bytes and
// time as the file reader reads them, then the end, named.
func TestFIFOGivesTheFileFrames(t *testing.T) {
	raw := lossy1Bytes(t)
	want, err := pcapfile.Open(lossy1)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	path, s := openFIFO(t)
	time.Sleep(2 * writerPoll) // the reader finds no writer yet
	defer feed(t, path, raw, 1000, false)()
	frames, times, err := readAll(t, s, 60*time.Second)
	var end *EndError
	if !errors.As(err, &end) || end.Packets != len(frames) || !strings.Contains(err.Error(), path) {
		t.Fatalf("after %d frames: %v, want the end of %s after them", len(frames), err, path)
	}
	for i := range frames {
		data, ci, _, err := want.ReadPacket()
		if err != nil {
			t.Fatalf("file: frame %d: %v", i+1, err)
		}
		if !bytes.Equal(data, frames[i]) || !ci.Timestamp.Equal(times[i]) {
			t.Fatalf("frame %d differs from the file's", i+1)
		}
	}
	if _, _, _, err := want.ReadPacket(); err != io.EOF {
		t.Fatalf("the stream gave %d frames, the file has more (%v)", len(frames), err)
	}
	if len(frames) < 1000 {
		t.Fatalf("%d frames: the check checked little", len(frames))
	}
}

// Bytes that are no capture are said, with what they were.
func TestGarbageIsNamed(t *testing.T) {
	path, s := openFIFO(t)
	defer feed(t, path, []byte("HTTP/1.1 200 OK\r\n\r\nnot a capture"), 4096, false)()
	_, _, err := readAll(t, s, 30*time.Second)
	if !errors.Is(err, ErrNotCapture) || !strings.Contains(err.Error(), "first bytes 48 54 54 50") {
		t.Fatalf("%v, want: not a pcap or pcapng capture, with its first bytes", err)
	}
}

// A pipe whose writer goes without writing anything has ended, before its
// first packet: not a stream that is no capture. (A FIFO waits for
// another writer: it is a meeting point.) Standard input of a child.
func TestNothingWritten(t *testing.T) {
	if os.Getenv("PCAPSTREAM_CHILD") == "empty" {
		s, err := Open("-")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, _, err = readAll(t, s, 30*time.Second)
		var end *EndError
		if !errors.As(err, &end) || end.Packets != 0 || errors.Is(err, ErrNotCapture) {
			t.Fatalf("%v, want the end before the first packet", err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNothingWritten$")
	cmd.Env = append(os.Environ(), "PCAPSTREAM_CHILD=empty")
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// A stream cut in the middle of a record is damage, with the record.
func TestCutRecordIsDamage(t *testing.T) {
	raw := lossy1Bytes(t)
	path, s := openFIFO(t)
	// The header, the first record whole, the second cut after 10 bytes
	// of its data (lossy1 is little-endian pcap: incl_len at 8 of a
	// record's header).
	first := 24 + 16 + int(binary.LittleEndian.Uint32(raw[24+8:]))
	defer feed(t, path, raw[:first+16+10], 4096, false)()
	frames, _, err := readAll(t, s, 30*time.Second)
	if len(frames) != 1 || !errors.Is(err, pcapfile.ErrTruncated) {
		t.Fatalf("%d frames, %v: want 1 frame, then the second record truncated", len(frames), err)
	}
}

// A stream that stalls gives timeouts, and Close returns at once though
// a read of it is pending.
func TestStallAndClose(t *testing.T) {
	raw := lossy1Bytes(t)
	path, s := openFIFO(t)
	closeW := feed(t, path, raw[:24], 4096, true) // the header, then nothing
	defer closeW()
	for range 3 {
		if _, _, _, err := s.ReadPacket(); !errors.Is(err, live.ErrTimeout) {
			t.Fatalf("%v, want live.ErrTimeout", err)
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s while a read was pending")
	}
}

// Standard input as the stream ("-"): the frames, then its end. Run in
// a child process whose standard input is a pipe.
func TestStdin(t *testing.T) {
	if os.Getenv("PCAPSTREAM_CHILD") == "1" {
		s, err := Open("-")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		frames, _, err := readAll(t, s, 60*time.Second)
		var end *EndError
		if !errors.As(err, &end) || end.Name != "stdin" {
			t.Fatalf("%v, want stdin's end", err)
		}
		os.Stdout.WriteString("frames " + strconv.Itoa(len(frames)) + "\n")
		return
	}
	raw := lossy1Bytes(t)
	f, err := pcapfile.Open(lossy1)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, _, _, err := f.ReadPacket(); err != nil {
			break
		}
		n++
	}
	f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStdin$", "-test.v")
	cmd.Env = append(os.Environ(), "PCAPSTREAM_CHILD=1")
	cmd.Stdin = bytes.NewReader(raw) // os/exec pipes it
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "frames "+strconv.Itoa(n)+"\n") {
		t.Fatalf("child: %v\n%s\nwant frames %d", err, out, n)
	}
}
