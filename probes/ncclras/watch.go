package ncclras

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// Source gives the latest RAS answer.
type Source interface {
	Poll() (*probes.NCCLRAS, error)
}

// Fake answers with one status (or error) forever.
type Fake struct {
	Status *probes.NCCLRAS
	Err    error
}

// Poll returns the fake's answer.
func (f *Fake) Poll() (*probes.NCCLRAS, error) { return f.Status, f.Err }

// ErrNotYet is what Poll says before the first answer: a source that has
// not answered in time (it matches context.DeadlineExceeded).
var ErrNotYet = fmt.Errorf("NCCL RAS: the first query is still running (one takes up to %v): %w", 2*Collect+Slack, context.DeadlineExceeded)

// Watcher asks RAS every period on its own goroutine, so that a query
// (which takes seconds on a large or troubled job) never holds up a
// sample: Poll returns the latest answer at once.
type Watcher struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	status *probes.NCCLRAS
	err    error
}

// Watch starts asking addr every period until Close or ctx ends.
func Watch(ctx context.Context, addr string, period time.Duration) *Watcher {
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{cancel: cancel, done: make(chan struct{}), err: ErrNotYet}
	go w.run(ctx, addr, period)
	return w
}

func (w *Watcher) run(ctx context.Context, addr string, period time.Duration) {
	defer close(w.done)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		st, err := Query(ctx, addr)
		if ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		w.status, w.err = st, err
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Poll returns the latest answer: the status, or why there is none.
func (w *Watcher) Poll() (*probes.NCCLRAS, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status, w.err
}

// Close stops the watcher and waits for its goroutine.
func (w *Watcher) Close() {
	w.cancel()
	<-w.done
}
