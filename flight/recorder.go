package flight

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// Recorder is the flight recorder. A live run writes to it as to a
// recording (monitor.Recorder: WritePacket and WriteTick, from the run's
// recording goroutine), its front end shows it each Frame (Observe), and
// the operator may Trigger it. Files are written on the recording
// goroutine, never on the front end's. Safe for concurrent use.
type Recorder struct {
	opt Options

	mu       sync.Mutex
	ring     *ring
	active   map[string]bool // findings holding at the last Frame
	quiet    silence         // ports' traffic, for TriggerSilence
	primed   bool            // a judged Frame was seen: active is a baseline
	findings []Brief         // and those findings
	pending  []pending       // triggers not yet acted on
	cur      *incident
	last     time.Time // when the last incident's first trigger came
	now      time.Time // the newest tick's time: the run's clock
	stats    Stats
	closed   bool
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
	// far than Keep). Removed: incidents removed for MaxDisk.
	PacketsDropped, Evicted, Removed uint64
	// Failures: incidents that could not be written (the directory's
	// errors: a full disk, permissions).
	Failures uint64
	// MemBytes is what the memory holds (packets and deflated ticks);
	// DiskBytes what the directory's incidents take.
	MemBytes, DiskBytes int64
	// Writing: an incident is being written now.
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
		stats: Stats{Incidents: map[string]uint64{}, Suppressed: map[string]uint64{}}}
	if old, err := listStored(opt.Dir, ""); err == nil {
		for _, s := range old {
			for _, f := range s.files {
				if strings.HasSuffix(f, partialExt) {
					r.log(fmt.Sprintf("%s is an incident cut short (rdmatop stopped while writing it): it replays up to its last tick", f))
				}
			}
			r.stats.DiskBytes += s.bytes
		}
	}
	return r, nil
}

func (r *Recorder) log(s string) {
	if r.opt.Log != nil {
		r.opt.Log("flight recorder: " + s)
	}
}

// WritePacket keeps a captured frame, and writes it to the incident being
// written, if any.
func (r *Recorder) WritePacket(ci gopacket.CaptureInfo, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.ring.addPacket(ci, data)
	if r.cur != nil {
		if err := r.cur.packet(ci, data); err != nil {
			r.fail(err)
		}
	}
	return nil
}

// WriteTick keeps a host tick, acts on the triggers that came, writes the
// tick to the incident being written and ends the incident when the tick
// reaches its window's end.
func (r *Recorder) WriteTick(t *bundle.Tick) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	if err := r.ring.addTick(t); err != nil {
		return err
	}
	r.now = t.Time
	if r.cur != nil {
		if err := r.cur.tick(t); err != nil {
			r.fail(err)
		}
	}
	r.act()
	if r.cur != nil {
		r.bound()
		if !t.Time.Before(r.cur.side.End) {
			r.finish("")
		}
	}
	r.stats.MemBytes = r.ring.bytes()
	r.stats.Evicted = r.ring.evicted
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
// or adds triggers to the incident being written; mu is held.
func (r *Recorder) act() {
	for _, p := range r.pending {
		t := p.Trigger
		if t.Time.IsZero() {
			t.Time = r.now
		}
		if in := r.cur; in != nil {
			in.side.Triggers = append(in.side.Triggers, t)
			if end := t.Time.Add(r.opt.After); end.After(in.side.End) {
				in.side.End = minTime(end, in.side.Start.Add(maxIncidentSpan))
			}
			r.stats.Merged++
			continue
		}
		if !r.last.IsZero() && t.Time.Sub(r.last) < r.opt.Cooldown {
			r.stats.Suppressed[t.Kind]++
			continue
		}
		in, err := openIncident(&r.opt, t, p.findings)
		if err != nil {
			r.stats.Failures++
			r.log(fmt.Sprintf("cannot write the %s incident: %v", t.Kind, err))
			r.last = t.Time // no retry at every tick of a full disk
			continue
		}
		r.cur, r.last = in, t.Time
		r.bound()
		if err := r.ring.replay(in.side.Start.UnixNano(), in); err != nil {
			r.fail(err)
		}
	}
	r.pending = r.pending[:0]
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// bound keeps the directory within MaxDisk: the oldest other incidents
// go first; when the one being written alone reaches it, its further
// packets are dropped (counted). mu is held.
func (r *Recorder) bound() {
	in := r.cur
	r.makeRoom(in.path, in.w.Size()+sidecarRoom)
	if r.opt.MaxDisk > 0 {
		in.maxSize = max(r.opt.MaxDisk-(r.stats.DiskBytes-in.w.Size()-sidecarRoom), 1) - sidecarRoom
	}
}

// sidecarRoom is room kept for an incident's sidecar (its findings and
// triggers: a few KiB).
const sidecarRoom = 16 << 10

// makeRoom removes the oldest incidents other than keep (a recording's
// path) until they and size bytes fit MaxDisk, and sets DiskBytes to
// what they and size take. mu is held.
func (r *Recorder) makeRoom(keep string, size int64) {
	others, err := listStored(r.opt.Dir, keep)
	if err != nil {
		return
	}
	var total int64
	for _, s := range others {
		total += s.bytes
	}
	for r.opt.MaxDisk > 0 && total+size > r.opt.MaxDisk && len(others) > 0 {
		for _, f := range others[0].files {
			os.Remove(f)
		}
		total -= others[0].bytes
		others = others[1:]
		r.stats.Removed++
	}
	r.stats.DiskBytes = total + size
}

// fail abandons the incident being written after a write error: its
// partial file stays (it replays up to its last good tick). mu is held.
func (r *Recorder) fail(err error) {
	if r.cur == nil {
		return
	}
	r.stats.Failures++
	r.log(fmt.Sprintf("incident %s cut short: %v", r.cur.path+partialExt, err))
	r.cur.f.Close()
	r.cur = nil
}

// finish ends the incident being written; mu is held.
func (r *Recorder) finish(early string) {
	in := r.cur
	r.cur = nil
	if err := in.finish(early); err != nil {
		r.stats.Failures++
		r.log(fmt.Sprintf("incident %s: %v", in.path, err))
		return
	}
	r.stats.Incidents[in.side.Trigger.Kind]++
	s := in.side
	r.log(fmt.Sprintf("incident %s: %s at %s (%s), %s to %s, %d ticks, %d packets, %d bytes%s",
		in.path, s.Trigger.Kind, s.Trigger.Time.UTC().Format(time.RFC3339), s.Trigger.Detail,
		s.Start.UTC().Format("15:04:05"), s.End.UTC().Format("15:04:05"), s.Ticks, s.Packets, s.Bytes, earlyNote(early)))
	r.stats.PacketsDropped += s.PacketsDropped
	r.makeRoom(in.path, s.Bytes+sidecarRoom) // its final size now known
}

func earlyNote(early string) string {
	if early == "" {
		return ""
	}
	return "; ended early: " + early
}

// Close ends the incident being written, if any, with what it has.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.cur != nil {
		r.finish("rdmatop stopped")
	}
	r.ring.mem.release() // nothing reads the packets once closed
	return nil
}

// Stats returns a copy of the recorder's counts.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stats
	s.Writing = r.cur != nil
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
