package rules

import (
	"net/netip"
	"slices"
	"strconv"

	"github.com/rdmatop/rdmatop/probes"
)

// frameContext is what a frame says without doubt about where its
// findings are, for the placeholders of their commands that their own
// objects leave open: the RDMA port (device, port, netdev) when the host
// has one, or when the capture's interface is the netdev of exactly one;
// and the peer (dst) when the capture's traffic so far has had exactly one
// address that is not this host's (peers). Nil when it knows nothing.
func frameContext(f Frame, peers *peerSet) map[string]string {
	ctx := map[string]string{}
	if s := f.Snapshot; s != nil {
		var iface string
		if f.Wire != nil {
			iface = f.Wire.Interface
		}
		one, n := -1, 0
		for i := range s.Ports {
			if len(s.Ports) == 1 || iface != "" && s.Ports[i].Netdev == iface {
				one = i
				n++
			}
		}
		if n == 1 {
			p := &s.Ports[one]
			ctx["device"], ctx["port"] = p.Device, strconv.Itoa(p.Port)
			if p.Netdev != "" {
				ctx["netdev"] = p.Netdev
			}
		}
		if len(s.Config.GIDs) > 0 {
			peers.gids = s.Config.GIDs // reread only now and then
		}
	}
	if f.Wire != nil && f.Wire.Interface != "" && ctx["netdev"] == "" {
		ctx["netdev"] = f.Wire.Interface
	}
	if peer := peers.add(f, ctx["device"]); peer != "" {
		ctx["dst"] = peer
	}
	if len(ctx) == 0 {
		return nil
	}
	return ctx
}

// peerSet is the addresses a run's capture has shown that are not this
// host's (its GIDs' addresses; only the frame's device's when its port is
// known: a lab host holds both ends), up to two: one is the peer, two
// make it unknown.
type peerSet struct {
	gids   []probes.GID // the last GID table a frame held
	remote []string
}

// add takes f's paths in and returns the one peer, or "".
func (ps *peerSet) add(f Frame, device string) string {
	if f.Wire != nil && len(ps.remote) < 2 && len(ps.gids) > 0 {
		local := map[netip.Addr]bool{}
		for _, g := range ps.gids {
			if a, err := netip.ParseAddr(g.GID); err == nil && (device == "" || g.Device == device) {
				local[a.Unmap()] = true
			}
		}
		seen := map[string]bool{}
		note := func(s string) {
			if seen[s] {
				return
			}
			seen[s] = true
			if a, err := netip.ParseAddr(s); err == nil && !local[a.Unmap()] && !slices.Contains(ps.remote, s) {
				ps.remote = append(ps.remote, s)
			}
		}
		// A whole capture's summary has its host pairs; an interval's
		// only its flows.
		for _, p := range f.Wire.Paths {
			note(p.Src)
			note(p.Dst)
		}
		if len(f.Wire.Paths) == 0 {
			for i := range f.Wire.Flows {
				note(f.Wire.Flows[i].Src)
				note(f.Wire.Flows[i].Dst)
			}
		}
	}
	if len(ps.remote) == 1 {
		return ps.remote[0]
	}
	return ""
}

// FillCommands fills in what placeholders fs's commands still hold with
// what the run knows by frame f (a whole capture's summary at the end of
// a run: the peer, once any of its traffic was seen), for findings that
// resolved before it knew. fs is changed in place.
func (e *Engine) FillCommands(fs []Finding, f Frame) {
	ctx := frameContext(f, &e.peers)
	if ctx == nil {
		return
	}
	for i := range fs {
		fs[i].Confirm = renderCommands(fs[i].Confirm, fs[i].Objects, nil, ctx)
		fs[i].Fix = renderCommands(fs[i].Fix, fs[i].Objects, nil, ctx)
	}
}
