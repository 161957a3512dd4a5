package probes

import (
	"context"
	"errors"
	"fmt"
	"os"
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
