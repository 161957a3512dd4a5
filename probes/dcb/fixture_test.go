package dcb

import (
	"context"
	"errors"
	"testing"
)

// mlx5Like is a synthetic but realistic RoCE configuration of a ConnectX
// port under the upstream mlx5 driver, as `dcb`/`mlnx_qos` would show it
// after a typical lossless-RoCE setup: PFC on priority 3, DSCP trust with
// DSCP 26 → 3 (RoCE data) and 48 → 6 (CNPs), 8 TCs with ETS 50/50 on TCs
// 0 and 3, DCBX in host/IEEE mode, a buffer split, per-priority PFC frame
// counters. Values are invented; layouts are the kernel's.
func mlx5Like() Config {
	pfc := &PFC{Cap: 8, Mask: 1 << 3, Delay: 7, Requests: [8]uint64{0, 0, 0, 41230, 0, 0, 0, 0}, Indications: [8]uint64{0, 0, 0, 1873, 0, 0, 0, 0}}
	pfc.Enabled[3] = true
	apps := []App{
		{Selector: SelDSCP, SelectorName: "dscp", Priority: 6, Protocol: 48},
		{Selector: SelDSCP, SelectorName: "dscp", Priority: 3, Protocol: 26},
	}
	max := [8]uint64{0, 0, 0, 0, 0, 0, 0, 25_000_000_000}
	return Config{
		Ifname: "enp59s0f0np0",
		DCBX:   &DCBX{Mode: DCBXHost | DCBXVerIEEE, Flags: []string{"host", "ieee"}},
		ETS: &ETS{
			ETSCap: 8,
			TCTxBW: [8]uint8{50, 0, 0, 50, 0, 0, 0, 0},
			TCTSA:  [8]uint8{2, 2, 2, 2, 2, 2, 0, 2},
			TSA:    []string{"ets", "ets", "ets", "ets", "ets", "ets", "strict", "ets"},
			PrioTC: [8]uint8{0, 1, 2, 3, 4, 5, 6, 7},
		},
		PFC:     pfc,
		MaxRate: &max,
		Buffer: &Buffer{
			Prio2Buffer: [8]uint8{0, 0, 0, 1, 0, 0, 0, 0},
			BufferSize:  [8]uint32{130944, 130944, 0, 0, 0, 0, 0, 0},
			TotalSize:   524160,
		},
		Apps:    apps,
		Trust:   Trust{Mode: "dscp", Source: TrustFromDSCPApps},
		DSCPMap: []DSCPPrio{{DSCP: 26, Priority: 3}, {DSCP: 48, Priority: 6}},
	}
}

// withPeers is a configuration from a driver with an apptrust table and
// LLDP-learned peer data (as a Microchip sparx5/lan966x switch port would
// report; also synthetic).
func withPeers() Config {
	peerPFC := &PFC{Cap: 8, Mask: 0x18}
	peerPFC.Enabled[3], peerPFC.Enabled[4] = true, true
	return Config{
		Ifname:   "swp1",
		DCBX:     &DCBX{Mode: DCBXLLDManaged | DCBXVerIEEE, Flags: []string{"lld_managed", "ieee"}},
		Apps:     []App{{Selector: SelPCP, SelectorName: "pcp", Priority: 5, Protocol: 13}, {Selector: SelEthertype, SelectorName: "ethtype", Priority: 4, Protocol: 0x8915}},
		AppTrust: []uint8{SelPCP, SelDSCP},
		Trust:    Trust{Mode: "pcp", Order: []string{"pcp", "dscp"}, Source: TrustFromTable},
		DSCPMap:  []DSCPPrio{},
		PeerETS: &ETS{Willing: true, ETSCap: 8, TCTxBW: [8]uint8{100},
			TSA: []string{"strict", "strict", "strict", "strict", "strict", "strict", "strict", "strict"}},
		PeerPFC:     peerPFC,
		PeerAppInfo: &PeerAppInfo{Willing: 1},
		PeerApps:    []App{{Selector: SelDSCP, SelectorName: "dscp", Priority: 4, Protocol: 34}},
	}
}

// countingQuerier answers like Fake and cancels its context after the
// first query; it has no QueryContext.
type countingQuerier struct {
	Fake
	cancel  func()
	queries int
}

func (q *countingQuerier) Query(ifname string, cmd Command) ([]byte, error) {
	q.queries++
	q.cancel()
	return q.Fake.Query(ifname, cmd)
}

// A Querier that cannot abandon a query is not asked again once the
// context has ended: one query, then the context's error.
func TestReadContextStopsBetweenQueries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := &countingQuerier{Fake: Fake{"eth0": {Ifname: "eth0", Replies: []Reply{{Cmd: CmdIEEEGet, Payload: []byte{0, byte(CmdIEEEGet), 0, 0}}}}}, cancel: cancel}
	raw, err := ReadContext(ctx, q, "eth0")
	if !errors.Is(err, context.Canceled) || q.queries != 1 || len(raw.Replies) != 1 {
		t.Errorf("%d queries, raw %+v, err %v", q.queries, raw, err)
	}
}
