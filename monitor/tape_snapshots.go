package monitor

import (
	"context"
	"io"

	"github.com/rdmatop/rdmatop/probes"
)

// SnapshotTape plays host snapshots built elsewhere (package saved builds
// them from a customer's saved outputs): a Frame per snapshot, at its
// time (zero when the inputs did not say when they were taken).
type SnapshotTape struct {
	snaps []*probes.Snapshot
	i     int
}

// NewSnapshotTape plays snaps in order.
func NewSnapshotTape(snaps []*probes.Snapshot) *SnapshotTape { return &SnapshotTape{snaps: snaps} }

// HostTicks: a Frame at each snapshot.
func (t *SnapshotTape) HostTicks() bool { return true }

// Len is the number of snapshots.
func (t *SnapshotTape) Len() int { return len(t.snaps) }

// Next returns the next snapshot.
func (t *SnapshotTape) Next(ctx context.Context) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	if t.i >= len(t.snaps) {
		return Record{}, io.EOF
	}
	s := t.snaps[t.i]
	t.i++
	return Record{Snapshot: s, Time: s.Time}, nil
}

// Close implements Tape.
func (t *SnapshotTape) Close() error { return nil }
