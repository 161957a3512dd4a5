//go:build linux

package ethtool

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
)

func TestMapErrno(t *testing.T) {
	for _, tc := range []struct {
		err   error
		state probes.State
		is    error
	}{
		{syscall.ENODEV, probes.StateFailed, ErrNoDevice},
		{syscall.EOPNOTSUPP, probes.StateNotSupported, probes.ErrNotSupported},
		{syscall.EPERM, probes.StatePermissionDenied, os.ErrPermission},
		{syscall.EACCES, probes.StatePermissionDenied, os.ErrPermission},
		{fmt.Errorf("wrapped: %w", syscall.ENODEV), probes.StateFailed, os.ErrNotExist},
		{syscall.EIO, probes.StateFailed, syscall.EIO},
	} {
		err := mapErrno("eth9", "driver has no ethtool statistics", tc.err)
		if !errors.Is(err, tc.is) {
			t.Errorf("mapErrno(%v) = %v, want it to match %v", tc.err, err, tc.is)
		}
		if st := probes.StatusOf("ethtool eth9", err); st.State != tc.state {
			t.Errorf("mapErrno(%v): status %+v, want %s", tc.err, st, tc.state)
		}
	}
	var pe *probes.PermissionError
	if err := mapErrno("eth9", "", syscall.EPERM); !errors.As(err, &pe) || pe.What == "" {
		t.Errorf("EPERM → %v, want a PermissionError naming the capability", err)
	}
}
