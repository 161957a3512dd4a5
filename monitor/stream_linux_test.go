//go:build linux

package monitor_test

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture/pcapstream"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
)

// streamRun starts a live run whose wire is a FIFO fed with b (then
// closed, unless keepOpen), and returns the first Frame for which done is
// true (failing after 60 s).
func streamRun(t *testing.T, b []byte, keepOpen bool, done func(monitor.Frame) bool) monitor.Frame {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wire")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	src, err := pcapstream.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	writer := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			writer <- nil
			return
		}
		w.Write(b)
		if !keepOpen {
			w.Close()
		}
		writer <- w
	}()
	defer func() {
		if w := <-writer; w != nil {
			w.Close()
		}
	}()
	r, err := monitor.New(monitor.Config{Mode: monitor.ModeLive, Wire: src, WireName: src.Stream(), Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for f, err := range r.Frames(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if done(f) {
			return f
		}
	}
	t.Fatal("no such Frame within 60 s")
	return monitor.Frame{}
}

func failed(f monitor.Frame) bool {
	return f.WireStatus != nil && f.WireStatus.State == probes.StateFailed
}

// The end of a stream stops the wire and says so, with what it gave; the
// analysis of what came before stays.
func TestLiveStreamEnd(t *testing.T) {
	raw, err := os.ReadFile("../testdata/rxe/pcap/lossy1.pcap")
	if err != nil {
		t.Fatal(err)
	}
	// The header and the first 100 records (little-endian pcap).
	end := 24
	for range 100 {
		end += 16 + int(binary.LittleEndian.Uint32(raw[end+8:]))
	}
	f := streamRun(t, raw[:end], false, failed)
	if d := f.WireStatus.Detail; !strings.Contains(d, "ended after 100 packets") || !strings.HasSuffix(f.WireStatus.Source, "/wire") {
		t.Errorf("wire status %+v", f.WireStatus)
	}
	if f.Wire == nil || f.Wire.RoCEPackets != 100 || f.Wire.Format != "pcap stream" {
		t.Errorf("the analysis of the stream: %+v", f.Wire)
	}
}

// Bytes that are not a capture stop the wire, named.
func TestLiveStreamGarbage(t *testing.T) {
	f := streamRun(t, []byte("220 ftp.example.com ready\r\n"), false, failed)
	if d := f.WireStatus.Detail; !strings.Contains(d, "not a pcap or pcapng capture") {
		t.Errorf("wire status %+v", f.WireStatus)
	}
}

// While the stream is open its status names it and how late its packets
// come.
func TestLiveStreamNamed(t *testing.T) {
	raw, err := os.ReadFile("../testdata/rxe/pcap/lossy1.pcap")
	if err != nil {
		t.Fatal(err)
	}
	f := streamRun(t, raw, true, func(f monitor.Frame) bool {
		return f.WireStatus != nil && strings.Contains(f.WireStatus.Detail, "not now's traffic")
	})
	// lossy1's packets are days old: not this tick's.
	if f.WireStatus.State != probes.StateOK || !strings.HasPrefix(f.WireStatus.Detail, "stream ") {
		t.Errorf("wire status %+v", f.WireStatus)
	}
}
