package ui

import (
	"math"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// maxEvents bounds the event timeline.
const maxEvents = 2000

// qpCommCol is the QPs table's COMM column.
const qpCommCol = 9

var (
	// Drop: what gives way at 80 columns, first to last (the QP, its
	// state and owner, and the wire's loss numbers stay).
	qpCols = []column{{Title: "DEVICE", Width: 9}, {Title: "PORT", Width: 4, Right: true, Num: true, Drop: 5},
		{Title: "LQPN", Width: 8, Right: true, Num: true}, {Title: "RQPN", Width: 8, Right: true, Num: true, Drop: 3},
		{Title: "TYPE", Width: 5, Drop: 4}, {Title: "STATE", Width: 6}, {Title: "PID", Width: 7, Right: true, Num: true, Drop: 8},
		{Title: "SQ PSN", Width: 9, Right: true, Num: true, Drop: 1}, {Title: "RQ PSN", Width: 9, Right: true, Num: true, Drop: 2},
		// who owns the QP comes before the wire columns: on a narrow
		// terminal it is the wire stats that are cut, not the owner
		{Title: "COMM", Width: 14},
		// its pod, else its container: gives way before the PID (the
		// filter still finds a QP by pod when the column is not shown)
		{Title: "POD/CONTAINER", Width: 18, Drop: 7},
		{Title: "Gb/s", Width: 6, Right: true, Num: true, Drop: 6}, {Title: "GAPS", Width: 5, Right: true, Num: true},
		{Title: "RETX", Width: 5, Right: true, Num: true}, {Title: "NAKS", Width: 5, Right: true, Num: true},
		{Title: "CNPS", Width: 5, Right: true, Num: true}, {Title: "p99µs", Width: 0, Right: true, Num: true}}
	flowCols = []column{{Title: "ID", Width: 4, Right: true, Num: true}, {Title: "SRC → DST", Width: srcDstWidth},
		{Title: "QP", Width: 8},
		// the UDP source port, the flow's ECMP entropy: gives way first
		{Title: "SPORT", Width: 5, Right: true, Num: true, Drop: 1},
		{Title: "TR", Width: 3, Drop: 2}, {Title: "PKTS", Width: 7, Right: true, Num: true, Drop: 3},
		{Title: "Gb/s", Width: 6, Right: true, Num: true, Drop: 4}, {Title: "GAPS", Width: 5, Right: true, Num: true},
		{Title: "RETX", Width: 5, Right: true, Num: true}, {Title: "NAKS", Width: 5, Right: true, Num: true},
		{Title: "CNPS", Width: 5, Right: true, Num: true}, {Title: "CE", Width: 4, Right: true, Num: true},
		{Title: "p99µs", Width: 6, Right: true, Num: true, Drop: 5}, {Title: "!", Width: 0}}
	eventCols = []column{{Title: "TIME", Width: 12}, {Title: "SEV", Width: 4}, {Title: "SOURCE", Width: 6},
		{Title: "KIND", Width: 14}, {Title: "OBJECT", Width: 24}, {Title: "DETAIL", Width: 0}}
	counterCols = []column{{Title: "NAME", Width: 26}, {Title: "NATIVE", Width: 20, Drop: 2}, {Title: "SOURCE", Width: 9, Drop: 1},
		{Title: "VALUE", Width: 14, Right: true, Num: true}, {Title: "DELTA", Width: 10, Right: true, Num: true},
		{Title: "RATE/s", Width: 9, Right: true, Num: true}, {Title: "UNIT", Width: 0}}
)

func sevWord(s string) string {
	switch s {
	case "critical":
		return "CRIT"
	case "warning":
		return "WARN"
	case "info":
		return "INFO"
	}
	return strings.ToUpper(s)
}

// setFrame makes f the frame shown and derives everything View needs, so
// that View only lays out text.
func (m *Model) setFrame(f *monitor.Frame) {
	m.frame = f
	// Live, the strip is what is wrong now. A replay tells what happened
	// in the file up to this Frame: what resolved stays, marked.
	m.active = m.active[:0]
	for _, fd := range f.Findings {
		if !fd.Resolved || f.Mode == monitor.ModeReplay {
			m.active = append(m.active, fd)
		}
	}
	m.parent, m.depth = causeTree(m.active, m.parent[:0], m.depth[:0])
	if m.findingSel >= len(m.active) {
		m.findingSel = max(0, len(m.active)-1)
	}
	s := f.Snapshot
	if s != nil {
		for i := range s.Ports {
			p := &s.Ports[i]
			k := portKey(p)
			v := 0.0
			if p.Traffic.RxBytesPerSec != nil {
				v += *p.Traffic.RxBytesPerSec
			}
			if p.Traffic.TxBytesPerSec != nil {
				v += *p.Traffic.TxBytesPerSec
			}
			h := append(m.history[k], v)
			if len(h) > historyLen {
				h = h[len(h)-historyLen:]
			}
			m.history[k] = h
		}
		if m.port >= len(s.Ports) {
			m.port = 0
		}
		m.buildQPs(s, f)
		if f.Recent == nil {
			m.addEvents(s.Events)
		}
	} else {
		m.tables[ViewQPs].setRows(nil)
	}
	if f.Recent != nil {
		// The run's own event log: right whichever Frame a replay jumps to.
		m.events = m.events[:0]
		m.addEvents(f.Recent)
	}
	m.buildFlows(f)
	m.buildCounters()
	m.configOf = configLines(f)
	m.pathsLine = ""
	if f.Wire != nil {
		paths := f.Wire.Paths
		if paths == nil { // an interval's flows: summed here, not per replay tick
			paths = capture.Paths(f.Wire.Flows)
		}
		m.pathsLine = pathsLine(paths)
	}
}

func portKey(p *probes.Port) string { return p.Device + "/" + strconv.Itoa(p.Port) }

func u32f(p *uint32) float64 {
	if p == nil {
		return math.NaN()
	}
	return float64(*p)
}

// qpWire is what the capture saw of one QP: its inbound flow (addressed
// to the QP at one of its device's GIDs) and its outbound flow (from one
// of those GIDs to the QP's remote QPN, or the inbound flow's paired
// flow). A requester's data and loss are on its outbound flow, the NAKs
// it receives on the inbound one; a responder's the other way round.
type qpWire struct{ in, out *capture.FlowSummary }

// qpFlows joins a capture's flows with the snapshot's QPs, by (device,
// QPN); IPv4-mapped GIDs match IPv4 addresses. The busiest flow wins when
// several match.
func qpFlows(s *probes.Snapshot, w *capture.Summary) map[qpKey]qpWire {
	if w == nil || len(w.Flows) == 0 {
		return nil
	}
	devOf := map[netip.Addr][]string{}
	for _, g := range s.Config.GIDs {
		a, err := netip.ParseAddr(g.GID)
		if err != nil || a.IsUnspecified() {
			continue
		}
		a = a.Unmap()
		devOf[a] = append(devOf[a], g.Device)
	}
	devsAt := func(addr string) []string {
		a, err := netip.ParseAddr(addr)
		if err != nil {
			return nil
		}
		var out []string
		for _, d := range devOf[a.Unmap()] {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
		return out
	}
	byID := map[int]*capture.FlowSummary{}
	in := map[qpKey]*capture.FlowSummary{}  // (device, destination QP) of flows to the device
	out := map[qpKey]*capture.FlowSummary{} // (device, destination QP) of flows from the device
	busiest := func(m map[qpKey]*capture.FlowSummary, k qpKey, f *capture.FlowSummary) {
		if o := m[k]; o == nil || f.Packets > o.Packets {
			m[k] = f
		}
	}
	for i := range w.Flows {
		f := &w.Flows[i]
		byID[f.ID] = f
		for _, d := range devsAt(f.Dst) {
			busiest(in, qpKey{d, uint32(f.DestQP)}, f)
		}
		for _, d := range devsAt(f.Src) {
			busiest(out, qpKey{d, uint32(f.DestQP)}, f)
		}
	}
	res := map[qpKey]qpWire{}
	for i := range s.QPs {
		q := &s.QPs[i]
		k := qpKey{q.Device, q.LQPN}
		qw := qpWire{in: in[k]}
		if qw.in != nil && qw.in.PeerID != 0 {
			qw.out = byID[qw.in.PeerID]
		}
		if qw.out == nil && q.RQPN != nil {
			qw.out = out[qpKey{q.Device, *q.RQPN}]
		}
		if qw.in != nil || qw.out != nil {
			res[k] = qw
		}
	}
	return res
}

type qpKey struct {
	dev string
	qpn uint32
}

// nowOf indexes the interval's flows by ID: what each flow did in the
// last tick (its rate now).
func nowOf(f *monitor.Frame) map[int]*capture.FlowSummary {
	if f.Interval == nil {
		return nil
	}
	out := make(map[int]*capture.FlowSummary, len(f.Interval.Flows))
	for i := range f.Interval.Flows {
		out[f.Interval.Flows[i].ID] = &f.Interval.Flows[i]
	}
	return out
}

// gbpsNow is a flow's rate in the last tick, or its average over the
// capture when the Frame has no interval.
func gbpsNow(f *monitor.Frame, now map[int]*capture.FlowSummary, w *capture.FlowSummary) float64 {
	if f.Interval == nil {
		return w.Gbps
	}
	if n := now[w.ID]; n != nil {
		return n.Gbps
	}
	return 0
}

// qpOwner is what the POD/CONTAINER column says of q's owner: its pod
// (namespace/name, else "pod " and its UID), else its container's short
// id (the runtime is in findings and --json; the column has no room).
func qpOwner(q *probes.QP) string {
	switch {
	case q.Pod != "":
		return q.Pod
	case q.PodUID != "":
		return "pod " + q.PodUID
	case q.ContainerID != "":
		return probes.ContainerName("", q.ContainerID)
	}
	return "-"
}

func (m *Model) buildQPs(s *probes.Snapshot, fr *monitor.Frame) {
	flows := qpFlows(s, fr.Wire)
	now := nowOf(fr)
	rs := make([]row, 0, len(s.QPs))
	for i := range s.QPs {
		q := &s.QPs[i]
		pid := math.NaN()
		if q.PID != nil {
			pid = float64(*q.PID)
		}
		comm := termtext.Sanitize(q.Comm)
		if comm == "" && q.KernOwner != "" {
			comm = "[" + termtext.Sanitize(q.KernOwner) + "]"
		}
		ws := []string{"-", "-", "-", "-", "-", "-"}
		wn := []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}
		if qw, ok := flows[qpKey{q.Device, q.LQPN}]; ok {
			u := func(v uint64) string { return strconv.FormatUint(v, 10) }
			var g float64
			var gaps, retx, naks, cnps uint64
			rtt, rttN := "-", math.NaN()
			for _, f := range []*capture.FlowSummary{qw.out, qw.in} {
				if f == nil {
					continue
				}
				g += gbpsNow(fr, now, f)
				gaps += f.PSNGaps
				retx += f.RetransmittedPackets
				naks += f.NAKs.Total()
				cnps += f.CNPs
				// The round trip of the QP's own requests: on its
				// outbound flow, else the inbound one.
				if f.RTTus.Samples > 0 && rtt == "-" {
					rtt, rttN = trim(f.RTTus.P99), f.RTTus.P99
				}
			}
			ws = []string{strconv.FormatFloat(g, 'f', 2, 64), u(gaps), u(retx), u(naks), u(cnps), rtt}
			wn = []float64{g, float64(gaps), float64(retx), float64(naks), float64(cnps), rttN}
		}
		cells := append([]string{termtext.Sanitize(q.Device), strconv.Itoa(q.Port), probes.FormatQPN(q.LQPN), optQPN(q.RQPN),
			termtext.Sanitize(q.Type), termtext.Sanitize(q.State), optI(q.PID), optU32(q.SQPSN), optU32(q.RQPSN), comm,
			termtext.Sanitize(qpOwner(q))}, ws...)
		nums := append([]float64{0, float64(q.Port), float64(q.LQPN), u32f(q.RQPN), 0, 0, pid, u32f(q.SQPSN), u32f(q.RQPSN), 0, 0}, wn...)
		rs = append(rs, newRow(cells, nums, "qp:"+q.State))
	}
	m.tables[ViewQPs].setRows(rs)
}

func (m *Model) buildFlows(f *monitor.Frame) {
	t := m.tables[ViewFlows]
	if f.Wire == nil {
		t.setRows(nil)
		return
	}
	now := nowOf(f)
	// Without an interval (a whole capture at once) "now" is the whole.
	troubledNow := func(w *capture.FlowSummary) bool {
		if f.Interval == nil {
			return w.Troubled
		}
		n := now[w.ID]
		return n != nil && n.Troubled
	}
	fl := make([]int, len(f.Wire.Flows))
	maxID := 0
	for i := range fl {
		fl[i] = i
		maxID = max(maxID, f.Wire.Flows[i].ID)
	}
	// A cluster capture numbers flows past 9999: the ID column grows to
	// fit rather than cut the number that names the flow.
	t.Cols[0].Width = max(flowCols[0].Width, len(strconv.Itoa(maxID)))
	// Troubled now first, then troubled before, then the busiest now:
	// the natural order.
	sort.SliceStable(fl, func(a, b int) bool {
		x, y := &f.Wire.Flows[fl[a]], &f.Wire.Flows[fl[b]]
		if tx, ty := troubledNow(x), troubledNow(y); tx != ty {
			return tx
		}
		if x.Troubled != y.Troubled {
			return x.Troubled
		}
		if f.Interval != nil {
			if gx, gy := gbpsNow(f, now, x), gbpsNow(f, now, y); gx != gy {
				return gx > gy
			}
		}
		return x.Packets > y.Packets
	})
	rs := make([]row, 0, len(fl))
	for _, i := range fl {
		w := &f.Wire.Flows[i]
		naks := w.NAKs.Total()
		mark, class := "", ""
		switch {
		case troubledNow(w):
			mark, class = "!!", "warning" // trouble in the last tick
		case w.Troubled:
			mark = "!" // trouble earlier
		}
		g := gbpsNow(f, now, w)
		rtt := "-"
		if w.RTTus.Samples > 0 {
			rtt = trim(w.RTTus.P99)
		}
		u := func(v uint64) string { return strconv.FormatUint(v, 10) }
		sport, sportN := "-", math.NaN() // RoCE v1: no UDP
		if w.UDPSrcPort != 0 {
			sport, sportN = strconv.Itoa(int(w.UDPSrcPort)), float64(w.UDPSrcPort)
		}
		rs = append(rs, newRow(
			[]string{strconv.Itoa(w.ID), srcDst(w.Src, w.Dst), w.DestQP.String(), sport,
				termtext.Sanitize(w.Transport), u(w.Packets), strconv.FormatFloat(g, 'f', 2, 64), u(w.PSNGaps),
				u(w.RetransmittedPackets), u(naks), u(w.CNPs), u(w.ECNCE), rtt, mark},
			[]float64{float64(w.ID), 0, float64(w.DestQP), sportN, 0, float64(w.Packets), g, float64(w.PSNGaps), float64(w.RetransmittedPackets),
				float64(naks), float64(w.CNPs), float64(w.ECNCE), w.RTTus.P99, 0},
			class))
	}
	t.setRows(rs)
}

func (m *Model) buildCounters() {
	t := m.tables[ViewCounters]
	p := m.selectedPort()
	if p == nil {
		t.setRows(nil)
		return
	}
	rs := make([]row, 0, len(p.Counters))
	for i := range p.Counters {
		c := &p.Counters[i]
		d, r := math.NaN(), math.NaN()
		if c.Delta != nil {
			d = float64(*c.Delta)
		}
		if c.Rate != nil {
			r = *c.Rate
		}
		unit := termtext.Sanitize(c.Unit)
		switch {
		case c.Note == probes.NoteStale && c.StaleS != nil:
			// Its source did not answer: the last reading, this old.
			unit += " (stale " + probes.Age(*c.StaleS) + ")"
		case c.Note != "":
			unit += " (" + termtext.Sanitize(string(c.Note)) + ")"
		}
		rs = append(rs, newRow(
			[]string{termtext.Sanitize(c.Name), termtext.Sanitize(c.Native), termtext.Sanitize(c.Source), strconv.FormatUint(c.Value, 10),
				optU(c.Delta), optF(c.Rate), unit},
			[]float64{0, 0, 0, float64(c.Value), d, r, 0}, ""))
	}
	t.setRows(rs)
}

func (m *Model) selectedPort() *probes.Port {
	if m.frame == nil || m.frame.Snapshot == nil || m.port >= len(m.frame.Snapshot.Ports) {
		return nil
	}
	return &m.frame.Snapshot.Ports[m.port]
}

// srcDstWidth holds any two IPv4 addresses: "255.255.255.255→255.255.255.255".
const srcDstWidth = 31

// srcDst is a flow's endpoints, with spaces around the arrow when they fit
// in the column (an address is never cut for them).
func srcDst(src, dst string) string {
	src, dst = termtext.Sanitize(src), termtext.Sanitize(dst)
	if s := src + " → " + dst; utf8.RuneCountInString(s) <= srcDstWidth {
		return s
	}
	return src + "→" + dst
}

// pathsLine is the Flows view's line on ECMP entropy: how many host
// pairs, how many of them ride few 5-tuples, and the busiest pair's
// QPs, ports and the share of its busiest 5-tuple (capture.PathSummary).
func pathsLine(paths []capture.PathSummary) string {
	if len(paths) == 0 {
		return ""
	}
	few := 0
	for _, p := range paths {
		if p.UDPSrcPorts <= capture.FewUDPPorts {
			few++
		}
	}
	b := &paths[0] // the busiest
	share := capture.Percent(float64(b.MaxPortBytes), float64(b.Bytes))
	return "paths " + count(len(paths), "host pair") + ", " + strconv.Itoa(few) + " on ≤" + strconv.Itoa(capture.FewUDPPorts) +
		" UDP ports · busiest " + termtext.Sanitize(b.Src) + "→" + termtext.Sanitize(b.Dst) + ": " + count(b.QPs, "QP") + ", " +
		count(b.UDPSrcPorts, "port") + ", " + strconv.Itoa(share) + "% on one 5-tuple"
}

// count writes n things: "1 QP", "3 QPs".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// causeTree finds each finding's cause among fs (grouped: a cause comes
// before what it explains) and how deep it sits. A finding whose cause is
// not among them (live, a cause that resolved is not shown) is a root.
func causeTree(fs []rules.Finding, parent, depth []int) ([]int, []int) {
	at := make(map[string]int, len(fs))
	for i := range fs {
		parent, depth = append(parent, -1), append(depth, 0)
		if c := fs[i].ExplainedBy; c != nil {
			if j, ok := at[rules.RefKey(c.Rule, c.Objects)]; ok {
				parent[i], depth[i] = j, depth[j]+1
			}
		}
		at[rules.RefKey(fs[i].Rule, fs[i].Objects)] = i
	}
	return parent, depth
}
