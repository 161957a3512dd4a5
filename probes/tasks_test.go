package probes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestRunnerIsolatesSources(t *testing.T) {
	r := NewRunner()
	release := make(chan struct{})
	tasks := []Task{
		{Name: "ok", Timeout: time.Second, Run: func(context.Context) (func(), error) { return nil, nil }},
		{Name: "hangs", Timeout: 50 * time.Millisecond, Run: func(context.Context) (func(), error) { <-release; return nil, nil }},
		{Name: "perm", Timeout: time.Second, Run: func(context.Context) (func(), error) {
			return nil, &PermissionError{What: "CAP_NET_ADMIN", Err: os.ErrPermission}
		}},
		{Name: "absent", Timeout: time.Second, Run: func(context.Context) (func(), error) {
			return nil, fmt.Errorf("no RDMA netlink: %w", ErrNotSupported)
		}},
		{Name: "broken", Timeout: time.Second, Run: func(context.Context) (func(), error) { return nil, errors.New("garbage") }},
		{Name: "gives up", Timeout: 50 * time.Millisecond, Run: func(ctx context.Context) (func(), error) {
			<-ctx.Done()
			return nil, fmt.Errorf("read: %w", ctx.Err())
		}},
	}
	st := r.Run(context.Background(), tasks)
	want := []State{StateOK, StateTimeout, StatePermissionDenied, StateNotSupported, StateFailed, StateTimeout}
	for i, s := range st {
		if s.State != want[i] {
			t.Errorf("%s: %s (%s), want %s", s.Source, s.State, s.Detail, want[i])
		}
	}
	// The hung task is not started again while it still runs.
	st = r.Run(context.Background(), tasks[1:2])
	if st[0].State != StateTimeout {
		t.Errorf("second run of a hung task: %+v", st[0])
	}
	close(release)
	st = waitRunnable(t, r, "hangs")
	if st[0].State != StateOK {
		t.Errorf("after it returned, the task runs again: %+v", st[0])
	}
}

// waitRunnable runs a trivial task called name until the Runner starts it
// again (its earlier run has returned).
func waitRunnable(t *testing.T, r *Runner, name string) []Status {
	t.Helper()
	for {
		st := r.Run(context.Background(), []Task{{Name: name, Timeout: time.Minute, Run: func(context.Context) (func(), error) { return nil, nil }}})
		if st[0].Detail != "still running since an earlier sample: not started again" {
			return st
		}
		time.Sleep(time.Millisecond)
	}
}

// A result is handed over only when its task returned in time: commits
// run on the caller's goroutine after every task is done, in task order;
// a late task's commit is never called, even once it returns. Run under
// -race: the late task writes only its own variable.
func TestRunnerCommitsOnlyOnTime(t *testing.T) {
	r := NewRunner()
	var sample []string // written by commits only, read by the test
	release, returned := make(chan struct{}), make(chan struct{})
	lateCommitted := false
	task := func(name string, wait chan struct{}) Task {
		return Task{Name: name, Timeout: 50 * time.Millisecond, Run: func(context.Context) (func(), error) {
			mine := name + " data" // private until commit
			if wait != nil {
				<-wait
				defer close(returned)
				return func() { lateCommitted = true; sample = append(sample, mine) }, nil
			}
			return func() { sample = append(sample, mine) }, nil
		}}
	}
	st := r.Run(context.Background(), []Task{task("b", nil), task("late", release), task("a", nil)})
	if st[0].State != StateOK || st[1].State != StateTimeout || st[2].State != StateOK {
		t.Fatalf("statuses %+v", st)
	}
	if len(sample) != 2 || sample[0] != "b data" || sample[1] != "a data" {
		t.Errorf("committed %q, want b then a", sample)
	}
	close(release)
	<-returned
	waitRunnable(t, r, "late")
	if lateCommitted || len(sample) != 2 {
		t.Errorf("the late task's result reached the sample: %q", sample)
	}
}

// A cancelled sample says so, and commits nothing of the tasks it cut.
func TestRunnerCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	committed := false
	st := NewRunner().Run(ctx, []Task{{Name: "slow", Timeout: time.Minute, Run: func(ctx context.Context) (func(), error) {
		<-ctx.Done()
		return func() { committed = true }, ctx.Err()
	}}})
	if st[0].State != StateTimeout || st[0].Detail != "the sample was cancelled before it answered" || committed {
		t.Errorf("%+v, committed %v", st[0], committed)
	}
}

// A source is closed only after the reads abandoned at their timeout have
// returned: Wait holds until then, and names a read that never returns.
func TestRunnerWaitsForAbandonedTasks(t *testing.T) {
	r := NewRunner()
	release := make(chan struct{})
	returned := make(chan struct{})
	hung := Task{Name: "ethtool", Timeout: 10 * time.Millisecond, Run: func(context.Context) (func(), error) {
		<-release // a read the kernel does not interrupt
		close(returned)
		return nil, nil
	}}
	st := r.Run(context.Background(), []Task{hung})
	if st[0].State != StateTimeout {
		t.Fatalf("state %v, want timeout", st[0].State)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := r.Wait(ctx)
	if err == nil || !strings.Contains(err.Error(), "ethtool") {
		t.Fatalf("Wait with the read still blocked: %v, want an error naming ethtool", err)
	}

	close(release)
	if err := r.Wait(context.Background()); err != nil {
		t.Fatalf("Wait after the read returned: %v", err)
	}
	select {
	case <-returned:
	default:
		t.Fatal("Wait returned before the abandoned task did")
	}
}
