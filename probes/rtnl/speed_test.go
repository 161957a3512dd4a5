package rtnl

import "testing"

func TestLinkSpeed(t *testing.T) {
	on, off := true, false
	up := Link{AdminUp: true, Carrier: &on}
	for _, tc := range []struct {
		name string
		l    Link
		mbps uint32
		ok   bool
		want uint32 // 0: absent
	}{
		{"up", up, 100000, true, 100000},
		{"up, 10G veth", up, 10000, true, 10000},
		{"no answer", up, 0, false, 0},
		{"unknown", up, 0xffffffff, true, 0},
		{"unknown, legacy 16 bits", up, 0xffff, true, 0},
		{"zero", up, 0, true, 0},
		{"no carrier", Link{AdminUp: true, Carrier: &off}, 10000, true, 0},
		{"carrier unknown", Link{AdminUp: true}, 10000, true, 0},
		{"admin down", Link{Carrier: &on}, 10000, true, 0},
	} {
		got := linkSpeed(&tc.l, tc.mbps, tc.ok)
		switch {
		case tc.want == 0 && got != nil:
			t.Errorf("%s: %d, want absent", tc.name, *got)
		case tc.want != 0 && (got == nil || *got != tc.want):
			t.Errorf("%s: %v, want %d", tc.name, got, tc.want)
		}
	}
}
