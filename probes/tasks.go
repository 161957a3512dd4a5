package probes

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Task is one source's share of a sample. Run must honour ctx where it can;
// a read that the kernel will not interrupt (a hung sysfs file) is
// abandoned at the timeout and not started again until it returns.
type Task struct {
	Name    string
	Timeout time.Duration
	Run     func(ctx context.Context) error
}

// Runner runs tasks concurrently, each bounded by its own timeout, so a
// slow, missing or failing source never holds up the others.
type Runner struct {
	mu   sync.Mutex
	busy map[string]bool // tasks still running after their timeout
}

// NewRunner returns a Runner.
func NewRunner() *Runner { return &Runner{busy: map[string]bool{}} }

// Run runs tasks and returns one status per task, in order.
func (r *Runner) Run(ctx context.Context, tasks []Task) []Status {
	out := make([]Status, len(tasks))
	var wg sync.WaitGroup
	for i, t := range tasks {
		r.mu.Lock()
		hung := r.busy[t.Name]
		if !hung {
			r.busy[t.Name] = true
		}
		r.mu.Unlock()
		if hung {
			out[i] = Status{Source: t.Name, State: StateTimeout, Detail: "still running since an earlier sample: not started again"}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = r.runOne(ctx, t)
		}()
	}
	wg.Wait()
	return out
}

func (r *Runner) runOne(ctx context.Context, t Task) Status {
	tctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		err := t.Run(tctx)
		r.mu.Lock()
		delete(r.busy, t.Name)
		r.mu.Unlock()
		done <- err
	}()
	select {
	case err := <-done:
		return StatusOf(t.Name, err)
	case <-tctx.Done():
		return Status{Source: t.Name, State: StateTimeout, Detail: fmt.Sprintf("no answer within %v", t.Timeout)}
	}
}
