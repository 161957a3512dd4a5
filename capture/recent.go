package capture

import "github.com/rdmatop/rdmatop/capture/roce"

// PacketLine is one decoded packet, as the flows view lists them: a
// focused tcpdump of one flow.
type PacketLine struct {
	Packet   uint64      `json:"packet"`
	TS       int64       `json:"ts_ns"`
	FlowID   int         `json:"flow_id"`
	Opcode   roce.Opcode `json:"opcode"`
	PSN      uint32      `json:"psn"`
	AckReq   bool        `json:"ack_req"`
	Syndrome int16       `json:"syndrome"` // AETH syndrome, -1 without an AETH
	Length   uint16      `json:"length"`   // bytes on the wire
	ECN      uint8       `json:"ecn"`
	ICRC     ICRCStatus  `json:"icrc"`
}

// recentLen bounds the ring of recent packets: enough for a screenful of
// every busy flow, fixed memory whatever the capture.
const recentLen = 4096

// recentRing keeps the last recentLen packets of all flows.
type recentRing struct {
	lines [recentLen]PacketLine
	next  int
	full  bool
}

func (r *recentRing) add(l PacketLine) {
	r.lines[r.next] = l
	r.next++
	if r.next == recentLen {
		r.next, r.full = 0, true
	}
}

// Recent returns up to max of the most recent packets of flow id, oldest
// first (id 0: every flow).
func (t *Tracker) Recent(id, max int) []PacketLine {
	r := &t.recent
	n := r.next
	if r.full {
		n = recentLen
	}
	var out []PacketLine
	for i := 0; i < n && len(out) < max; i++ {
		j := (r.next - 1 - i + recentLen) % recentLen
		if l := r.lines[j]; id == 0 || l.FlowID == id {
			out = append(out, l)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
