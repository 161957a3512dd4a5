package kmsg

// Batch is what one Poll read.
type Batch struct {
	// Raw holds the records as read from /dev/kmsg, one read() each,
	// without the trailing newline: ParseRecord parses them, and a
	// recorder stores them as they are.
	Raw []string `json:"raw"`
	// Lost counts records the kernel overwrote before they could be read,
	// from gaps in the sequence numbers.
	Lost uint64 `json:"lost,omitempty"`
	// Overrun is set when the kernel reported (EPIPE) that records were
	// overwritten; when it happens before any record was read the number
	// lost is unknown and Lost does not include it.
	Overrun bool `json:"overrun,omitempty"`
}

// Options for Open.
type Options struct {
	// ReadExisting makes the first Poll return the records already in the
	// kernel's buffer; by default only records logged after Open are read.
	ReadExisting bool
	// MaxRecords bounds one Poll (default 10000); the rest wait for the
	// next Poll.
	MaxRecords int
}

// Source is what polls the kernel log: the Linux Reader or a Fake.
type Source interface {
	Poll() (Batch, error)
	Close() error
}

// seqTracker counts records lost between reads from their sequence
// numbers.
type seqTracker struct {
	last uint64
	seen bool
}

// next accounts for a record with sequence number seq and returns how
// many records were skipped before it.
func (t *seqTracker) next(seq uint64) uint64 {
	var lost uint64
	if t.seen && seq > t.last+1 {
		lost = seq - t.last - 1
	}
	if !t.seen || seq > t.last {
		t.last, t.seen = seq, true
	}
	return lost
}

// Fake is a Source that returns prepared batches in order, then empty
// batches.
type Fake struct {
	Batches []Batch
	Err     error // returned by every Poll when set
	Closed  bool
}

// Poll implements Source.
func (f *Fake) Poll() (Batch, error) {
	if f.Err != nil {
		return Batch{}, f.Err
	}
	if len(f.Batches) == 0 {
		return Batch{}, nil
	}
	b := f.Batches[0]
	f.Batches = f.Batches[1:]
	return b, nil
}

// Close implements Source.
func (f *Fake) Close() error { f.Closed = true; return nil }
