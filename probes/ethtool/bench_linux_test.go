//go:build linux

package ethtool

import (
	"testing"

	"github.com/rdmatop/rdmatop/internal/netnstest"
)

// BenchmarkKernelStats: one Stats call (three SIOCETHTOOL ioctls) on a veth
// in a test-made namespace. Needs root.
func BenchmarkKernelStats(b *testing.B) {
	ns := netnstest.New(b, "ethtool")
	ns.Veth(b, "vethA", "vethB")
	k := openIn(b, ns)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Stats("vethA"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKernelRead: Stats and DriverName, what a sample does per netdev.
func BenchmarkKernelRead(b *testing.B) {
	ns := netnstest.New(b, "ethtool")
	ns.Veth(b, "vethA", "vethB")
	k := openIn(b, ns)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(k, "vethA"); err != nil {
			b.Fatal(err)
		}
	}
}
