package flight

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// Recorder is the flight recorder. A live run writes to it as to a
// recording (monitor.Recorder: WritePacket and WriteTick, from the run's
// recording goroutine), its front end shows it each Frame (Observe), and
// the operator may Trigger it. Safe for concurrent use.
//
// Nothing waits on a file: WritePacket and WriteTick keep what they are
// handed in memory and decide on incidents, and the incident writer, a
// goroutine of the recorder's own (writer.go), does every file operation
// without the lock. Observe, Trigger and Stats take the lock only for
// what they read or change in memory.
type Recorder struct {
	opt  Options
	defl deflater // ticks are deflated before the lock is taken

	mu       sync.Mutex
	ring     *ring
	active   map[string]bool // findings holding at the last Frame
	quiet    silence         // ports' traffic, for TriggerSilence
	primed   bool            // a judged Frame was seen: active is a baseline
	findings []Brief         // and those findings
	pending  []pending       // triggers not yet acted on
	jobs     []*job          // incidents decided and not yet written, oldest first
	cur      *job            // the one whose window is open: triggers extend it
	wrote    uint64          // the ring's seq the writer has written up to in jobs[0]
	// unwoken: bytes of packets kept since the writer was last woken. It
	// is woken at every tick and every wakeBytes of packets, not at every
	// packet: at 100,000 frames a second a wake per frame would cost the
	// writer a goroutine switch and a lock per frame; a MiB (a batch) is a
	// few hundred wakes a second and a lag of 1/64 of the ring.
	unwoken, wakeBytes int64
	last               time.Time // when the last incident's first trigger came
	now                time.Time // the newest tick's time: the run's clock
	stats              Stats
	closed             bool

	// The incident writer: woken by wake, stopped by quit (Close), done
	// when it has stopped. disk is its own.
	wake, quit, done chan struct{}
	disk             diskAccount
	// beforeTake, when set (tests), is called by the writer before it
	// takes each batch from the ring, without the lock; inWrite as it
	// writes a batch to the file, where a slow disk holds it.
	beforeTake, inWrite func()
}

// pending is a trigger with the findings that held at its Frame: the
// recording goroutine acts on it later, after the front end may have
// shown the recorder newer Frames.
type pending struct {
	Trigger
	findings []Brief
}

// Stats are what the recorder did, for metrics.
type Stats struct {
	// Incidents written, and triggers that came within the cooldown and
	// started none, by trigger kind (the first trigger of an incident).
	Incidents, Suppressed map[string]uint64
	// Merged counts triggers that extended an incident being written.
	Merged uint64
	// PacketsDropped: packets of an incident's window not written because
	// the incident alone reached MaxDisk. Evicted: packets let go from
	// memory for KeepPackets before Keep (the packets reach back less
	// far than Keep), or not kept because the incident writer had not
	// yet taken those they would replace. Removed: incidents removed for
	// MaxDisk.
	PacketsDropped, Evicted, Removed uint64
	// Unrecorded: frames the capture saw within the incidents written
	// that they lack (their sidecars' packets_unrecorded).
	Unrecorded uint64
	// Failures: incidents that could not be written (the directory's
	// errors: a full disk, permissions).
	Failures uint64
	// MemBytes is what the memory holds (packets and deflated ticks);
	// DiskBytes what the directory's incidents take (the recorder's
	// account: listed at the start and at each incident, kept between).
	MemBytes, DiskBytes int64
	// Writing: an incident is being written now. Incidents counts those
	// finished: the writer finishes one shortly after the tick that
	// closes its window.
	Writing bool
}

// New returns a recorder writing to opt.Dir, which must be a writable
// directory.
func New(opt Options) (*Recorder, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	st, err := os.Stat(opt.Dir)
	if err != nil {
		return nil, fmt.Errorf("flight recorder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("flight recorder: %s is not a directory", opt.Dir)
	}
	probe, err := os.CreateTemp(opt.Dir, ".tmp-rdmatop-write-test-*")
	if err != nil {
		return nil, fmt.Errorf("flight recorder: cannot write to %s: %w", opt.Dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	r := &Recorder{opt: opt, ring: newRing(opt.Keep, opt.KeepPackets), active: map[string]bool{}, quiet: silence{after: opt.Silence},
		stats: Stats{Incidents: map[string]uint64{}, Suppressed: map[string]uint64{}},
		wake:  make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}), disk: diskAccount{dir: opt.Dir},
		wakeBytes: max(min(batchBytes, opt.KeepPackets/8), 1)}
	if err := r.disk.refresh(""); err == nil {
		for _, f := range r.disk.partials() {
			r.log(fmt.Sprintf("%s is an incident cut short (rdmatop stopped while writing it): it replays up to its last tick", f))
		}
		r.stats.DiskBytes = r.disk.bytes
	}
	go r.run()
	return r, nil
}

func (r *Recorder) log(s string) {
	if r.opt.Log != nil {
		r.opt.Log("flight recorder: " + s)
	}
}

// WritePacket keeps a captured frame; the incident writer takes it from
// there when an incident is being written.
func (r *Recorder) WritePacket(ci gopacket.CaptureInfo, data []byte) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.ring.addPacket(ci, data)
	wake := false
	if len(r.jobs) > 0 {
		r.unwoken += int64(len(data))
		if wake = r.unwoken >= r.wakeBytes; wake {
			r.unwoken = 0
		}
	}
	r.mu.Unlock()
	if wake {
		r.wakeWriter()
	}
	return nil
}

// WriteTick keeps a host tick, acts on the triggers that came and closes
// the window of the incident being written when the tick reaches its
// end; the incident writer writes it.
func (r *Recorder) WriteTick(t *bundle.Tick) error {
	z, err := r.defl.deflate(t)
	if err != nil {
		return err
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.ring.addTick(t.Time.UnixNano(), t.Full, z)
	r.now = t.Time
	r.act()
	if j := r.cur; j != nil && !t.Time.Before(j.side.End) {
		j.until, r.cur = r.ring.seq, nil // this tick is its last
	}
	r.stats.MemBytes = r.ring.bytes()
	r.stats.Evicted = r.ring.evicted
	writing := len(r.jobs) > 0
	r.unwoken = 0
	r.mu.Unlock()
	if writing {
		r.wakeWriter()
	}
	return nil
}

// Observe judges a Frame for triggers. It does no I/O: the next tick
// acts on them.
func (r *Recorder) Observe(f *monitor.Frame) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	// Warm-up Frames are not judged: their findings (none) say nothing.
	judged := len(f.Rules) > 0
	ts := judge(f, r.opt.Severity, r.active, judged, judged && !r.primed)
	r.primed = r.primed || judged
	if d, since, ok := r.quiet.judge(f); ok {
		ts = append(ts, Trigger{Kind: TriggerSilence, Time: f.Time, Detail: d, Since: since})
	}
	r.findings = nil // new: a pending trigger may hold the last one
	for i := range f.Findings {
		fd := &f.Findings[i]
		if !fd.Resolved && fd.LastSeen.Equal(f.Time) {
			r.findings = append(r.findings, Brief{Rule: fd.Rule, Severity: fd.Severity, Title: fd.Title, Objects: fd.Objects})
		}
	}
	for _, t := range ts {
		r.queue(pending{t, r.findings})
	}
}

// Trigger asks for an incident now (the operator's SIGUSR1): kind
// TriggerManual, at the time of the newest tick.
func (r *Recorder) Trigger(detail string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Before the first tick the time is zero: act gives it the tick's.
	r.queue(pending{Trigger{Kind: TriggerManual, Time: r.now, Detail: detail}, r.findings})
}

// maxPending bounds the triggers waiting for a tick (a run whose ticks
// stopped coming, a signal sent in a loop): the first ones say it, the
// rest are counted as suppressed.
const maxPending = 256

// queue adds a trigger for the next tick to act on; mu is held.
func (r *Recorder) queue(p pending) {
	if len(r.pending) >= maxPending {
		r.stats.Suppressed[p.Kind]++
		return
	}
	r.pending = append(r.pending, p)
}

// act starts an incident for the first pending trigger past the cooldown,
// or adds triggers to the incident being written; mu is held. It decides
// only: the incident writer opens and writes the file.
func (r *Recorder) act() {
	for _, p := range r.pending {
		t := p.Trigger
		if t.Time.IsZero() {
			t.Time = r.now
		}
		if j := r.cur; j != nil {
			j.side.Triggers = append(j.side.Triggers, t)
			if end := t.Time.Add(r.opt.After); end.After(j.side.End) {
				j.side.End = minTime(end, j.side.Start.Add(maxIncidentSpan))
			}
			r.stats.Merged++
			continue
		}
		if !r.last.IsZero() && t.Time.Sub(r.last) < r.opt.Cooldown || len(r.jobs) >= maxJobs {
			r.stats.Suppressed[t.Kind]++
			continue
		}
		side := newSidecar(&r.opt, t, p.findings)
		j := &job{side: side, from: r.ring.start(side.Start.UnixNano()), capture: r.ring.handed > 0}
		r.jobs = append(r.jobs, j)
		if len(r.jobs) == 1 {
			r.ring.pinned, r.ring.pin = true, j.from // its past stays until the writer takes it
		}
		r.cur, r.last = j, t.Time
	}
	r.pending = r.pending[:0]
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Close ends the incident being written, if any, with what the memory
// holds up to now, and stops the incident writer once it has written it
// (at most --keep-packets of packets, when the incident was triggered
// just before).
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		<-r.done
		return nil
	}
	r.closed = true
	if j := r.cur; j != nil {
		j.until, j.early, r.cur = r.ring.seq, "rdmatop stopped", nil
	}
	r.mu.Unlock()
	close(r.quit)
	<-r.done
	r.ring.mem.release() // nothing reads the packets once the writer stopped
	return nil
}

// Stats returns a copy of the recorder's counts.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stats
	s.Writing = len(r.jobs) > 0
	s.Incidents, s.Suppressed = map[string]uint64{}, map[string]uint64{}
	for k, v := range r.stats.Incidents {
		s.Incidents[k] = v
	}
	for k, v := range r.stats.Suppressed {
		s.Suppressed[k] = v
	}
	return s
}

var _ monitor.Recorder = (*Recorder)(nil)

// State is the recorder's state in a few words, for the screen's header:
// "flight: writing", or how many incidents it wrote and how many it could
// not.
func (r *Recorder) State() string {
	s := r.Stats()
	if s.Writing {
		return "flight: writing an incident"
	}
	var n uint64
	for _, v := range s.Incidents {
		n += v
	}
	out := "flight: " + strconv.FormatUint(n, 10) + " incident"
	if n != 1 {
		out += "s"
	}
	if s.Failures > 0 {
		out += ", " + strconv.FormatUint(s.Failures, 10) + " failed"
	}
	return out
}
