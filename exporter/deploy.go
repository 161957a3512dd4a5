package exporter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/rdmatop/rdmatop/rules"
)

// DocsBase is where the repository's docs/ links of the rules point to in
// alert annotations.
const DocsBase = "https://github.com/rdmatop/rdmatop/blob/main/"

// AlertName is the Prometheus alert of a rule: "packet-loss" →
// "RdmatopPacketLoss".
func AlertName(rule string) string {
	var b strings.Builder
	b.WriteString("Rdmatop")
	up := true
	for _, r := range rule {
		if r == '-' || r == '_' || r == '.' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

type alertRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

type ruleGroup struct {
	Name  string      `yaml:"name"`
	Rules []alertRule `yaml:"rules"`
}

// Alerts is deploy/prometheus/alerts.yaml: one alert per rule of the pack
// (its severity, title and docs link), firing while rdmatop reports the
// finding active on a host, and alerts on rdmatop itself. The rules' own
// `for` already applies on the host, so the alerts add none.
func Alerts(p *rules.Pack) ([]byte, error) {
	g := ruleGroup{Name: "rdmatop"}
	for _, r := range p.Rules {
		docs := ""
		for _, d := range r.Docs {
			if strings.HasPrefix(d, "docs/") {
				docs = DocsBase + d
				break
			}
		}
		if docs == "" && len(r.Docs) > 0 {
			docs = r.Docs[0]
		}
		g.Rules = append(g.Rules, alertRule{
			Alert: AlertName(r.ID),
			Expr:  fmt.Sprintf(`max by (instance, rule, severity, device, port, priority) (rdmatop_finding_active{rule=%q}) > 0`, r.ID),
			For:   alertFor(r),
			Labels: map[string]string{
				"severity": string(r.Severity),
				"rule":     r.ID,
			},
			Annotations: map[string]string{
				"title":       r.Title,
				"summary":     r.Title + " on {{ $labels.instance }}{{ with $labels.device }} {{ . }}{{ end }}{{ with $labels.port }}/{{ . }}{{ end }}{{ with $labels.priority }} priority {{ . }}{{ end }}",
				"description": "rdmatop's rule " + r.ID + " holds (" + string(r.Severity) + "). On the host, `rdmatop check` prints the evidence, the likely cause, how to confirm it and the fix.",
				"runbook_url": docs,
			},
		})
	}
	g.Rules = append(g.Rules,
		alertRule{Alert: "RdmatopSourceFailing",
			Expr: `rdmatop_source_state{state=~"failed|timeout"} == 1`, For: "10m",
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"title":       "An rdmatop probe source keeps failing",
				"summary":     "rdmatop's source {{ $labels.source }} on {{ $labels.instance }} is {{ $labels.state }}",
				"description": "rdmatop cannot read one of its sources (see `rdmatop --once --json` status): the rules that need it cannot evaluate on this host.",
				"runbook_url": DocsBase + "docs/probes.md",
			}},
		// Judged on when the exporter received its newest Frame, not on
		// the Frame's own time: a replay's Frames carry the recording's.
		alertRule{Alert: "RdmatopStale",
			Expr: `time() - rdmatop_frame_received_timestamp_seconds > 300`, For: "5m",
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"title":       "rdmatop stopped sampling",
				"summary":     "rdmatop on {{ $labels.instance }} has not sampled for {{ $value | humanizeDuration }}",
				"description": "The exporter answers but has received no new sample for five minutes (a replay that finished, or a hung run): its findings are stale.",
				"runbook_url": DocsBase + "docs/exporter.md",
			}},
		// Down: no finding can fire from an exporter nobody scrapes. 5m:
		// ten scrapes at the kit's 30 s, past a rolling restart.
		alertRule{Alert: "RdmatopDown",
			Expr: `up{job=~".*rdmatop.*"} == 0`, For: "5m",
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"title":       "rdmatop's exporter cannot be scraped",
				"summary":     "rdmatop on {{ $labels.instance }} has been down for 5 minutes",
				"description": "Prometheus cannot scrape rdmatop on this node (the pod is not running, crash-looping, or its port is not reachable): none of its alerts can fire for this node.",
				"runbook_url": DocsBase + "docs/exporter.md",
			}},
	)
	var b bytes.Buffer
	b.WriteString("# Generated from rdmatop's rule pack by exporter.Alerts: do not edit (go test ./exporter -update-deploy).\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(map[string][]ruleGroup{"groups": {g}}); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// alertFor is how long a finding must stay active before its alert
// fires. rdmatop has already applied the rule's own `for`; a finding that
// is an event (a lost packet, a link flap: `for: 0s`) is active from one
// tick until its condition clears, and Prometheus sees it at whatever
// scrape falls in that span. So: a critical pages when it was seen at two
// scrapes in a row (1m at the kit's 30 s PodMonitor interval), not on one
// tick's event seen once; a warning is a ticket, worth raising when it
// lasts (5m); an info is context for the dashboard (15m).
func alertFor(r *rules.Rule) string {
	switch r.Severity {
	case rules.Critical:
		return "1m"
	case rules.Warning:
		return "5m"
	}
	return "15m"
}

// panel is one Grafana panel of the dashboard.
type panel struct {
	Title   string
	Type    string // timeseries, table, stat
	Unit    string
	Queries []query
	W, H    int
	Desc    string
}

type query struct{ Expr, Legend string }

const sel = `instance=~"$instance", device=~"$device"`

// Panels are the dashboard's panels, also run by the end-to-end test.
var Panels = []panel{
	{Title: "Active findings", Type: "table", W: 24, H: 7, Desc: "What rdmatop's rules say now; `rdmatop check` on the host for evidence and fix.",
		Queries: []query{{Expr: `rdmatop_finding_active{instance=~"$instance"} * on (instance, rule) group_left (title) rdmatop_rule_info`, Legend: ""}}},
	{Title: "RDMA throughput", Type: "timeseries", Unit: "bps", W: 12, H: 8,
		Queries: []query{{Expr: `8 * sum by (instance, device, port, direction) (rate(rdmatop_port_bytes_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}}/{{port}} {{direction}}"}}},
	{Title: "RDMA packets", Type: "timeseries", Unit: "pps", W: 12, H: 8,
		Queries: []query{{Expr: `sum by (instance, device, port, direction) (rate(rdmatop_port_packets_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}}/{{port}} {{direction}}"}}},
	{Title: "PFC pause frames per priority", Type: "timeseries", Unit: "pps", W: 12, H: 8, Desc: "rx: the peer pauses this port; tx: this port pauses the peer.",
		Queries: []query{{Expr: `sum by (instance, device, priority, direction) (rate(rdmatop_pfc_pause_frames_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} prio {{priority}} {{direction}}"}}},
	{Title: "Time paused per priority", Type: "timeseries", Unit: "percentunit", W: 12, H: 8,
		Queries: []query{{Expr: `sum by (instance, device, priority, direction) (rate(rdmatop_pfc_pause_seconds_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} prio {{priority}} {{direction}}"}}},
	{Title: "DCQCN: CNPs and ECN marks", Type: "timeseries", Unit: "pps", W: 12, H: 8,
		Queries: []query{
			{Expr: `sum by (instance, device) (rate(rdmatop_cnp_sent_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} CNP sent"},
			{Expr: `sum by (instance, device) (rate(rdmatop_cnp_handled_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} CNP handled"},
			{Expr: `sum by (instance, device) (rate(rdmatop_cnp_ignored_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} CNP ignored"},
			{Expr: `sum by (instance, device) (rate(rdmatop_ecn_marked_roce_packets_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} ECN marked"}}},
	{Title: "Transport errors", Type: "timeseries", Unit: "ops", W: 12, H: 8, Desc: "Sequence errors mean loss, timeouts a black hole or a slow peer, RNR a receiver without buffers.",
		Queries: []query{
			{Expr: `sum by (instance, device) (rate(rdmatop_out_of_sequence_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} out of sequence"},
			{Expr: `sum by (instance, device) (rate(rdmatop_packet_seq_err_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} NAK sequence error"},
			{Expr: `sum by (instance, device) (rate(rdmatop_local_ack_timeout_err_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} ACK timeout"},
			{Expr: `sum by (instance, device) (rate(rdmatop_rnr_nak_retry_err_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} RNR"},
			{Expr: `sum by (instance, device) (rate(rdmatop_duplicate_request_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} duplicate request"},
			{Expr: `sum by (instance, device) (rate(rdmatop_out_of_buffer_total{` + sel + `}[$__rate_interval]))`, Legend: "{{instance}} {{device}} out of buffer"}}},
	{Title: "QPs by state", Type: "timeseries", Unit: "short", W: 12, H: 8,
		Queries: []query{{Expr: `sum by (instance, device, state) (rdmatop_qps{` + sel + `})`, Legend: "{{instance}} {{device}} {{state}}"}}},
	{Title: "Ports", Type: "table", W: 12, H: 8,
		Queries: []query{{Expr: `rdmatop_port_info{` + sel + `}`, Legend: ""}}},
	{Title: "Wire: loss seen by the capture", Type: "timeseries", Unit: "pps", W: 12, H: 8, Desc: "Only where rdmatop captures (-i NETDEV on Soft-RoCE, or a replayed capture).",
		Queries: []query{
			{Expr: `sum by (instance, interface) (rate(rdmatop_wire_psn_gaps_total{instance=~"$instance"}[$__rate_interval]))`, Legend: "{{instance}} {{interface}} PSN gaps"},
			{Expr: `sum by (instance, interface) (rate(rdmatop_wire_naks_total{instance=~"$instance"}[$__rate_interval]))`, Legend: "{{instance}} {{interface}} NAKs"},
			{Expr: `sum by (instance, interface) (rate(rdmatop_wire_retransmitted_packets_total{instance=~"$instance"}[$__rate_interval]))`, Legend: "{{instance}} {{interface}} retransmitted"}}},
	{Title: "rdmatop sources", Type: "table", W: 12, H: 8, Desc: "Probe sources that are not ok: the rules that need them cannot evaluate.",
		Queries: []query{{Expr: `rdmatop_source_state{instance=~"$instance", state!="ok"}`, Legend: ""}}},
}

// Dashboard is deploy/grafana/rdmatop.json: Panels with a Prometheus
// datasource variable, importable as is.
func Dashboard() ([]byte, error) {
	ds := map[string]string{"type": "prometheus", "uid": "${datasource}"}
	var panels []any
	x, y, rowH := 0, 0, 0
	for i, p := range Panels {
		if x+p.W > 24 {
			x, y = 0, y+rowH
			rowH = 0
		}
		var targets []any
		for j, q := range p.Queries {
			t := map[string]any{"datasource": ds, "expr": q.Expr, "refId": string(rune('A' + j)), "legendFormat": q.Legend}
			if p.Type == "table" {
				t["instant"], t["format"], t["range"] = true, "table", false
			}
			targets = append(targets, t)
		}
		pj := map[string]any{"id": i + 1, "type": p.Type, "title": p.Title, "datasource": ds, "targets": targets,
			"gridPos": map[string]int{"x": x, "y": y, "w": p.W, "h": p.H}}
		if p.Desc != "" {
			pj["description"] = p.Desc
		}
		if p.Unit != "" {
			pj["fieldConfig"] = map[string]any{"defaults": map[string]any{"unit": p.Unit}, "overrides": []any{}}
		}
		panels = append(panels, pj)
		x += p.W
		rowH = max(rowH, p.H)
	}
	variable := func(name, q string) map[string]any {
		return map[string]any{"name": name, "label": name, "type": "query", "datasource": ds, "refresh": 2,
			"query": map[string]any{"query": q, "refId": "StandardVariableQuery"}, "definition": q,
			"includeAll": true, "multi": true, "allValue": ".*", "current": map[string]any{}}
	}
	d := map[string]any{
		"title":         "rdmatop: RoCE health",
		"uid":           "rdmatop",
		"description":   "RoCE and RDMA health from rdmatop serve: throughput, PFC, DCQCN, errors, QPs and the findings of rdmatop's rules.",
		"tags":          []string{"rdmatop", "roce", "rdma"},
		"schemaVersion": 39,
		"editable":      true,
		"time":          map[string]string{"from": "now-1h", "to": "now"},
		"refresh":       "30s",
		"templating": map[string]any{"list": []any{
			map[string]any{"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus", "current": map[string]any{}},
			variable("instance", "label_values(rdmatop_build_info, instance)"),
			variable("device", `label_values(rdmatop_port_up{instance=~"$instance"}, device)`),
		}},
		"panels": panels,
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
