package monitor

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/rdmatop/rdmatop/probes/bundle"
)

// slowRecorder notes what it is given, in order; gate, while open, holds
// every write.
type slowRecorder struct {
	mu    sync.Mutex
	log   []string
	gate  chan struct{}
	fail  error
	calls int
}

func (s *slowRecorder) wait() {
	if s.gate != nil {
		<-s.gate
	}
}

func (s *slowRecorder) WritePacket(ci gopacket.CaptureInfo, data []byte) error {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.fail != nil {
		return s.fail
	}
	s.log = append(s.log, "p"+string(data))
	return nil
}

func (s *slowRecorder) WriteTick(t *bundle.Tick) error {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, "t"+t.Time.Format("05"))
	return nil
}

// Packets and ticks reach the recorder in the order they were handed
// over, byte for byte, though the caller's buffer is reused at once.
func TestRecordQueueOrder(t *testing.T) {
	rec := &slowRecorder{}
	q := newRecordQueue(rec)
	buf := make([]byte, 1)
	var want []string
	for i := range 3 * recBatchRecords {
		buf[0] = byte('a' + i%26)
		q.packet(gopacket.CaptureInfo{}, buf)
		want = append(want, "p"+string(buf))
		if i%5000 == 4999 {
			tick := &bundle.Tick{Time: time.Unix(int64(i/5000), 0)}
			if err := q.tick(tick); err != nil {
				t.Fatal(err)
			}
			want = append(want, "t"+tick.Time.Format("05"))
		}
	}
	if err := q.close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rec.log, ",") != strings.Join(want, ",") {
		t.Fatalf("recorded %d items out of order or changed (want %d)", len(rec.log), len(want))
	}
	if f, tk := q.lost(); f != 0 || tk != 0 {
		t.Errorf("lost %d frames, %d ticks with a writer that keeps up", f, tk)
	}
}

// A writer that falls behind loses frames, never blocks the reader, and
// says so: counted, and in the status of the next tick it writes.
func TestRecordQueueDropsCounted(t *testing.T) {
	rec := &slowRecorder{gate: make(chan struct{})}
	q := newRecordQueue(rec)
	n := (recBatches + 2) * recBatchRecords
	done := make(chan struct{})
	go func() {
		for range n {
			q.packet(gopacket.CaptureInfo{}, []byte{'x'})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the reader blocked on a writer that fell behind")
	}
	frames, _ := q.lost()
	if frames == 0 {
		t.Fatalf("%d frames into a stuck writer of %d batches: none counted lost", n, recBatches)
	}
	tick := &bundle.Tick{Time: time.Unix(1, 0)}
	if err := q.tick(tick); err != nil {
		t.Fatal(err)
	}
	if len(tick.Status) != 1 || tick.Status[0].Source != "recording" || !strings.Contains(tick.Status[0].Detail, "not written") {
		t.Errorf("tick status %+v: the loss is not said", tick.Status)
	}
	close(rec.gate)
	if err := q.close(); err != nil {
		t.Fatal(err)
	}
	if got := uint64(len(rec.log)) - 1; got+frames != uint64(n) {
		t.Errorf("%d written + %d lost != %d handed over", got, frames, n)
	}
}

// The writer's failure comes back at the next tick; the reader is never
// blocked by it.
func TestRecordQueueFailure(t *testing.T) {
	rec := &slowRecorder{fail: errors.New("disk full")}
	q := newRecordQueue(rec)
	q.packet(gopacket.CaptureInfo{}, []byte{'x'})
	q.tick(&bundle.Tick{Time: time.Unix(1, 0)}) // hands the frame over
	var err error
	for deadline := time.Now().Add(5 * time.Second); err == nil && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		err = q.tick(&bundle.Tick{Time: time.Unix(2, 0)})
	}
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("tick after a failed write: %v", err)
	}
	for range 2 * recBatches * recBatchRecords {
		q.packet(gopacket.CaptureInfo{}, []byte{'y'})
	}
	if err := q.close(); err == nil {
		t.Error("close after a failure: no error")
	}
}
