package monitor

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/rdmatop/rdmatop/internal/placeholdertest"
)

// In every recording of testdata, a command keeps a placeholder only when
// nothing the recording holds gives its value: DEV, /N, IFACE and NETDEV
// where the capture's interface is the netdev of exactly one RDMA port
// (or the finding names its own port), PEER_IP where the capture's
// traffic has exactly one address that is not that port's (its GID
// table), PRIO where the finding names its priority.
func TestNoPlaceholderWhereTheRecordingKnows(t *testing.T) {
	checked := 0
	for _, rp := range everyRecording(t) {
		dev, netdev, peer := knownPlace(rp)
		place := placeholdertest.Place{Device: dev, Netdev: netdev, Peer: peer}
		for _, f := range rp.res.Findings {
			for _, line := range append(append([]string{}, f.Confirm...), f.Fix...) {
				for _, m := range placeholdertest.Pattern.FindAllString(line, -1) {
					checked++
					if placeholdertest.Known(m, f.Objects, place) {
						t.Errorf("%s: %s %v keeps %s where the recording knows it: %s", rp.name, f.Rule, f.Objects, m, line)
					}
				}
			}
		}
	}
	t.Logf("%d placeholders left, none of them known", checked)
}

// knownPlace is the RDMA port a recording's capture is on (device and
// netdev, when its interface is the netdev of exactly one port) and its
// one peer (the one address of the capture's host pairs not in that
// port's GIDs).
func knownPlace(rp replayed) (dev, netdev, peer string) {
	if rp.snap == nil || rp.res.Wire == nil || rp.res.Wire.Interface == "" {
		return "", "", ""
	}
	n := 0
	for _, p := range rp.snap.Ports {
		if p.Netdev == rp.res.Wire.Interface {
			dev, netdev = p.Device, p.Netdev
			n++
		}
	}
	if n != 1 {
		return "", "", ""
	}
	local := map[netip.Addr]bool{}
	for _, g := range rp.snap.Config.GIDs {
		if a, err := netip.ParseAddr(g.GID); err == nil && g.Device == dev {
			local[a.Unmap()] = true
		}
	}
	if len(local) == 0 {
		return dev, netdev, ""
	}
	var remote []string
	for _, p := range rp.res.Wire.Paths {
		for _, s := range []string{p.Src, p.Dst} {
			if a, err := netip.ParseAddr(s); err == nil && !local[a.Unmap()] && !slices.Contains(remote, s) {
				remote = append(remote, s)
			}
		}
	}
	if len(remote) == 1 {
		peer = remote[0]
	}
	return dev, netdev, peer
}
