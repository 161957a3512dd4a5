package probes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestRunnerIsolatesSources(t *testing.T) {
	r := NewRunner()
	release := make(chan struct{})
	tasks := []Task{
		{Name: "ok", Timeout: time.Second, Run: func(context.Context) error { return nil }},
		{Name: "hangs", Timeout: 50 * time.Millisecond, Run: func(context.Context) error { <-release; return nil }},
		{Name: "perm", Timeout: time.Second, Run: func(context.Context) error {
			return &PermissionError{What: "CAP_NET_ADMIN", Err: os.ErrPermission}
		}},
		{Name: "absent", Timeout: time.Second, Run: func(context.Context) error { return fmt.Errorf("no RDMA netlink: %w", ErrNotSupported) }},
		{Name: "broken", Timeout: time.Second, Run: func(context.Context) error { return errors.New("garbage") }},
	}
	start := time.Now()
	st := r.Run(context.Background(), tasks)
	if time.Since(start) > 900*time.Millisecond {
		t.Errorf("a hung source held the sample for %v", time.Since(start))
	}
	want := []State{StateOK, StateTimeout, StatePermissionDenied, StateNotSupported, StateFailed}
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
	deadline := time.Now().Add(time.Second)
	for {
		st = r.Run(context.Background(), []Task{{Name: "hangs", Timeout: time.Second, Run: func(context.Context) error { return nil }}})
		if st[0].State == StateOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st[0].State != StateOK {
		t.Errorf("after it returned, the task runs again: %+v", st[0])
	}
}
