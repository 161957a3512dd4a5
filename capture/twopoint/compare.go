package twopoint

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rdmatop/rdmatop/capture"
)

// Result is the comparison of two captures.
type Result struct {
	// Verdict is what the comparison says first: where packets were
	// lost, of how many flows, and the ways that lost nothing.
	Verdict string `json:"verdict"`
	A       Point  `json:"a"`
	B       Point  `json:"b"`
	Offset  Offset `json:"clock_offset"`
	// Flows are the directions of connections of the senders seen at both
	// points, with their fates between them (a flow one point lacks is
	// all lost, or all appeared); Segments the totals of each way (A to
	// B, B to A).
	Flows    []FlowFate `json:"flows"`
	Segments []Segment  `json:"segments"`
	// OneSide counts, by the point holding them, the flows of senders no
	// packet of which both points hold: which way they went is unknown.
	OneSide map[string]int `json:"flows_of_unplaced_senders,omitempty"`
}

// Point is one capture as compared.
type Point struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Packets int    `json:"roce_packets"`
	FirstTS int64  `json:"first_ns"`
	LastTS  int64  `json:"last_ns"`
	// Unchecked: packets whose ICRC could not be verified (cut by the
	// snap length): corruption cannot be told there.
	Unchecked int `json:"icrc_unverifiable,omitempty"`
}

// FlowFate is one direction of one connection between the points.
type FlowFate struct {
	Src        string `json:"src"`
	Dst        string `json:"dst"`
	DestQP     uint32 `json:"dest_qp"`
	Upstream   string `json:"upstream"`
	Downstream string `json:"downstream"`
	Fate
	Delay Delay `json:"delay_ns"`
	// Sender is what the sender did, as its upstream capture shows;
	// absent when that capture's analysis evicted the flow (its table
	// holds the 65,536 most recent).
	Sender *Sender `json:"sender,omitempty"`
}

// Delay is the one-way delay of a flow's delivered packets between the
// points, on the upstream clock (the offset's uncertainty is in it).
type Delay struct {
	Samples int   `json:"samples"`
	Min     int64 `json:"min"`
	P50     int64 `json:"p50"`
	P99     int64 `json:"p99"`
	Max     int64 `json:"max"`
}

// Segment is one way between the points: every flow going from Upstream
// to Downstream.
type Segment struct {
	Upstream   string `json:"upstream"`
	Downstream string `json:"downstream"`
	Flows      int    `json:"flows"`
	Fate
}

// ErrNothingInCommon is returned when the captures share no packet.
var ErrNothingInCommon = errors.New("the two captures share no RoCE packet: are they of the same traffic?")

// ErrSamePoint is returned when every packet is at the same time in both
// captures: they were taken at one point (or are one file twice).
var ErrSamePoint = errors.New("every packet is at the same time in both captures: they were taken at one point, and show nothing of the path")

// samePoint reports whether every packet seen at both points was seen at
// the same time.
func samePoint(senders map[[16]byte]*sender) bool {
	for _, s := range senders {
		for _, d := range s.diffs {
			if d != 0 {
				return false
			}
		}
	}
	return true
}

// Options tune a comparison; the zero value works everything out.
type Options struct {
	// Upstream, "A" or "B", says which capture every sender's packets pass
	// first, instead of working it out: for traffic one way only, where
	// nothing bounds the clock offset from the other side and the sides
	// are otherwise taken from the captures' clocks agreeing.
	Upstream string
}

// CompareFiles reads the captures at pathA and pathB and compares them.
func CompareFiles(pathA, pathB string, opts Options) (*Result, error) {
	if opts.Upstream != "" && opts.Upstream != "A" && opts.Upstream != "B" {
		return nil, fmt.Errorf("upstream %q: A or B", opts.Upstream)
	}
	// Each file is read twice: into packets to match (both at once, one
	// goroutine each), then, once those are let go, through the capture
	// analysis for what each sender did.
	var (
		pts  [2]*point
		errs [2]error
		wg   sync.WaitGroup
	)
	for i, path := range []string{pathA, pathB} {
		wg.Go(func() { pts[i], errs[i] = readPoint(string(rune('A'+i)), path) })
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err // names the file, the record and its byte offset
	}
	r, err := compare(pts[0], pts[1], opts)
	if err != nil {
		return nil, err
	}
	pts = [2]*point{}
	r.A.File, r.B.File = pathA, pathB
	by := map[string]map[summaryKey]*Sender{}
	for i, path := range []string{pathA, pathB} {
		// One at a time, each summary let go once indexed: each holds a
		// flow table of up to 65,536 flows.
		sum, _ := capture.AnalyzeFile(path, senderConfig) // read once already
		by[string(rune('A'+i))] = senders(sum)
	}
	for i := range r.Flows {
		f := &r.Flows[i]
		f.Sender = by[f.Upstream][summaryKey{f.Src, f.Dst, f.DestQP}]
	}
	return r, nil
}

// compare compares two points.
func compare(a, b *point, opts Options) (*Result, error) {
	if a.packets == 0 || b.packets == 0 {
		return nil, fmt.Errorf("%w (A holds %d, B %d)", ErrNothingInCommon, a.packets, b.packets)
	}
	senders := bothOnce(a, b)
	if len(senders) == 0 {
		// Said with each capture's span: captures of one connection
		// taken at different times share no packet either.
		return nil, fmt.Errorf("%w (A from %s to %s, B from %s to %s, each on its own clock)", ErrNothingInCommon,
			stamp(a.first), stamp(a.last), stamp(b.first), stamp(b.last))
	}
	if samePoint(senders) {
		return nil, ErrSamePoint
	}
	aFirst, off := align(senders)
	if opts.Upstream != "" {
		// As the user says: every sender on one side, the offset unknown
		// (one way only bounds it from one side).
		for s := range senders {
			aFirst[s] = opts.Upstream == "A"
		}
		off = Offset{}
	}
	if a.last+off.NS < b.first || b.last < a.first+off.NS {
		return nil, fmt.Errorf("the captures do not overlap in time: A from %d to %d ns, B from %d to %d ns on A's clock",
			a.first, a.last, b.first-off.NS, b.last-off.NS)
	}
	r := &Result{A: a.summary(), B: b.summary(), Offset: off, OneSide: map[string]int{}}
	var pairings []*pairing
	sc := &scratch{}
	strays := map[string][]orphan{} // packets of unplaced flows, by the point holding them
	for _, k := range sortedKeys(a, b) {
		pa, pb := a.flows[k], b.flows[k]
		if _, placed := senders[k.src]; !placed {
			// A sender neither point shares a packet of: a source
			// address corrupted on the way, or traffic one point
			// alone carries.
			at, ps, toOther := "A", pa, -off.NS // A's times on B's clock: + offset
			if len(pb) > 0 {
				at, ps, toOther = "B", pb, off.NS
			}
			r.OneSide[at]++
			for _, p := range ps {
				if p.doubtful() {
					strays[at] = append(strays[at], orphan{ts: p.ts - toOther, flow: -1})
				}
			}
			continue
		}
		// A flow one point lacks is all lost (the upstream one holds it)
		// or all appeared (the downstream one does).
		up, down := a, b
		p := &pairing{up: pa, down: pb, off: off.NS, slack: off.UncertaintyNS, sc: sc}
		if !aFirst[k.src] {
			up, down = b, a
			p = &pairing{up: pb, down: pa, off: -off.NS, slack: off.UncertaintyNS, sc: sc}
		}
		p.match(down.first-p.off, down.last-p.off)
		pairings = append(pairings, p)
		r.Flows = append(r.Flows, FlowFate{Src: k.addr(k.src).String(), Dst: k.addr(k.dst).String(), DestQP: k.qp,
			Upstream: up.name, Downstream: down.name})
	}
	if len(r.Flows) == 0 {
		return nil, ErrNothingInCommon
	}
	corruptedInHeaders(pairings, r.Flows, strays)
	for i, p := range pairings {
		r.Flows[i].Fate = p.fate
		r.Flows[i].Delay = delayOf(p.delays)
	}
	r.Segments = segments(r.Flows)
	r.Verdict = r.verdict()
	if len(r.OneSide) == 0 {
		r.OneSide = nil
	}
	return r, nil
}

// orphan is a downstream packet that matched nothing and may be a
// corrupted copy: its ICRC fails, or cannot be checked.
type orphan struct {
	ts   int64 // on the upstream clock
	flow int   // the flow whose downstream capture held it; -1: a flow only one point holds
}

// corruptedInHeaders pairs losses with downstream packets that matched
// nothing, in the same way and within the horizon, and whose ICRC fails
// or cannot be checked (a bit flipped in a header changes the packet's
// signature, or even its flow): those were corrupted, not lost. strays
// are the packets of flows only one point holds.
func corruptedInHeaders(ps []*pairing, flows []FlowFate, strays map[string][]orphan) {
	orphans := strays // by downstream point, by time
	for i, p := range ps {
		d := flows[i].Downstream
		for _, t := range p.orphanAt {
			orphans[d] = append(orphans[d], orphan{t, i})
		}
	}
	for _, o := range orphans {
		slices.SortFunc(o, func(x, y orphan) int { return cmpInt(x.ts, y.ts) })
	}
	for i, p := range ps {
		d := flows[i].Downstream
		o := orphans[d]
		for _, t := range p.lostAt {
			j, _ := slices.BinarySearchFunc(o, t, func(x orphan, t int64) int { return cmpInt(x.ts, t) })
			if j < len(o) && o[j].ts-t <= matchHorizon {
				if f := o[j].flow; f >= 0 {
					ps[f].fate.Appeared-- // it was this packet
				}
				o = slices.Delete(o, j, j+1)
				p.fate.Lost--
				p.fate.Corrupted++
			}
		}
		orphans[d] = o
	}
}

// delayOf summarises delays (sorted in place).
func delayOf(ds []int64) Delay {
	if len(ds) == 0 {
		return Delay{}
	}
	slices.Sort(ds)
	at := func(q float64) int64 { return ds[min(len(ds)-1, int(q*float64(len(ds))))] }
	return Delay{Samples: len(ds), Min: ds[0], P50: at(0.5), P99: at(0.99), Max: ds[len(ds)-1]}
}

// segments totals the flows by way.
func segments(flows []FlowFate) []Segment {
	var out []Segment
	for _, f := range flows {
		i := slices.IndexFunc(out, func(s Segment) bool { return s.Upstream == f.Upstream })
		if i < 0 {
			out = append(out, Segment{Upstream: f.Upstream, Downstream: f.Downstream})
			i = len(out) - 1
		}
		if f.Sent+f.Appeared+f.Duplicated > 0 {
			// Not a flow whose every packet was another flow's,
			// corrupted in its headers on the way (paired with that
			// flow's loss: corruptedInHeaders).
			out[i].Flows++
		}
		out[i].add(f.Fate)
	}
	slices.SortFunc(out, func(x, y Segment) int { return strings.Compare(x.Upstream, y.Upstream) })
	return out
}

// summary is the point's description.
func (pt *point) summary() Point {
	return Point{Name: pt.name, Packets: pt.packets, FirstTS: pt.first, LastTS: pt.last, Unchecked: pt.unchecked}
}

// sortedKeys lists the flows of both points in a fixed order.
func sortedKeys(a, b *point) []flowKey {
	seen := map[flowKey]bool{}
	var ks []flowKey
	for _, pt := range []*point{a, b} {
		for k := range pt.flows {
			if !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
	}
	slices.SortFunc(ks, func(x, y flowKey) int {
		if c := slices.Compare(x.src[:], y.src[:]); c != 0 {
			return c
		}
		if c := slices.Compare(x.dst[:], y.dst[:]); c != 0 {
			return c
		}
		return cmpInt(int64(x.qp), int64(y.qp))
	})
	return ks
}

// stamp writes a capture time for messages.
func stamp(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.000000")
}
