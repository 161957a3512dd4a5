package ui

import (
	"strconv"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// The packets pane: enter on a flow lists that flow's recent packets, one
// line each, like a tcpdump focused on the flow (Frame.Packets, filtered).

// flowPackets returns the frame's recent packets of flow id, oldest first.
func (m *Model) flowPackets(id int) []capture.PacketLine {
	if m.frame == nil {
		return nil
	}
	var out []capture.PacketLine
	for _, p := range m.frame.Packets {
		if p.FlowID == id {
			out = append(out, p)
		}
	}
	return out
}

// openPackets opens the pane on the selected flow, scrolled to the newest.
func (m *Model) openPackets(r *row) {
	if len(r.Nums) == 0 {
		return
	}
	m.pktFlow = int(r.Nums[0])
	m.pktTitle = "Flow " + r.Cells[0] + "  " + r.Cells[1] + " qp " + r.Cells[2]
	m.pktOff = max(0, len(m.flowPackets(m.pktFlow))-m.packetRows())
}

// packetRows is how many packet lines the pane shows at once.
func (m Model) packetRows() int { return max(1, m.bodyHeight()-2) }

func syndromeText(s int16) string {
	if s < 0 {
		return "-"
	}
	a := roce.AETH{Syndrome: uint8(s)}
	return a.SyndromeString()
}

func ecnText(e uint8) string {
	switch e {
	case 1:
		return "ECT1"
	case 2:
		return "ECT0"
	case 3:
		return "CE"
	}
	return "-"
}

// packetWidths are the opcode and AETH column widths at screen width w.
func packetWidths(w int) (op, aeth int) {
	if w >= 114 {
		return 30, 28
	}
	return 22, 22
}

func packetHeader(w int) string {
	op, ae := packetWidths(w)
	return "  " + fit("TIME", 15) + " " + fit("OPCODE", op) + " " + fitRight("PSN", 8) + " " + fit("AR", 2) + " " +
		fit("AETH", ae) + " " + fitRight("LEN", 5) + " " + fit("ECN", 4) + " ICRC"
}

func packetLine(p *capture.PacketLine, w int) string {
	op, ae := packetWidths(w)
	ar := ""
	if p.AckReq {
		ar = "A"
	}
	return "  " + time.Unix(0, p.TS).UTC().Format("15:04:05.000000") + " " + fit(p.Opcode.String(), op) + " " +
		fitRight(strconv.FormatUint(uint64(p.PSN), 10), 8) + " " + fit(ar, 2) + " " + fit(syndromeText(p.Syndrome), ae) + " " +
		fitRight(strconv.Itoa(int(p.Length)), 5) + " " + fit(ecnText(p.ECN), 4) + " " + p.ICRC.String()
}

func (m Model) packetsScreen(h int) []string {
	pk := m.flowPackets(m.pktFlow)
	title := m.pktTitle + "   " + strconv.Itoa(len(pk)) + " recent packets   (esc back, ↑/↓ scroll)"
	out := []string{m.paint(m.styles.Title, clip(title, m.width))}
	if len(pk) == 0 {
		msg := "  no recent packets of this flow in this frame"
		if m.frame == nil || len(m.frame.Packets) == 0 {
			msg = "  this run keeps no per-packet lines (replay a capture file to see them)"
		}
		return append(out, clip(msg, m.width))
	}
	out = append(out, m.paint(m.styles.ColumnHeader, clip(packetHeader(m.width), m.width)))
	off := min(m.pktOff, max(0, len(pk)-1))
	for i := off; i < len(pk) && len(out) < h; i++ {
		line := clip(packetLine(&pk[i], m.width), m.width)
		if pk[i].Syndrome >= 0 && roce.AckType(uint8(pk[i].Syndrome)>>5&3) != roce.AckTypeACK {
			line = m.paint(m.styles.Warning, line)
		} else if pk[i].ICRC == capture.ICRCBad {
			line = m.paint(m.styles.Critical, line)
		}
		out = append(out, line)
	}
	return out
}
