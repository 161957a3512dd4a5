package exporter

import (
	"time"

	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/alias"
	"github.com/rdmatop/rdmatop/rules"
)

// Label names.
var (
	portLabels = []string{"device", "port", "netdev"}
	prioLabels = []string{"device", "port", "netdev", "priority"}
	dirLabels  = []string{"device", "port", "netdev", "direction"}
	pfcLabels  = []string{"device", "port", "netdev", "priority", "direction"}
)

// builder makes one Frame's metrics.
type builder struct {
	e    *Exporter
	out  []prometheus.Metric
	seen map[string]bool // series keys of this Frame (a key twice would fail the scrape)
	// received is the wall clock when the Frame reached the exporter.
	received time.Time
}

func key(name string, labels []string) string {
	return name + "\xff" + strings.Join(labels, "\xff")
}

// gauge adds a gauge sample.
func (b *builder) gauge(d *prometheus.Desc, v float64, labels ...string) {
	b.out = append(b.out, prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...))
}

// counter adds a counter that starts at first (the host's reading) and
// then grows by delta; delta nil (a reset, a first sample) adds nothing.
func (b *builder) counter(name string, d *prometheus.Desc, first float64, delta *float64, labels ...string) {
	k := key(name, labels)
	if b.seen[k] {
		return // another source already gave this counter: the first wins
	}
	b.seen[k] = true
	s := b.e.acc[k]
	switch {
	case s == nil:
		s = &series{v: first}
		b.e.acc[k] = s
	case delta != nil && *delta > 0:
		s.v += *delta
	}
	s.seen = b.e.gen
	b.out = append(b.out, prometheus.MustNewConstMetric(d, prometheus.CounterValue, s.v, labels...))
}

// increment adds n to a counter that starts at 0 (events, wire totals).
func (b *builder) increment(name string, d *prometheus.Desc, n float64, labels ...string) {
	k := key(name, labels)
	if b.seen[k] {
		return
	}
	b.seen[k] = true
	s := b.e.acc[k]
	if s == nil {
		s = &series{}
		b.e.acc[k] = s
	}
	s.v += n
	s.seen = b.e.gen
	b.out = append(b.out, prometheus.MustNewConstMetric(d, prometheus.CounterValue, s.v, labels...))
}

func (b *builder) frame(f *monitor.Frame) {
	b.seen = map[string]bool{}
	e := b.e
	bi := e.opts.Build
	b.gauge(e.desc("rdmatop_build_info", "rdmatop's version, VCS revision and Go version.", "version", "revision", "goversion"),
		1, bi.String(), bi.Revision, bi.GoVersion)
	b.rules()
	b.run(f)
	if s := f.Snapshot; s != nil {
		for i := range s.Ports {
			b.port(&s.Ports[i])
		}
		b.qps(s)
		b.events(s)
		b.sources(s.Status)
	} else if f.WireStatus != nil {
		b.sources([]probes.Status{*f.WireStatus})
	}
	b.findings(f.Findings)
	if f.Interval != nil {
		b.wire(f)
	}
}

func (b *builder) rules() {
	if b.e.opts.Pack == nil {
		return
	}
	d := b.e.desc("rdmatop_rule_info", "The diagnosis rules: each rule's severity and title (join with rdmatop_finding_active on rule).",
		"rule", "severity", "title")
	for _, r := range b.e.opts.Pack.Rules {
		b.gauge(d, 1, r.ID, string(r.Severity), r.Title)
	}
}

func (b *builder) run(f *monitor.Frame) {
	e := b.e
	b.gauge(e.desc("rdmatop_frame_timestamp_seconds", "Time of the newest Frame (the run's clock: the wall clock live, the recording's in replay)."),
		float64(f.Time.UnixNano())/1e9)
	b.gauge(e.desc("rdmatop_frame_received_timestamp_seconds", "Wall clock when the exporter received the newest Frame: staleness is judged on it (a replay's Frames carry the recording's time)."),
		float64(b.received.UnixNano())/1e9)
	b.gauge(e.desc("rdmatop_sample_duration_seconds", "How long the newest host sample took."), f.SampleS)
	b.gauge(e.desc("rdmatop_sample_late_seconds", "How much later than due the newest tick started (a sample overran the interval)."), f.LateS)
	b.increment("rdmatop_samples_skipped_total", e.desc("rdmatop_samples_skipped_total", "Ticks that did not happen because a sample overran the interval."),
		float64(f.Skipped))
}

func portOf(p *probes.Port) []string { return []string{p.Device, strconv.Itoa(p.Port), p.Netdev} }

// special are the canonical counters that have families of their own.
var special = map[string]bool{"rx_bytes": true, "tx_bytes": true, "rx_packets": true, "tx_packets": true,
	"rx_pfc_pause_frames": true, "tx_pfc_pause_frames": true, "rx_pfc_pause_duration": true, "tx_pfc_pause_duration": true}

func (b *builder) port(p *probes.Port) {
	e := b.e
	pl := portOf(p)
	up := 0.0
	if p.State == "ACTIVE" {
		up = 1
	}
	b.gauge(e.desc("rdmatop_port_up", "1 when the RDMA port is ACTIVE.", portLabels...), up, pl...)
	b.gauge(e.desc("rdmatop_port_info", "The RDMA port's state, physical state and link layer.",
		"device", "port", "netdev", "state", "phys_state", "link_layer"), 1, p.Device, pl[1], p.Netdev, p.State, p.PhysState, p.LinkLayer)
	if p.RateGbps > 0 {
		b.gauge(e.desc("rdmatop_port_speed_bytes", "The RDMA port's rate in bytes per second.", portLabels...), p.RateGbps*1e9/8, pl...)
	}
	if p.MTU != nil {
		b.gauge(e.desc("rdmatop_port_netdev_mtu_bytes", "The netdev's MTU.", portLabels...), float64(*p.MTU), pl...)
	}
	if p.RoCEMTU != nil {
		b.gauge(e.desc("rdmatop_port_roce_mtu_bytes", "The largest RoCE (IB) MTU the netdev MTU allows.", portLabels...), float64(*p.RoCEMTU), pl...)
	}
	for i := range p.Counters {
		b.hwCounter(p, pl, &p.Counters[i])
	}
	for _, q := range p.PFC {
		if q.Enabled != nil {
			v := 0.0
			if *q.Enabled {
				v = 1
			}
			b.gauge(e.desc("rdmatop_pfc_enabled", "1 when PFC is on for the priority (DCB).", prioLabels...), v,
				p.Device, pl[1], p.Netdev, strconv.Itoa(q.Priority))
		}
	}
}

// hwCounter exports one counter of a port under its canonical name.
func (b *builder) hwCounter(p *probes.Port, pl []string, c *probes.Counter) {
	e := b.e
	in := alias.Lookup(c.Name)
	switch {
	case strings.HasPrefix(c.Name, "netdev_"):
		b.netdevCounter(pl, c)
		return
	case in.Name == "":
		return // no canonical name: vendor specific, left to native tools
	}
	base, prio := splitPrio(c.Name, in)
	value, delta := float64(c.Value), deltaOf(c)
	if in.Unit == alias.UnitMicros {
		value, delta = value/1e6, scaled(delta, 1e-6)
	}
	switch base {
	case "rx_bytes", "tx_bytes":
		name := "rdmatop_port_bytes_total"
		b.counter(name, e.desc(name, "Bytes the RDMA port received (rx) and sent (tx): RDMA traffic on RoCE devices.", dirLabels...),
			value, delta, p.Device, pl[1], p.Netdev, base[:2])
		return
	case "rx_packets", "tx_packets":
		name := "rdmatop_port_packets_total"
		b.counter(name, e.desc(name, "Packets the RDMA port received (rx) and sent (tx).", dirLabels...),
			value, delta, p.Device, pl[1], p.Netdev, base[:2])
		return
	case "rx_pfc_pause_frames", "tx_pfc_pause_frames":
		if prio < 0 {
			break
		}
		name := "rdmatop_pfc_pause_frames_total"
		b.counter(name, e.desc(name, "PFC pause frames received (rx: the peer paused this port) and sent (tx), per priority.", pfcLabels...),
			value, delta, p.Device, pl[1], p.Netdev, strconv.Itoa(prio), base[:2])
		return
	case "rx_pfc_pause_duration", "tx_pfc_pause_duration":
		if prio < 0 {
			break
		}
		name := "rdmatop_pfc_pause_seconds_total"
		b.counter(name, e.desc(name, "Time the priority was paused, received (rx) or requested (tx); rate() is the share of time paused.", pfcLabels...),
			value, delta, p.Device, pl[1], p.Netdev, strconv.Itoa(prio), base[:2])
		return
	}
	name, help := canonicalName(base, in)
	if n := e.natives[base]; n != "" {
		help += " (native names: " + n + ")"
	}
	if in.Kind == alias.Gauge {
		v := value
		if in.Unit == alias.UnitPercent {
			v /= 100
		}
		if prio >= 0 {
			b.gauge(e.desc(name, help, prioLabels...), v, p.Device, pl[1], p.Netdev, strconv.Itoa(prio))
		} else {
			b.gauge(e.desc(name, help, portLabels...), v, pl...)
		}
		return
	}
	if prio >= 0 {
		b.counter(name, e.desc(name, help, prioLabels...), value, delta, p.Device, pl[1], p.Netdev, strconv.Itoa(prio))
	} else {
		b.counter(name, e.desc(name, help, portLabels...), value, delta, pl...)
	}
}

// splitPrio returns a per-priority canonical name's base and priority
// (-1 when it has none).
func splitPrio(name string, in alias.Info) (string, int) {
	if !in.PerPriority {
		return name, -1
	}
	i := strings.LastIndex(name, "_prio")
	if i < 0 {
		return name, -1
	}
	p, err := strconv.Atoi(name[i+len("_prio"):])
	if err != nil {
		return name, -1
	}
	return name[:i], p
}

// canonicalName is the metric of a canonical counter, in base units
// (microseconds become seconds, percents ratios), with the natives of
// every driver in its help.
func canonicalName(base string, in alias.Info) (string, string) {
	name := "rdmatop_" + base
	switch in.Unit {
	case alias.UnitMicros:
		name += "_seconds"
	case alias.UnitPercent:
		name = strings.TrimSuffix(name, "_pct") + "_ratio"
	case alias.UnitBits:
		// Corrected bit errors are events, not a data volume to count
		// in bytes.
		name = strings.TrimSuffix(name, "_bits") + "_bit_errors"
	}
	if in.Kind != alias.Gauge {
		name += "_total"
	}
	return name, in.Description
}

// nativeNames lists every driver's native spellings of each canonical
// base name ("table:name, ..."), for the metrics' help.
func nativeNames() map[string]string {
	m := map[string]map[string]bool{}
	for _, en := range alias.Entries() {
		b := strings.TrimSuffix(en.Canonical, "_prio<p>")
		if m[b] == nil {
			m[b] = map[string]bool{}
		}
		for _, n := range en.Natives {
			m[b][en.Table+":"+n] = true
		}
	}
	out := map[string]string{}
	for b, set := range m {
		var l []string
		for n := range set {
			l = append(l, n)
		}
		sort.Strings(l)
		out[b] = strings.Join(l, ", ")
	}
	return out
}

func deltaOf(c *probes.Counter) *float64 {
	if c.Delta == nil {
		return nil
	}
	d := float64(*c.Delta)
	return &d
}

func scaled(d *float64, f float64) *float64 {
	if d == nil {
		return nil
	}
	v := *d * f
	return &v
}

// netdevCounter exports the netdev's own link statistics (rtnetlink).
func (b *builder) netdevCounter(pl []string, c *probes.Counter) {
	kind, dir, ok := strings.Cut(strings.TrimPrefix(c.Name, "netdev_"), "_")
	if !ok || (kind != "rx" && kind != "tx") {
		return
	}
	kind, dir = dir, kind // "rx_bytes": direction rx, what bytes
	var name, help string
	switch kind {
	case "bytes":
		name, help = "rdmatop_netdev_bytes_total", "Bytes through the port's netdev (all its traffic, rtnetlink)."
	case "packets":
		name, help = "rdmatop_netdev_packets_total", "Packets through the port's netdev (rtnetlink)."
	case "errors":
		name, help = "rdmatop_netdev_errors_total", "Errors on the port's netdev (rtnetlink)."
	case "dropped":
		name, help = "rdmatop_netdev_dropped_total", "Packets the port's netdev dropped (rtnetlink)."
	default:
		return
	}
	b.counter(name, b.e.desc(name, help, dirLabels...), float64(c.Value), deltaOf(c), pl[0], pl[1], pl[2], dir)
}

func (b *builder) qps(s *probes.Snapshot) {
	e := b.e
	type k struct{ dev, typ, state string }
	count := map[k]int{}
	for i := range s.QPs {
		q := &s.QPs[i]
		count[k{q.Device, q.Type, q.State}]++
	}
	d := e.desc("rdmatop_qps", "Queue pairs by device, type and state (RDMA netlink).", "device", "type", "state")
	for kk, n := range count {
		b.gauge(d, float64(n), kk.dev, kk.typ, kk.state)
	}
	if !e.opts.PerQP {
		return
	}
	qd := e.desc("rdmatop_qp_info", "One series per QP (--per-qp, capped): its state and owner (pod: namespace/name, else the pod UID; empty outside a pod or when unknown).",
		"device", "port", "lqpn", "type", "state", "comm", "pod")
	n := 0
	for i := range s.QPs {
		q := &s.QPs[i]
		if n == e.opts.MaxQPs {
			break
		}
		comm := q.Comm
		if comm == "" && q.KernOwner != "" {
			comm = "[" + q.KernOwner + "]"
		}
		k := key("rdmatop_qp_info", []string{q.Device, strconv.FormatUint(uint64(q.LQPN), 10)})
		if b.seen[k] {
			continue
		}
		b.seen[k] = true
		pod := q.Pod
		if pod == "" {
			pod = q.PodUID
		}
		b.gauge(qd, 1, q.Device, strconv.Itoa(q.Port), probes.FormatQPN(q.LQPN), q.Type, q.State, comm, pod)
		n++
	}
	b.gauge(e.desc("rdmatop_qp_series_dropped", "QPs left out of rdmatop_qp_info by its cap."), float64(len(s.QPs)-n))
}

func (b *builder) events(s *probes.Snapshot) {
	e := b.e
	count := map[eventKind]float64{}
	for _, ev := range s.Events {
		k := eventKind{ev.Source, ev.Kind, string(ev.Severity)}
		count[k]++
		if !e.eventKinds[k] && len(e.eventKinds) < maxEventKinds {
			e.eventKinds[k] = true
		}
	}
	name := "rdmatop_events_total"
	d := e.desc(name, "Events rdmatop saw (QP state changes, port and device changes, kernel log lines, ...) by source, kind and severity.",
		"source", "kind", "severity")
	// Every kind seen so far keeps its series, quiet or not.
	for k := range e.eventKinds {
		b.increment(name, d, count[k], k.source, k.kind, k.sev)
	}
}

func (b *builder) sources(st []probes.Status) {
	e := b.e
	up := e.desc("rdmatop_source_up", "1 when the probe source answered in the newest sample (ok, or partial: some of its files hang and are carried forward, see rdmatop_source_stale_seconds).", "source")
	state := e.desc("rdmatop_source_state", "The probe source's state in the newest sample: ok, partial, not_supported, permission_denied, timeout or failed.",
		"source", "state")
	dur := e.desc("rdmatop_source_duration_seconds", "How long the probe source took in the newest sample.", "source")
	stale := e.desc("rdmatop_source_stale_seconds", "Age of the oldest value of the probe source carried forward because it (or one of its files) does not answer; 0 when everything it gives is fresh. Absent for a source that hangs with nothing to carry forward.", "source")
	since := e.desc("rdmatop_source_hung_since_timestamp_seconds", "When the probe source (or its oldest hung file) stopped answering, as a Unix time; absent while it answers.", "source")
	done := map[string]bool{}
	for _, s := range st {
		if done[s.Source] {
			continue
		}
		done[s.Source] = true
		v := 0.0
		if s.State == probes.StateOK || s.State == probes.StatePartial {
			v = 1
		}
		b.gauge(up, v, s.Source)
		switch {
		case s.StaleS != nil:
			b.gauge(stale, *s.StaleS, s.Source)
		case s.State == probes.StateOK:
			b.gauge(stale, 0, s.Source)
		}
		if s.Since != nil {
			b.gauge(since, float64(s.Since.UnixMilli())/1000, s.Source)
		}
		b.gauge(state, 1, s.Source, string(s.State))
		if s.DurationS > 0 {
			b.gauge(dur, s.DurationS, s.Source)
		}
	}
}

func (b *builder) findings(fs []rules.Finding) {
	e := b.e
	type k struct{ rule, sev, dev, port, prio string }
	count := map[k]int{}
	sev := map[string]int{string(rules.Critical): 0, string(rules.Warning): 0, string(rules.Info): 0}
	for _, f := range fs {
		if f.Resolved {
			continue
		}
		count[k{f.Rule, string(f.Severity), f.Objects["device"], f.Objects["port"], f.Objects["priority"]}]++
		sev[string(f.Severity)]++
	}
	d := e.desc("rdmatop_finding_active", "Active findings of a rule on a device, port and priority (flows and QPs counted on their device).",
		"rule", "severity", "device", "port", "priority")
	for kk, n := range count {
		b.gauge(d, float64(n), kk.rule, kk.sev, kk.dev, kk.port, kk.prio)
	}
	sd := e.desc("rdmatop_findings", "Active findings by severity.", "severity")
	for s, n := range sev {
		b.gauge(sd, float64(n), s)
	}
}

// wire exports the live capture: running totals grown by each interval.
func (b *builder) wire(f *monitor.Frame) {
	e := b.e
	iv := f.Interval
	ifc := iv.File // the interface live, the file in a replay
	l := []string{ifc}
	inc := func(name, help string, n uint64) {
		b.increment(name, e.desc(name, help, "interface"), float64(n), l...)
	}
	t := &iv.Totals
	inc("rdmatop_wire_packets_total", "RoCE packets captured.", iv.RoCEPackets)
	inc("rdmatop_wire_bytes_total", "Bytes of the RoCE packets captured.", iv.Bytes)
	inc("rdmatop_wire_psn_gaps_total", "Forward jumps in request PSN streams: packets lost before the capture point.", t.PSNGaps)
	inc("rdmatop_wire_missing_psns_total", "PSNs the gaps skipped.", t.MissingPSNs)
	inc("rdmatop_wire_retransmitted_packets_total", "Requests sent again (go-back-N, READ responses repeated).", t.RetransmittedPackets)
	inc("rdmatop_wire_cnps_total", "Congestion notification packets captured.", t.CNPs)
	inc("rdmatop_wire_ecn_ce_packets_total", "RoCE packets marked ECN Congestion Experienced.", t.ECNCE)
	inc("rdmatop_wire_icrc_errors_total", "RoCE packets whose ICRC does not verify.", t.ICRCErrors)
	if iv.KernelDrops != nil {
		inc("rdmatop_wire_kernel_drops_total", "Frames the kernel dropped before rdmatop read them (the capture did not keep up).", *iv.KernelDrops)
	}
	if len(iv.RingDrops) > 1 {
		rd := e.desc("rdmatop_wire_ring_kernel_drops_total", "Frames the kernel dropped, by ring of the capture's fanout group (--workers).", "interface", "ring")
		for i, n := range iv.RingDrops {
			b.increment("rdmatop_wire_ring_kernel_drops_total", rd, float64(n), ifc, strconv.Itoa(i))
		}
	}
	naks := e.desc("rdmatop_wire_naks_total", "NAKs captured, by code.", "interface", "code")
	for _, c := range t.NAKs.Codes() {
		b.increment("rdmatop_wire_naks_total", naks, float64(c.Count), ifc, c.Key)
	}
	b.gauge(e.desc("rdmatop_wire_flows", "Flows that moved in the newest interval.", "interface"), float64(t.Flows), l...)
}
