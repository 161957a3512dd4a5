package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/report"
	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/qos"
	"github.com/rdmatop/rdmatop/rules"
)

func newReplayCmd() *cobra.Command {
	var (
		hf       hostFlags // --interval and --rules only
		wf       wireFlags
		out      outputFlags
		upstream string
	)
	cmd := &cobra.Command{
		Use:   "replay FILE | replay A B",
		Short: "replay a capture file (pcap/pcapng, optionally gzip) or a recording, as a timeline",
		Long: `Replay a capture or an rdmatop recording through the same pipeline as a
live host. Every RoCEv2 (UDP 4791) and RoCEv1 (EtherType 0x8915) packet is
decoded and each queue pair's PSN stream followed: gaps, retransmissions,
NAKs, RNR NAKs, CNPs, ECN marks, ICRC errors and request-to-ACK round
trips. A capture is cut into intervals of capture time (--interval; a
capture shorter than a few seconds gets finer ones unless --interval is
given), a recording into its recorded ticks, so the screen steps through
the incident: when the loss started, whether the CNPs came before it.

--report prints the whole-capture summary and the findings with when they
were first and last seen; --json the same as one JSON document, with a
per-interval "series". A damaged file is analysed up to the damage; the
error names the record and byte offset, and the exit status is 2.

replay A B compares two captures of the same traffic taken at two points
of its path and reports where each packet was lost, as check A B does
(docs/both-ends.md), with exit status 0 whatever the path did.`,
		Args: oneOrTwoFiles("replay"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			if len(args) == 2 {
				// Two points of one path: the comparison, on the screen
				// or as a report.
				screen := !out.json && !out.report && isTerminal(cmd.OutOrStdout())
				return compareTwoPoints(cmd, args[0], args[1], upstream, twoPointsOutput{json: out.json, screen: screen})
			}
			if err := hf.checkTimeline(cmd); err != nil {
				return err
			}
			screen := !out.json && !out.report && isTerminal(cmd.OutOrStdout())
			// A report's run compiles the built-in pack itself while it
			// reads the capture (monitor.New); the screen's timeline opens
			// a run each time it goes back, so it compiles the pack once.
			var pack *rules.Pack
			if hf.rules != "" || screen {
				p, err := hf.pack()
				if err != nil {
					return err
				}
				pack = p
			}
			packets := 0
			if screen {
				packets = screenPackets
			}
			open, kind, err := replayOpener(args[0], &hf, &wf, pack, packets, screen)
			if err != nil {
				return err
			}
			if screen {
				return runReplayTUI(cmd, monitor.ModeReplay, args[0], open)
			}
			batchMemoryLimit(wf.maxFlows)
			r, err := open()
			if err != nil {
				return usageError{err}
			}
			if kind == kindBundle {
				return replayBundle(cmd, r, out.json)
			}
			return replayCapture(cmd, r, out.json)
		},
	}
	cmd.Flags().DurationVar(&hf.interval, "interval", time.Second, "timeline step for a capture; one shorter than a few seconds gets finer steps unless this is given")
	cmd.Flags().StringVar(&hf.rules, "rules", "", "directory of extra rule files (*.yaml); same ids override built-in rules")
	wf.registerAnalysis(cmd)
	out.register(cmd, "the analysis")
	cmd.Flags().StringVar(&upstream, "upstream", "", "with two captures (replay A B): A or B, the one every packet passes first, when the traffic goes one way only")
	completeNames(cmd, "upstream", fixedNames("A", "B"))
	return cmd
}

// seriesPoint is one interval of a replay in `--json`'s "series".
type seriesPoint struct {
	Seq         int            `json:"seq"`
	Time        time.Time      `json:"time"`       // the interval's end
	IntervalS   float64        `json:"interval_s"` // its length
	Packets     uint64         `json:"packets"`
	RoCEPackets uint64         `json:"roce_packets"`
	Bytes       uint64         `json:"bytes"`
	Gbps        float64        `json:"gbps"`
	Flows       uint64         `json:"flows"` // flows that moved in the interval
	Totals      capture.Totals `json:"totals"`
	// Findings that held in the interval (rule and objects).
	Findings []pointFinding `json:"findings"`
}

type pointFinding struct {
	Rule     string            `json:"rule"`
	Severity rules.Severity    `json:"severity"`
	Objects  map[string]string `json:"objects"`
}

func point(f *monitor.Frame) seriesPoint {
	p := seriesPoint{Seq: f.Seq, Time: f.Time, IntervalS: f.IntervalS, Findings: []pointFinding{}}
	if iv := f.Interval; iv != nil {
		p.IntervalS = iv.DurationSec
		p.Packets, p.RoCEPackets, p.Bytes, p.Flows, p.Totals = iv.Packets, iv.RoCEPackets, iv.Bytes, iv.Totals.Flows, iv.Totals
		if iv.DurationSec > 0 {
			p.Gbps = float64(iv.Bytes) * 8 / iv.DurationSec / 1e9
		}
	}
	for _, fd := range f.Findings {
		if !fd.Resolved && fd.LastSeen.Equal(f.Time) {
			p.Findings = append(p.Findings, pointFinding{fd.Rule, fd.Severity, fd.Objects})
		}
	}
	return p
}

// replayDoc is the rest of `rdmatop replay CAPTURE --json` after the
// series: the whole-capture analysis with the findings.
type replayDoc struct {
	*capture.Summary
	Findings []rules.Finding `json:"findings"`
	// The flow table and the anomaly log are streamed element by element
	// before the rest (100,000 flows are a hundred megabytes of JSON):
	// these shadow the Summary's fields (same JSON name, shallower, always
	// nil) to leave them out of the rest.
	Flows     *struct{} `json:"flows,omitempty"`
	Anomalies *struct{} `json:"anomalies,omitempty"`
}

// replayCapture plays a capture to its end: --json streams the series
// interval by interval, then the whole-capture analysis and the findings;
// --report prints the summary.
func replayCapture(cmd *cobra.Command, r *monitor.Run, asJSON bool) error {
	w := cmd.OutOrStdout()
	var js *jsonStream
	if asJSON {
		js = newJSONStream(w)
		js.openArray("series")
	}
	for f, err := range r.Frames(cmd.Context()) {
		if err != nil {
			break // Result says what stopped the replay
		}
		if js != nil {
			js.elem(point(&f))
		}
	}
	if err := cmd.Context().Err(); err != nil {
		return err
	}
	res := r.Result()
	if js != nil {
		js.closeArray()
		if err := writeWholeJSON(js, res); err != nil {
			return err
		}
	} else if err := printCaptureReport(w, res); err != nil {
		return err
	}
	if res.Err != nil {
		return usageError{res.Err}
	}
	return nil
}

// writeWholeJSON ends js with the whole capture's analysis: its flow
// table and anomaly log element by element, then the rest of it and the
// findings.
func writeWholeJSON(js *jsonStream, res monitor.Result) error {
	if res.Wire != nil {
		flows, anomalies := res.Wire.Flows, res.Wire.Anomalies
		js.openArray("flows")
		js.elemsOf(len(flows), func(i int) any { return &flows[i] })
		js.closeArray()
		js.openArray("anomalies")
		js.elemsOf(len(anomalies), func(i int) any { return &anomalies[i] })
		js.closeArray()
	}
	return js.rest(replayDoc{Summary: res.Wire, Findings: res.Findings})
}

// printCaptureReport prints the answer first: the capture's facts and
// verdict, then the findings, then the evidence (opcodes, flows, paths,
// the anomalies, which run to a hundred lines) and the QoS table.
func printCaptureReport(w io.Writer, res monitor.Result) error {
	if err := report.WriteHead(w, res.Wire); err != nil {
		return err
	}
	if len(res.Findings) > 0 {
		fmt.Fprintln(w, "\nfindings")
		writeFindings(w, checkResult{Findings: res.Findings})
	}
	if err := report.WriteBody(w, res.Wire, report.Options{}); err != nil {
		return err
	}
	writeQoS(w, nil, res.Wire)
	return nil
}

// replayBundle plays a recording: --json streams every tick's snapshot,
// then the series of its capture (a version 2 recording), the whole
// capture's analysis and the findings; --report tells the story.
func replayBundle(cmd *cobra.Command, r *monitor.Run, asJSON bool) error {
	w := cmd.OutOrStdout()
	tape := r.Tape().(*monitor.BundleTape)
	var js *jsonStream
	if asJSON {
		js = newJSONStream(w)
		js.field("bundle", tape.Header())
		js.openArray("snapshots")
	}
	rep := bundleStory{}
	var series []seriesPoint
	for f, err := range r.Frames(cmd.Context()) {
		if err != nil {
			break
		}
		if js != nil {
			js.elem(f.Snapshot)
		}
		if f.Interval != nil {
			series = append(series, point(&f))
		}
		rep.add(&f)
	}
	if err := cmd.Context().Err(); err != nil {
		return err
	}
	res := r.Result()
	if js != nil {
		js.closeArray()
		if series != nil {
			js.field("series", series)
		}
		if err := js.rest(bundleDoc{Truncated: tape.Truncated(), Wire: res.Wire, Findings: res.Findings,
			Rules: res.Rules}); err != nil {
			return err
		}
	} else {
		rep.write(w, tape, res)
	}
	if res.Err != nil {
		return usageError{res.Err}
	}
	if tape.Truncated() {
		// Analysed up to the cut and shown above; still a truncated
		// input (docs/cli.md): exit 2.
		return exitCode(exitUsage)
	}
	return nil
}

// bundleDoc ends the JSON of `rdmatop replay BUNDLE --json`.
type bundleDoc struct {
	Truncated bool              `json:"truncated,omitempty"` // the last tick was cut (recorder killed)
	Wire      *capture.Summary  `json:"wire,omitempty"`      // the recording's capture, whole
	Findings  []rules.Finding   `json:"findings"`
	Rules     []rules.RuleState `json:"rules"`
}

// bundleStory gathers what a recording's text report tells: its ticks,
// the last snapshot and the events (at most maxStoryEvents).
type bundleStory struct {
	ticks   int
	last    *probes.Snapshot
	events  []probes.Event
	dropped int
}

const maxStoryEvents = 1000

func (b *bundleStory) add(f *monitor.Frame) {
	b.ticks++
	if f.Snapshot == nil {
		return
	}
	b.last = f.Snapshot
	for _, e := range f.Snapshot.Events {
		if len(b.events) < maxStoryEvents {
			b.events = append(b.events, e)
		} else {
			b.dropped++
		}
	}
}

// write tells the recording's story: what it is, the findings, then the
// ports, events and sources of its last tick, its capture and QoS.
func (b *bundleStory) write(w io.Writer, tape *monitor.BundleTape, res monitor.Result) {
	h := tape.Header()
	fmt.Fprintf(w, "bundle   %s %s, recorded %s by %s, every %s, %d ticks (format version %d)\n", termtext.Sanitize(h.Host.Hostname),
		termtext.Sanitize(h.Host.Kernel), h.Created.Format("2006-01-02 15:04:05Z07:00"), termtext.Sanitize(h.Tool), h.Interval, b.ticks, h.Version)
	if tape.Truncated() {
		fmt.Fprintf(w, "note     the recording ends inside %s (the recorder was killed, or the file was cut): its last tick is left out, and nothing after it is known\n", termtext.Sanitize(tape.CutAt()))
	}
	// The answer first; what it rests on after.
	fmt.Fprintln(w, "\nfindings")
	writeFindings(w, checkResult{Findings: res.Findings, Rules: res.Rules})
	if b.last != nil {
		fmt.Fprintln(w, "\nports (last tick)")
		for _, p := range b.last.Ports {
			rate := "-"
			if p.Traffic.RxBytesPerSec != nil && p.Traffic.TxBytesPerSec != nil {
				rate = fmt.Sprintf("rx %.3f Gb/s tx %.3f Gb/s", *p.Traffic.RxBytesPerSec*8/1e9, *p.Traffic.TxBytesPerSec*8/1e9)
			}
			fmt.Fprintf(w, "  %s/%d %-6s %s/%s %s %s\n", termtext.Sanitize(p.Device), p.Port, termtext.Sanitize(p.Netdev), p.State, p.PhysState, p.Rate, rate)
		}
	}
	fmt.Fprintln(w, "\nevents")
	for _, e := range b.events {
		fmt.Fprintf(w, "  %s %-8s %-16s %s %s\n", e.Time.Format("15:04:05.000"), e.Severity, e.Kind, termtext.Sanitize(e.Device), termtext.Sanitize(e.Detail))
	}
	if len(b.events) == 0 {
		fmt.Fprintln(w, "  none")
	}
	if b.dropped > 0 {
		fmt.Fprintf(w, "  … and %d more (see --json)\n", b.dropped)
	}
	if b.last != nil {
		fmt.Fprintln(w, "\nsources (last tick)")
		for _, st := range b.last.Status {
			fmt.Fprintf(w, "  %-14s %s %s\n", termtext.Sanitize(st.Source), st.State, termtext.Sanitize(st.Detail))
		}
	}
	if res.Wire != nil {
		fmt.Fprintln(w, "\ncapture")
		report.Write(w, res.Wire, report.Options{MaxFlows: 20, MaxAnomalies: 20}) //nolint:errcheck // w's errors show on the next write
	}
	var cfg *probes.Config
	if b.last != nil {
		cfg = &b.last.Config
	}
	writeQoS(w, cfg, res.Wire)
}

// writeQoS prints the QoS table (qos.Table) of a host's settings (nil:
// none) and a capture (nil: none), when either has something to show.
func writeQoS(w io.Writer, cfg *probes.Config, wire *capture.Summary) {
	t := qos.TableOf(cfg, wire)
	if t.Empty() {
		return
	}
	fmt.Fprintln(w, "\nqos (this host's settings per priority, and the classes the captured RoCE traffic rides)")
	t.Write(w)
}
