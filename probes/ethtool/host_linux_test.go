//go:build linux

package ethtool

import (
	"bytes"
	"errors"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
)

// TestKernelHost reads every interface of the test's own namespace, as
// whatever user runs the tests: the ioctls need no privilege, so nothing
// may come back as permission denied.
func TestKernelHost(t *testing.T) {
	k, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	_, haveCmd := exec.LookPath("ethtool")
	for _, ifc := range ifaces {
		if checkName(ifc.Name) != nil {
			continue
		}
		m, err := k.Stats(ifc.Name)
		switch {
		case errors.Is(err, probes.ErrNotSupported):
			t.Logf("%s: %v", ifc.Name, err)
			continue
		case err != nil:
			t.Errorf("Stats(%s) as uid %d: %v", ifc.Name, os.Geteuid(), err)
			continue
		}
		drv, err := k.DriverName(ifc.Name)
		t.Logf("%s: driver %q, %d counters", ifc.Name, drv, len(m))
		if err != nil {
			t.Errorf("DriverName(%s): %v", ifc.Name, err)
		}
		if haveCmd != nil {
			continue
		}
		out, err := exec.Command("ethtool", "-S", ifc.Name).Output()
		if err != nil {
			t.Errorf("ethtool -S %s: %v", ifc.Name, err)
			continue
		}
		text, err := ParseText(bytes.NewReader(out))
		if err != nil {
			t.Errorf("ethtool -S %s: %v", ifc.Name, err)
			continue
		}
		// Names only: the host's counters move.
		if !slices.Equal(slices.Sorted(maps.Keys(text)), slices.Sorted(maps.Keys(m))) {
			t.Errorf("%s: `ethtool -S` lists %v, the ioctl %v", ifc.Name, slices.Sorted(maps.Keys(text)), slices.Sorted(maps.Keys(m)))
		}
	}
	if _, err := k.Stats("lo"); !errors.Is(err, probes.ErrNotSupported) {
		t.Errorf("Stats(lo) = %v, want ErrNotSupported", err)
	}
	if _, err := k.Stats("nosuch0"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("Stats(nosuch0) = %v, want ErrNoDevice", err)
	}
	k.Close()
	if _, err := k.Stats("lo"); err == nil {
		t.Error("Stats after Close succeeded")
	}
	k.Close() // twice is fine
}
