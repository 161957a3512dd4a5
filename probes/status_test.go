package probes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Each class of error has its state; a source that gave up waiting timed
// out, whichever deadline it hit.
func TestStatusOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want State
	}{
		{nil, StateOK},
		{fmt.Errorf("no RDMA netlink: %w", ErrNotSupported), StateNotSupported},
		{&PermissionError{What: "CAP_NET_ADMIN", Err: os.ErrPermission}, StatePermissionDenied},
		{fmt.Errorf("read /sys/x: %w", os.ErrPermission), StatePermissionDenied},
		{fmt.Errorf("netlink: no complete answer within 5s: %w", os.ErrDeadlineExceeded), StateTimeout},
		{fmt.Errorf("netlink: abandoned: %w", context.DeadlineExceeded), StateTimeout},
		{errors.New("garbage"), StateFailed},
	} {
		if st := StatusOf("x", c.err); st.State != c.want || c.err != nil && st.Detail != c.err.Error() {
			t.Errorf("%v: %+v, want %s", c.err, st, c.want)
		}
	}
}

// A partial answer is its own state and keeps what hung; HangLine and
// LikelyCause say it in words.
func TestPartialAndHangWords(t *testing.T) {
	st := StatusOf("sysfs", &PartialError{What: "1 file hangs", Stuck: []string{"sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent"}})
	if st.State != StatePartial || !st.Hung() || len(st.Stuck) != 1 || st.Detail != "1 file hangs" {
		t.Fatalf("%+v", st)
	}
	if got, want := HangLine(st), "sysfs: 1 file does not answer: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent"; got != want {
		t.Errorf("HangLine %q, want %q", got, want)
	}
	if c := LikelyCause([]Status{st}); !strings.Contains(c, "counter reads") {
		t.Errorf("a counter file: %q", c)
	}
	rtnl := []Status{{Source: "ethtool", State: StateTimeout}, {Source: "rtnetlink", State: StateTimeout}, {Source: "kmsg", State: StateOK}}
	if c := LikelyCause(rtnl); !strings.Contains(c, "RTNL") || !strings.Contains(c, "cmd exec timeout") {
		t.Errorf("ethtool and rtnetlink: %q", c)
	}
	if c := LikelyCause(rtnl[2:]); c != "" {
		t.Errorf("nothing hangs: %q", c)
	}
}
