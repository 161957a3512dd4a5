package probes

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Task is one source's share of a sample. Run gathers the source's data
// into values of its own and returns commit, which hands them over to the
// sample; it must not touch anything shared before commit is called. Run
// must honour ctx where it can; a read that the kernel will not interrupt
// (a hung sysfs file) is abandoned at the timeout, its result is dropped
// when it finally returns, and it is not started again until then.
type Task struct {
	Name    string
	Timeout time.Duration
	Run     func(ctx context.Context) (commit func(), err error)
}

// Runner runs tasks concurrently, each bounded by its own timeout, so a
// slow, missing or failing source never holds up the others.
type Runner struct {
	mu   sync.Mutex
	busy map[string]bool // tasks still running after their timeout
	// running counts every task goroutine, abandoned ones included, so
	// that shutdown can wait for them before it closes their sources.
	running sync.WaitGroup
	// Now measures how long each task took (Status.DurationS); time.Now
	// when nil. A simulation sets a clock of its own.
	Now func() time.Time
}

// NewRunner returns a Runner.
func NewRunner() *Runner { return &Runner{busy: map[string]bool{}} }

// Run runs tasks and returns one status per task, in order. Before it
// returns, it calls the commit of every task that returned within its
// timeout, in task order, on the caller's goroutine: a sample is
// assembled from on-time results only, and never written to by a task
// that is still running.
func (r *Runner) Run(ctx context.Context, tasks []Task) []Status {
	out := make([]Status, len(tasks))
	commits := make([]func(), len(tasks))
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
			out[i], commits[i] = r.runOne(ctx, t)
		}()
	}
	wg.Wait()
	for _, commit := range commits {
		if commit != nil {
			commit()
		}
	}
	return out
}

type result struct {
	commit func()
	err    error
}

func (r *Runner) runOne(ctx context.Context, t Task) (Status, func()) {
	// How long a source takes is a fact about the source, reported with
	// its status (the exporter's per-source duration); it is not a
	// timestamp of any data.
	now := r.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	st, commit := r.runTimed(ctx, t)
	st.DurationS = now().Sub(start).Seconds()
	return st, commit
}

func (r *Runner) runTimed(ctx context.Context, t Task) (Status, func()) {
	tctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	done := make(chan result, 1) // a late task sends into it and is dropped
	r.running.Add(1)
	go func() {
		defer r.running.Done()
		commit, err := t.Run(tctx)
		r.mu.Lock()
		delete(r.busy, t.Name)
		r.mu.Unlock()
		done <- result{commit, err}
	}()
	select {
	case res := <-done:
		// A task that gave up because its time ran out is late too.
		if tctx.Err() == nil || !errors.Is(res.err, tctx.Err()) {
			return StatusOf(t.Name, res.err), res.commit
		}
	case <-tctx.Done():
	}
	if ctx.Err() != nil {
		return Status{Source: t.Name, State: StateTimeout, Detail: "the sample was cancelled before it answered"}, nil
	}
	return Status{Source: t.Name, State: StateTimeout, Detail: fmt.Sprintf("no answer within %v", t.Timeout)}, nil
}

// Wait waits until every task the runner started has returned, abandoned
// ones included: a source must not be closed under a task still reading
// it. If ctx ends first, Wait returns an error naming the tasks still
// running (a read the kernel never answers), and the caller must leave
// their sources open.
func (r *Runner) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		r.running.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	r.mu.Lock()
	names := make([]string, 0, len(r.busy))
	for n := range r.busy {
		names = append(names, n)
	}
	r.mu.Unlock()
	sort.Strings(names)
	return fmt.Errorf("still running at shutdown: %s", strings.Join(names, ", "))
}
