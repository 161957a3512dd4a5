//go:build linux

package rtnl

import "testing"

// BenchmarkKernelLink: one Link read (RTM_GETLINK and the ETHTOOL_GSET
// speed) of a veth that is up, in a test-made namespace. Needs root.
func BenchmarkKernelLink(b *testing.B) {
	ns := newNetns(b)
	ns.veth(b, "vethA", "vethB")
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
	ns := newNetns(b)
	ns.veth(b, "vethA", "vethB")
	k := openIn(b, ns)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Links(); err != nil {
			b.Fatal(err)
		}
	}
}
