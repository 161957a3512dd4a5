package capture

import "net/netip"

// maxNames bounds the address names a tracker keeps: a fabric has far
// fewer hosts than flows, and a capture with more addresses than this only
// formats some of them again.
const maxNames = 4096

// addrNames formats flow addresses once per address, not once per flow
// and summary: a summary of 100,000 QPs between 64 hosts names 64
// addresses.
type addrNames struct {
	m map[nameKey]string
}

type nameKey struct {
	a  [16]byte
	v4 bool
}

// of returns a's text: dotted quad when v4 (a is IPv4-mapped), else IPv6.
func (n *addrNames) of(a [16]byte, v4 bool) string {
	k := nameKey{a, v4}
	if s, ok := n.m[k]; ok {
		return s
	}
	if n.m == nil || len(n.m) >= maxNames {
		n.m = make(map[nameKey]string)
	}
	s := addrString(a, v4)
	n.m[k] = s
	return s
}

func addrString(a [16]byte, v4 bool) string {
	ip := netip.AddrFrom16(a)
	if v4 {
		ip = ip.Unmap()
	}
	return ip.String()
}
