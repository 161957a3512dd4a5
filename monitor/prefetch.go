package monitor

import (
	"context"
	"errors"
	"time"

	"github.com/rdmatop/rdmatop/capture"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// A replay reads and analyses on one goroutine unless reading moves to
// another: reading a capture (the file's bytes copied out of the kernel,
// the records parsed, a gzip stream inflated) was a sixth of the time of
// a replay of 100,000 QPs and a third of one of a 176 MB capture of few
// flows, while the second core idled. prefetch reads packets on its own
// goroutine into batches of copies, a few batches ahead, and hands them
// over whole: one channel operation per batch, not per packet. Given a
// capture.Predecoder it also decodes the batches it is ahead with, so
// that the analysis goroutine only tracks them.

// packetSource is what prefetch reads: pcapfile.Source.
type packetSource interface {
	ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error)
}

const (
	batchBytes   = 1 << 20 // a batch's copies, back to back
	batchRecords = 4096
	// batches in rotation: one being read, one being analysed, two ready.
	batches = 4
)

// batch is packets read ahead, their bytes in buf; err, after them, is
// what reading the next one returned (io.EOF at the end).
type batch struct {
	buf     []byte
	recs    []packetRec
	dec     []capture.Predecoded // recs[i] decoded ahead, with a Predecoder
	decoded bool                 // dec holds every record's decoding
	err     error
}

// packetRec is a packet of a batch: what of a Record a packet has, in one
// cache line where a Record takes three. The reader writes each line and
// the analysis, on the other core, reads it: the lines a packet takes are
// lines that move between the cores (a Record per packet was 4 % of a
// replay's CPU in the reader's stores alone). A file source gives no
// CaptureInfo.AncillaryData, and none is kept.
type packetRec struct {
	ts      time.Time
	off, n  uint32 // its bytes: buf[off : off+n]
	length  uint32 // CaptureInfo.Length: the packet's length on the wire
	ifIndex int32  // CaptureInfo.InterfaceIndex
	link    layers.LinkType
}

type prefetch struct {
	full chan *batch // read, in order
	free chan *batch // analysed, for the reader to fill again
	stop chan struct{}
	done chan struct{} // closed when the reader has returned
	cur  *batch
	next int // cur.recs[next] is the next record
}

// errTapeClosed is Next's error after Close.
var errTapeClosed = errors.New("capture tape closed")

// startPrefetch starts reading src; with pd, decoding too.
func startPrefetch(src packetSource, pd *capture.Predecoder) *prefetch {
	p := &prefetch{full: make(chan *batch, batches), free: make(chan *batch, batches),
		stop: make(chan struct{}), done: make(chan struct{})}
	for range batches {
		b := &batch{buf: make([]byte, 0, batchBytes), recs: make([]packetRec, 0, batchRecords)}
		if pd != nil {
			b.dec = make([]capture.Predecoded, batchRecords)
		}
		p.free <- b
	}
	go p.read(src, pd)
	return p
}

// read fills batches until the source fails or ends, or stop closes.
func (p *prefetch) read(src packetSource, pd *capture.Predecoder) {
	defer close(p.done)
	var held Record // read but not yet copied: it did not fit its batch
	for {
		var b *batch
		select {
		case b = <-p.free:
		case <-p.stop:
			return
		}
		b.buf, b.recs, b.err, b.decoded = b.buf[:0], b.recs[:0], nil, false
		if held.Data != nil {
			b.add(held) // the source has not read since: Data still valid
			held = Record{}
		}
		for len(b.recs) < cap(b.recs) {
			data, ci, link, err := src.ReadPacket()
			if err != nil {
				b.err = err
				break
			}
			r := Record{Data: data, CI: ci, Link: link}
			if len(b.buf)+len(data) > cap(b.buf) && len(b.recs) > 0 {
				held = r
				break
			}
			b.add(r)
		}
		// Decode ahead only while the analysis has a batch to work on
		// (one waits in full): where tracking is cheap (few flows) the
		// reader is the slower of the two, and decoding here as well
		// made the whole replay wait for it (lossy1 x40: 0.15 -> 0.20 s);
		// where tracking is dear (many QPs) the reader is ahead, and its
		// core would idle.
		if pd != nil && len(p.full) > 0 {
			for i := range b.recs {
				b.decode(pd, i)
			}
			b.decoded = true
		}
		select {
		case p.full <- b:
		case <-p.stop:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// add copies r's bytes into b (a record larger than a batch grows it).
func (b *batch) add(r Record) {
	off := len(b.buf)
	b.buf = append(b.buf, r.Data...)
	b.recs = append(b.recs, packetRec{ts: r.CI.Timestamp, off: uint32(off), n: uint32(len(r.Data)),
		length: uint32(r.CI.Length), ifIndex: int32(r.CI.InterfaceIndex), link: r.Link})
}

// record returns packet i as a Record.
func (b *batch) record(i int) Record {
	pr := &b.recs[i]
	end := pr.off + pr.n
	r := Record{Data: b.buf[pr.off:end:end], Link: pr.link, CI: gopacket.CaptureInfo{Timestamp: pr.ts,
		CaptureLength: int(pr.n), Length: int(pr.length), InterfaceIndex: int(pr.ifIndex)}}
	if b.decoded {
		r.Decoded = &b.dec[i]
	}
	return r
}

// decode decodes packet i into dec[i].
func (b *batch) decode(pd *capture.Predecoder, i int) {
	r := b.record(i)
	pd.Decode(r.Data, r.CI, r.Link, &b.dec[i])
}

// nextRecord returns the next record; its Data is valid until the next
// call. It waits for the reader until ctx ends (a pipe that gives nothing
// more must not hold a cancelled replay).
func (p *prefetch) nextRecord(ctx context.Context) (Record, error) {
	for p.cur == nil || p.next == len(p.cur.recs) {
		if p.cur != nil {
			if p.cur.err != nil {
				return Record{}, p.cur.err
			}
			p.free <- p.cur // never blocks: there are batches places
			p.cur = nil
		}
		select {
		case b := <-p.full:
			p.cur, p.next = b, 0
		case <-ctx.Done():
			return Record{}, ctx.Err()
		}
	}
	r := p.cur.record(p.next)
	p.next++
	return r, nil
}

// close stops the reader and waits for it. closeSrc closes the source
// first: a reader blocked in a read of a pipe returns only when its file
// is closed (os.File's Close wakes a pending read), and it touches nothing
// of the source after that read fails.
func (p *prefetch) close(closeSrc func() error) error {
	close(p.stop)
	err := closeSrc()
	<-p.done
	return err
}
