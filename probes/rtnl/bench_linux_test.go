//go:build linux

package rtnl

import (
	"testing"

	"github.com/rdmatop/rdmatop/internal/netnstest"
)

// BenchmarkKernelLink: one Link read (RTM_GETLINK and the ETHTOOL_GSET
// speed) of a veth that is up, in a test-made namespace. Needs root.
func BenchmarkKernelLink(b *testing.B) {
	ns := netnstest.New(b, "rtnl")
	ns.Veth(b, "vethA", "vethB")
	k := openIn(b, ns)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Link("vethA"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKernelLinks: a dump of a namespace with three links.
func BenchmarkKernelLinks(b *testing.B) {
	ns := netnstest.New(b, "rtnl")
	ns.Veth(b, "vethA", "vethB")
	k := openIn(b, ns)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Links(); err != nil {
			b.Fatal(err)
		}
	}
}
