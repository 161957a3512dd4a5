package sysfs

import (
	"errors"
	"os"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
)

// This machine's real /sys: lo through the real kernel (speed fails with
// EINVAL, the class entry is a symlink into devices/virtual), and no
// RDMA at all, which must read as "not supported", not as an error.
func TestHostSysfs(t *testing.T) {
	if _, err := os.Stat("/sys/class/net/lo"); err != nil {
		t.Skip("no /sys/class/net/lo here")
	}
	host := os.DirFS("/")
	lo, err := ReadNetdev(host, "lo")
	if err != nil {
		t.Fatal(err)
	}
	if lo.Type == nil || *lo.Type != 772 || lo.MTU == nil || lo.SpeedMbps != nil || len(lo.Errors) != 0 {
		t.Errorf("lo %+v", lo)
	}
	if lo.DevicePath != "" || lo.PCI != "" {
		t.Errorf("lo has no parent device: %q", lo.DevicePath)
	}
	if _, err := os.Stat("/sys/class/infiniband"); err == nil {
		t.Skip("this host has RDMA devices")
	}
	_, err = Discover(host)
	if !errors.Is(err, probes.ErrNotSupported) {
		t.Errorf("no RDMA: %v", err)
	}
}
