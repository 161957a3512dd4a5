package monitor

import (
	"context"
	"sync"
)

// Latest hands the newest Frame of a run to a consumer that may be slower
// than the run (the live screen): Put replaces what was
// not taken yet, so nothing queues up. Safe for concurrent use.
type Latest struct {
	mu    sync.Mutex
	f     *Frame
	taken bool
	err   error
	done  bool
	ready chan struct{} // signalled (capacity 1) when a Frame or the end arrives
}

// NewLatest returns an empty Latest.
func NewLatest() *Latest { return &Latest{ready: make(chan struct{}, 1)} }

// Put makes f the newest Frame.
func (l *Latest) Put(f Frame) {
	l.mu.Lock()
	l.f, l.taken = &f, false
	l.mu.Unlock()
	l.signal()
}

// Close says no Frame will follow; err is why the run ended (nil: it
// finished or was stopped).
func (l *Latest) Close(err error) {
	l.mu.Lock()
	l.done, l.err = true, err
	l.mu.Unlock()
	l.signal()
}

func (l *Latest) signal() {
	select {
	case l.ready <- struct{}{}:
	default:
	}
}

// Next waits for a Frame newer than the last one taken and returns it.
// After Close it returns ok false and the run's error once every Frame
// was taken.
func (l *Latest) Next(ctx context.Context) (f Frame, ok bool, err error) {
	for {
		l.mu.Lock()
		if l.f != nil && !l.taken {
			l.taken = true
			f := *l.f
			l.mu.Unlock()
			return f, true, nil
		}
		if l.done {
			err := l.err
			l.mu.Unlock()
			return Frame{}, false, err
		}
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return Frame{}, false, ctx.Err()
		case <-l.ready:
		}
	}
}

// Publish runs r and puts its Frames into l until the run ends; then it
// closes l with the run's error. Each Frame is shown to observe first, if
// given (the flight recorder), on Publish's goroutine.
func Publish(ctx context.Context, r *Run, l *Latest, observe func(*Frame)) error {
	var err error
	for f, e := range r.Frames(ctx) {
		if e != nil {
			err = e
			break
		}
		if observe != nil {
			observe(&f)
		}
		l.Put(f)
	}
	l.Close(err)
	return err
}
