package monitor

import (
	"fmt"
	"sync"

	"github.com/gopacket/gopacket"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// recordQueue writes a live recording on a goroutine of its own, so that
// the packet reader, which holds the wire's lock, only copies each frame
// into a batch: the recorder's gzip and file writes (and a tick's flush)
// no longer happen under that lock, where they made the ring drop frames
// at line rate. Packets and ticks reach the file in the order they were
// handed over. Memory is bounded (recBatches batches); when the writer
// falls that far behind, frames are dropped from the recording, counted,
// and said in every later tick's status: never silently.
type recordQueue struct {
	rec   Recorder
	items chan recItem   // in order; never blocks a sender (see newRecordQueue)
	free  chan *recBatch // emptied batches, for the reader to fill
	cur   *recBatch      // being filled; the wire's lock is held

	mu      sync.Mutex
	dropped uint64 // frames not recorded: the writer fell behind
	ticks   uint64 // ticks not recorded, for the same reason
	err     error  // the writer's first failure
	done    chan struct{}
}

const (
	recBatches      = 8       // 8 MiB of frames in flight at most
	recBatchBytes   = 1 << 20 // a batch's copies, back to back
	recBatchRecords = 4096
	// recTickSlack is how many ticks may wait behind the batches: a
	// writer stuck that long loses ticks too (counted), rather than
	// blocking the tick loop and, under its lock, the packet reader.
	recTickSlack = 64
)

type recBatch struct {
	buf  []byte
	pkts []recPacket
}

type recPacket struct {
	ci       gopacket.CaptureInfo
	off, end int
}

type recItem struct {
	b    *recBatch
	tick *bundle.Tick
}

// newRecordQueue starts the writer. Every batch is either free, being
// filled, or in items: with room in items for all of them and
// recTickSlack ticks, a batch is never refused.
func newRecordQueue(rec Recorder) *recordQueue {
	q := &recordQueue{rec: rec, items: make(chan recItem, recBatches+recTickSlack),
		free: make(chan *recBatch, recBatches), done: make(chan struct{})}
	for range recBatches {
		q.free <- &recBatch{buf: make([]byte, 0, recBatchBytes), pkts: make([]recPacket, 0, recBatchRecords)}
	}
	go q.write()
	return q
}

// packet copies a frame for the writer; the wire's lock is held.
func (q *recordQueue) packet(ci gopacket.CaptureInfo, data []byte) {
	if q.cur != nil && (len(q.cur.pkts) == cap(q.cur.pkts) || len(q.cur.buf)+len(data) > cap(q.cur.buf) && len(q.cur.pkts) > 0) {
		q.send(recItem{b: q.cur})
		q.cur = nil
	}
	if q.cur == nil {
		select {
		case q.cur = <-q.free:
		default:
			q.mu.Lock()
			q.dropped++
			q.mu.Unlock()
			return
		}
	}
	off := len(q.cur.buf)
	q.cur.buf = append(q.cur.buf, data...)
	q.cur.pkts = append(q.cur.pkts, recPacket{ci: ci, off: off, end: len(q.cur.buf)})
}

// tick hands over the frames so far, then the tick; the wire's lock is
// held. It returns the writer's first failure.
func (q *recordQueue) tick(t *bundle.Tick) error {
	if q.cur != nil && len(q.cur.pkts) > 0 {
		q.send(recItem{b: q.cur})
		q.cur = nil
	}
	q.mu.Lock()
	dropped, lostTicks, err := q.dropped, q.ticks, q.err
	q.mu.Unlock()
	if err != nil {
		return err
	}
	if dropped > 0 || lostTicks > 0 {
		t.Status = append(t.Status, recordingStatus(dropped, lostTicks))
	}
	select {
	case q.items <- recItem{tick: t}:
	default:
		q.mu.Lock()
		q.ticks++
		q.mu.Unlock()
	}
	return nil
}

func (q *recordQueue) send(it recItem) {
	q.items <- it // never blocks: room for every batch (newRecordQueue)
}

// close hands over what is left, waits for the writer and returns its
// first failure; the packet readers have stopped.
func (q *recordQueue) close() error {
	if q.cur != nil && len(q.cur.pkts) > 0 {
		q.send(recItem{b: q.cur})
	}
	q.cur = nil
	close(q.items)
	<-q.done
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// lost returns the frames and ticks left out of the recording.
func (q *recordQueue) lost() (frames, ticks uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped, q.ticks
}

// write is the writer goroutine. After a failure it keeps taking items,
// so that nobody waits for it, and writes nothing more.
func (q *recordQueue) write() {
	defer close(q.done)
	for it := range q.items {
		q.mu.Lock()
		failed := q.err != nil
		q.mu.Unlock()
		var err error
		if b := it.b; b != nil {
			for i := 0; i < len(b.pkts) && err == nil && !failed; i++ {
				p := &b.pkts[i]
				err = q.rec.WritePacket(p.ci, b.buf[p.off:p.end])
			}
			b.buf, b.pkts = b.buf[:0], b.pkts[:0]
			q.free <- b // never blocks: it came from there
		}
		if it.tick != nil && err == nil && !failed {
			err = q.rec.WriteTick(it.tick)
		}
		if err != nil {
			q.mu.Lock()
			if q.err == nil {
				q.err = err
			}
			q.mu.Unlock()
		}
	}
}

func recordingStatus(frames, ticks uint64) probes.Status {
	return probes.Status{Source: "recording", State: probes.StateFailed,
		Detail: fmt.Sprintf("%d captured frames and %d host ticks not written: the disk fell behind the capture", frames, ticks)}
}
