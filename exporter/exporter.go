package exporter

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rdmatop/rdmatop/internal/buildinfo"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/rules"
)

// Options configure an Exporter.
type Options struct {
	// Pack is the rule pack the run uses: rdmatop_rule_info lists its
	// rules (their titles, for dashboards and alerts).
	Pack *rules.Pack
	// Build is what this binary is (rdmatop_build_info).
	Build buildinfo.Info
	// PerQP exports one rdmatop_qp_info series per QP, at most MaxQPs
	// (0: DefaultMaxQPs; never more than HardMaxQPs); the QPs beyond are
	// counted in rdmatop_qp_series_dropped.
	PerQP  bool
	MaxQPs int
	// Stale is how many Frames a series survives without news before it
	// is dropped (0: DefaultStale): a port or counter that vanished.
	Stale int
	// Now is the wall clock that stamps a Frame's receipt
	// (rdmatop_frame_received_timestamp_seconds, the health endpoints);
	// time.Now when nil.
	Now func() time.Time
}

// Bounds of the per-QP series and of a series' life without news.
const (
	DefaultMaxQPs = 1000
	HardMaxQPs    = 10000
	DefaultStale  = 60
)

// Exporter is a prometheus.Collector of the newest Frame's metrics. Update
// must be called from one goroutine; Collect from any number.
type Exporter struct {
	opts Options

	mu      sync.RWMutex
	metrics []prometheus.Metric // built by the last Update, read-only
	last    time.Time           // the last Frame's time
	updated time.Time           // wall clock of the last Update (for /livez, /readyz)
	frames  uint64
	// unchecked: the newest Frame had nothing to judge (Frame.Checked).
	unchecked   bool
	everChecked bool
	// finished: the run ended (a replay played to its end); the newest
	// Frame is served as it was, and /readyz says so.
	finished bool

	// Update's own state.
	gen        uint64
	acc        map[string]*series
	descs      map[string]*prometheus.Desc
	eventKinds map[eventKind]bool // bounded by maxEventKinds
	natives    map[string]string  // canonical base name → native names, for help
}

// eventKind is one series of rdmatop_events_total.
type eventKind struct{ source, kind, sev string }

// maxEventKinds bounds rdmatop_events_total's series (kinds come from a
// fixed list; the bound guards against a source that invents them).
const maxEventKinds = 200

// series is one counter's running value.
type series struct {
	v    float64
	seen uint64 // generation of the last Frame that had it
}

// New returns an Exporter.
func New(o Options) *Exporter {
	if o.MaxQPs <= 0 {
		o.MaxQPs = DefaultMaxQPs
	}
	o.MaxQPs = min(o.MaxQPs, HardMaxQPs)
	if o.Stale <= 0 {
		o.Stale = DefaultStale
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Exporter{opts: o, acc: map[string]*series{}, descs: map[string]*prometheus.Desc{},
		eventKinds: map[eventKind]bool{}, natives: nativeNames()}
}

// Update builds the metrics of f, the run's next Frame, and makes them the
// ones scrapes see.
func (e *Exporter) Update(f monitor.Frame) {
	e.gen++
	now := e.opts.Now()
	b := &builder{e: e, out: make([]prometheus.Metric, 0, len(e.metrics)+64), received: now}
	b.frame(&f)
	// Counters of objects gone for a while are forgotten (and the map
	// stays bounded over a run of days).
	for k, s := range e.acc {
		if e.gen-s.seen > uint64(e.opts.Stale) {
			delete(e.acc, k)
		}
	}
	e.mu.Lock()
	e.metrics, e.last, e.updated = b.out, f.Time, now
	e.frames++
	// Live, the newest Frame decides (a device that vanished is nothing
	// to check); a replay has been checked once any Frame of it was (a
	// capture's quiet intervals hold no packet).
	e.everChecked = e.everChecked || f.Checked()
	e.unchecked = !f.Checked()
	if f.Mode != monitor.ModeLive {
		e.unchecked = !e.everChecked
	}
	e.mu.Unlock()
}

// Describe sends no descriptions: the metric set follows the host (its
// counters, ports and priorities), so the Exporter is an unchecked
// collector.
func (e *Exporter) Describe(chan<- *prometheus.Desc) {}

// Collect sends the metrics of the newest Frame.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.RLock()
	ms := e.metrics
	e.mu.RUnlock()
	for _, m := range ms {
		ch <- m
	}
}

// Health says whether Frames are coming: the number seen and the wall
// clock of the last one.
func (e *Exporter) Health() (frames uint64, last time.Time) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.frames, e.updated
}

// Finish says that the run ended (a replay played to its end): no Frame
// will come; the newest stays served.
func (e *Exporter) Finish() {
	e.mu.Lock()
	e.finished = true
	e.mu.Unlock()
}

// Finished reports whether Finish was called.
func (e *Exporter) Finished() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.finished
}

// Unchecked reports that the newest Frame had nothing to judge RDMA
// health on (no RDMA port, no RoCE captured: monitor.Frame.Checked).
func (e *Exporter) Unchecked() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.unchecked
}

// desc returns the cached description of a metric.
func (e *Exporter) desc(name, help string, labels ...string) *prometheus.Desc {
	if d, ok := e.descs[name]; ok {
		return d
	}
	d := prometheus.NewDesc(name, help, labels, nil)
	e.descs[name] = d
	return d
}
