package monitor

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

// wireState is the run's capture analysis. Live, a pump goroutine feeds it
// while ticks cut it: mu guards the analyzer and the recorder, so a tick
// sees every packet analysed before it and the recording holds packets and
// ticks in the order they were analysed.
//
// A capture on several rings of a fanout group (Config.Fanout) has one
// analysis shard per ring: a is the first ring's, more the others', each
// fed by its own pump under its own lock; a tick cuts them one after the
// other and merges them (capture.MergeSummaries). The kernel splits the
// frames by host pair, so every connection is in one shard.
type wireState struct {
	mu sync.Mutex
	a  *capture.Analyzer
	// rec writes the recording (live, with Config.Recorder) on its own
	// goroutine; its first failure stops the run.
	rec *recordQueue

	name   string // the live interface
	live   bool
	stats  WireStats
	status probes.Status
	drops  uint64 // kernel drops at the last cut
	// dropsTotal is every ring's kernel drops at the last cut, for the
	// recording's capture state.
	dropsTotal uint64
	// link is the captured interface's state (live).
	link linkWatch
	// stream follows a wire read from a capture stream (live).
	stream streamWatch
	// stopped is why the live capture's source stopped (nil: it has not):
	// the end of a stream, or a failure.
	stopped error

	more []*wireShard
	// views are the running analyses of a and of more's shards, kept
	// from tick to tick by the run's goroutine (finish).
	views []capture.RunningView
}

// wireShard is the analysis of one more ring of a fanout group.
type wireShard struct {
	mu    sync.Mutex
	a     *capture.Analyzer
	stats WireStats
	drops uint64 // kernel drops at the last cut
}

func newWireState(cfg capture.Config) *wireState {
	a := capture.NewAnalyzer(cfg)
	a.Begin(0) // cut into intervals from the first packet; live sets the start
	return &wireState{a: a}
}

// shardConfig is shard i of n's analysis: flow IDs and packet numbers
// that do not clash, and an n-th of the flow table and the anomaly log.
func shardConfig(cfg capture.Config, i, n int) capture.Config {
	cfg.Shard, cfg.Shards = i, n
	flows, anomalies := cfg.MaxFlows, cfg.MaxAnomalies
	if flows == 0 {
		flows = capture.DefaultMaxFlows
	}
	if anomalies == 0 {
		anomalies = capture.DefaultMaxAnomalies
	}
	cfg.MaxFlows, cfg.MaxAnomalies = (flows+n-1)/n, (anomalies+n-1)/n
	return cfg
}

// packet analyses one frame and records it; mu is held.
func (w *wireState) packet(data []byte, ci gopacket.CaptureInfo, link layers.LinkType) {
	w.a.Packet(data, ci, link)
	if w.rec != nil {
		w.rec.packet(ci, data)
	}
}

// replayed analyses a packet of a tape, decoded ahead if the tape did.
func (w *wireState) replayed(rec *Record) {
	if rec.Decoded == nil {
		w.packet(rec.Data, rec.CI, rec.Link)
		return
	}
	w.a.PacketDecoded(rec.Data, rec.CI, rec.Decoded)
	if w.rec != nil {
		w.rec.packet(rec.CI, rec.Data)
	}
}

// wireCut is one tick's cut of the capture: taken under the analyses'
// locks (cut: O(flows that moved)), made into the Frame's summaries
// outside them (finish: ranking every flow of the running analysis, and
// merging shards), so the packet readers wait only for the first part.
type wireCut struct {
	ivs       []*capture.Summary       // the interval of each shard
	updates   []*capture.RunningUpdate // of each shard; nil: intervals only
	recent    []capture.PacketLine
	packets   int
	ringTotal []uint64
	ringIv    []uint64
	ringsOK   bool
	// blind is how long the capture could not see in the interval (its
	// link was down), blindTotal since it opened; linkDown why, when it
	// still is.
	blind, blindTotal time.Duration
	linkDown          string
	// taped is what a recording's tick says the capture missed in the
	// interval, and since the file began (replay).
	taped, tapedTotal *captureLoss
}

// cut ends the interval at end (Unix ns) and takes what the tick's Frame
// needs: the interval's analysis, what changed in the running analysis
// (unless intervalsOnly), up to packets recent packets; mu is held.
func (w *wireState) cut(end int64, packets int, intervalsOnly bool) *wireCut {
	c := &wireCut{packets: packets}
	take := func(a *capture.Analyzer) {
		if !intervalsOnly {
			c.updates = append(c.updates, a.RunningUpdate()) // before Cut: it reads the interval's moves
		}
		c.ivs = append(c.ivs, a.Cut(end))
		if packets > 0 {
			c.recent = append(c.recent, a.Tracker().Recent(0, packets)...)
		}
	}
	take(w.a)
	c.ringTotal, c.ringIv, c.ringsOK = ringDrops(&w.drops, w.stats)
	for _, sh := range w.more {
		sh.mu.Lock()
		take(sh.a)
		t, d, ok := ringDrops(&sh.drops, sh.stats)
		sh.mu.Unlock()
		c.ringTotal, c.ringIv, c.ringsOK = append(c.ringTotal, t...), append(c.ringIv, d...), c.ringsOK && ok
	}
	if c.ringsOK {
		w.dropsTotal = 0
		for _, d := range c.ringTotal {
			w.dropsTotal += d
		}
	}
	return c
}

// finish returns the running analysis (nil with intervals only), the
// interval's and the recent packets of c. It runs on the run's goroutine,
// without the analyses' locks: the running views are the run's.
func (w *wireState) finish(c *wireCut) (cum, iv *capture.Summary, recent []capture.PacketLine) {
	if len(w.views) < len(c.updates) {
		w.views = make([]capture.RunningView, len(c.updates))
	}
	var cums []*capture.Summary
	for i, u := range c.updates {
		cums = append(cums, w.views[i].Apply(u))
	}
	iv, recent = c.ivs[0], c.recent
	if len(cums) > 0 {
		cum = cums[0]
	}
	if len(c.ivs) > 1 {
		iv = capture.MergeSummaries(c.ivs...)
		if cum != nil {
			cum = capture.MergeSummaries(cums...)
		}
		slices.SortStableFunc(recent, func(a, b capture.PacketLine) int { return cmp.Compare(a.TS, b.TS) })
		recent = recent[max(0, len(recent)-c.packets):]
		if c.ringsOK {
			iv.RingDrops = c.ringIv
			if cum != nil {
				cum.RingDrops = c.ringTotal
			}
		}
	}
	if c.ringsOK {
		var total, d uint64
		for i := range c.ringTotal {
			total, d = total+c.ringTotal[i], d+c.ringIv[i]
		}
		iv.KernelDrops = &d
		if cum != nil {
			cum.KernelDrops = &total
		}
	}
	iv.BlindS, iv.LinkDown = c.blind.Seconds(), c.linkDown
	if cum != nil {
		cum.BlindS, cum.LinkDown = c.blindTotal.Seconds(), c.linkDown
	}
	c.taped.apply(iv)
	if cum != nil {
		c.tapedTotal.apply(cum)
	}
	if cum != nil {
		w.describe(cum)
	}
	w.describe(iv)
	return cum, iv, recent
}

// ringDrops reads one ring's kernel drops: since the capture began, and
// since the last cut (last is updated).
func ringDrops(last *uint64, stats WireStats) (total, iv []uint64, ok bool) {
	if stats == nil {
		return nil, nil, false
	}
	st, err := stats.Stats()
	if err != nil {
		return nil, nil, false
	}
	d := st.Drops - min(*last, st.Drops)
	*last = st.Drops
	return []uint64{st.Drops}, []uint64{d}, true
}

// whole returns the analysis of everything captured; mu is held.
func (w *wireState) whole() *capture.Summary {
	s := w.a.Summary()
	stats := []WireStats{w.stats}
	if len(w.more) > 0 {
		parts := []*capture.Summary{s}
		for _, sh := range w.more {
			sh.mu.Lock()
			parts = append(parts, sh.a.Summary())
			sh.mu.Unlock()
			stats = append(stats, sh.stats)
		}
		s = capture.MergeSummaries(parts...)
	}
	if w.live {
		// As of the last cut: the run's clock is not read here.
		s.BlindS, s.LinkDown = w.link.totalAt(w.link.cut).Seconds(), w.link.why
	}
	var total uint64
	var rings []uint64
	for _, st := range stats {
		if st == nil {
			return s
		}
		v, err := st.Stats()
		if err != nil {
			return s
		}
		total += v.Drops
		rings = append(rings, v.Drops)
	}
	s.KernelDrops = &total
	if len(rings) > 1 {
		s.RingDrops = rings
	}
	return s
}

// describe labels a live analysis with its interface.
func (w *wireState) describe(s *capture.Summary) {
	switch {
	case !w.live:
	case w.stream.name != "":
		w.stream.describe(s)
	default:
		s.File, s.Format, s.LinkType, s.Interface = w.name, "live", "ethernet", w.name
	}
}
