package flight

import (
	"fmt"
	"slices"
	"time"
)

// The incident writer: the recorder's own goroutine, the only one that
// touches the directory after New. It opens each incident the recorder
// decided on (a job), writes the window's past from the ring and then
// what the ring keeps receiving, bounds the directory and finishes the
// incident when its window closes.
//
// Why a goroutine of its own, and not the recording goroutine outside
// the lock: the window's past is up to --keep-packets (64 MiB) of packets
// through gzip, a second or more. On the recording goroutine that second
// blocks the run's recording queue, which holds 8 MiB of frames and then
// drops them, while the ring, which the recording goroutine keeps
// filling meanwhile, holds 64 MiB: reading the ring from here, the
// recorder loses frames only when the disk is slower than the link for
// the whole of --keep-packets, and says how many (incident.tick).

// job is an incident the recorder decided on. The recorder (under mu)
// sets its sidecar's triggers and end and, when the window closes or the
// recorder does, until; the writer does everything else.
type job struct {
	side Sidecar // Trigger, Triggers, Start, End, Findings
	from uint64  // it holds the ring's items after this seq
	// capture: frames had been handed to the recorder when it was
	// decided; its ticks say what the file lacks (incident.tick).
	capture bool
	until   uint64 // and up to this one; 0 while its window is open
	early   string // why it ends before End, if it does
}

// writerState is what the writer goroutine alone holds.
type writerState struct {
	job    *job
	in     *incident // nil when job could not be opened
	cursor uint64    // the last ring seq written
	b      batch
}

// maxJobs bounds the incidents decided and not yet written (a job is its
// sidecar: a few KiB). With the cooldown at its default (5 minutes)
// there is rarely more than one; a writer that many incidents behind (a
// directory on a hung NFS server, triggers without a cooldown) would
// write them from a ring that let go of their windows long ago.
const maxJobs = 64

// run is the writer goroutine: it works whenever woken, and at Close
// writes what is left and stops.
func (r *Recorder) run() {
	defer close(r.done)
	var w writerState
	for {
		select {
		case <-r.wake:
			r.work(&w)
		case <-r.quit:
			r.work(&w) // Close closed every job: this finishes them
			return
		}
	}
}

// wakeWriter tells the writer there is work; it never blocks.
func (r *Recorder) wakeWriter() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// work writes what the ring holds for the jobs, until it has caught up
// with an open one or none is left. mu is held only to read the ring
// and the jobs and to count: never across file I/O.
func (r *Recorder) work(w *writerState) {
	for {
		r.mu.Lock()
		if len(r.jobs) == 0 {
			r.mu.Unlock()
			return
		}
		j := r.jobs[0]
		if w.job != j {
			side, capture := j.side, j.capture
			side.Triggers = slices.Clone(side.Triggers) // the recorder appends to its own
			w.job, w.cursor, w.in = j, j.from, nil
			r.wrote = j.from
			r.ring.pinned, r.ring.pin = true, j.from
			r.mu.Unlock()
			r.open(w, side, capture)
			continue
		}
		if r.beforeTake != nil {
			r.mu.Unlock()
			r.beforeTake() // a test holding the writer back, as a slow disk would
			r.mu.Lock()
		}
		until := j.until
		last := r.ring.take(w.cursor, until, &w.b)
		r.ring.pin = last // taken: the ring may let them go
		r.mu.Unlock()
		if len(w.b.items) == 0 {
			if until == 0 {
				return // caught up with an open incident: wait for more
			}
			r.finish(w) // what the ring still holds of its window is written
			continue
		}
		if err := r.writeBatch(w); err != nil {
			r.fail(w, err)
			continue
		}
		w.cursor = last
		r.mu.Lock()
		r.wrote = last
		r.mu.Unlock()
		if until != 0 && last >= until {
			r.finish(w)
		}
	}
}

// open creates the incident's file and makes room for it.
func (r *Recorder) open(w *writerState, side Sidecar, capture bool) {
	in, err := openIncident(&r.opt, side)
	if err != nil {
		r.log(fmt.Sprintf("cannot write the %s incident: %v", side.Trigger.Kind, err))
		r.mu.Lock()
		r.stats.Failures++
		r.mu.Unlock()
		r.drop(w)
		return
	}
	in.marked = capture
	w.in = in
	r.disk.refresh(in.path) //nolint:errcheck // unreadable: the account stays as it was
	r.bound(in)
}

// writeBatch writes the batch taken from the ring to the incident.
func (r *Recorder) writeBatch(w *writerState) error {
	in := w.in
	if r.inWrite != nil {
		r.inWrite() // a test holding the writer in its file I/O, as a slow disk would
	}
	for i := range w.b.items {
		it := &w.b.items[i]
		if it.z == nil {
			if err := in.packet(it.ci, w.b.buf[it.off:it.end]); err != nil {
				return err
			}
			continue
		}
		t, err := inflateTick(it.z)
		if err != nil {
			return err
		}
		if err := in.tick(t, it.handed); err != nil {
			return err
		}
		r.bound(in)
	}
	return nil
}

// bound keeps the directory within MaxDisk: the oldest other incidents
// go first; when the one being written alone reaches it, its further
// packets are dropped (counted).
func (r *Recorder) bound(in *incident) {
	size := in.w.Size() + sidecarRoom
	removed := r.disk.makeRoom(r.opt.MaxDisk, size)
	if r.opt.MaxDisk > 0 {
		in.maxSize = max(r.opt.MaxDisk-r.disk.bytes, 1) - sidecarRoom
	}
	r.mu.Lock()
	r.stats.Removed += removed
	r.stats.DiskBytes = r.disk.bytes + size
	r.mu.Unlock()
}

// sidecarRoom is room kept for an incident's sidecar (its findings and
// triggers: a few KiB).
const sidecarRoom = 16 << 10

// fail abandons the incident being written after a write error: its
// partial file stays (it replays up to its last good tick).
func (r *Recorder) fail(w *writerState, err error) {
	r.log(fmt.Sprintf("incident %s cut short: %v", w.in.path+partialExt, err))
	w.in.f.Close()
	r.mu.Lock()
	r.stats.Failures++
	r.mu.Unlock()
	r.drop(w)
}

// drop lets go of the writer's job: done, failed or never opened.
func (r *Recorder) drop(w *writerState) {
	r.mu.Lock()
	if i := slices.Index(r.jobs, w.job); i >= 0 {
		r.jobs = slices.Delete(r.jobs, i, i+1)
	}
	if r.cur == w.job {
		r.cur = nil // triggers no longer extend it
	}
	r.ring.pinned = len(r.jobs) > 0
	if r.ring.pinned {
		r.ring.pin = r.jobs[0].from
	}
	r.mu.Unlock()
	w.job, w.in = nil, nil
}

// finish ends the incident being written: its sidecar takes the
// triggers and end the recorder gave its job.
func (r *Recorder) finish(w *writerState) {
	in := w.in
	if in == nil {
		r.drop(w)
		return
	}
	r.mu.Lock()
	side := w.job.side
	side.Triggers = slices.Clone(side.Triggers)
	early := w.job.early
	r.mu.Unlock()
	side.File, side.Ticks, side.Packets, side.PacketsDropped = in.side.File, in.side.Ticks, in.side.Packets, in.side.PacketsDropped
	side.PacketsUnrecorded, side.TicksLate, side.TicksSkipped = in.side.PacketsUnrecorded, in.side.TicksLate, in.side.TicksSkipped
	in.side = side
	err := in.finish(early)
	if err != nil {
		r.log(fmt.Sprintf("incident %s: %v", in.path, err))
	}
	r.disk.refresh(in.path) //nolint:errcheck // unreadable: the account stays as it was
	removed := r.disk.makeRoom(r.opt.MaxDisk, in.side.Bytes+sidecarRoom)
	r.disk.refresh("") //nolint:errcheck // as above; now with this incident
	r.mu.Lock()
	if err != nil {
		r.stats.Failures++
	} else {
		r.stats.Incidents[side.Trigger.Kind]++
		r.stats.PacketsDropped += side.PacketsDropped
		r.stats.Unrecorded += side.PacketsUnrecorded
	}
	r.stats.Removed += removed
	r.stats.DiskBytes = r.disk.bytes
	r.mu.Unlock()
	r.drop(w)
	if err != nil {
		return
	}
	s := in.side
	r.log(fmt.Sprintf("incident %s: %s at %s (%s), %s to %s, %d ticks, %d packets, %d bytes%s%s",
		in.path, s.Trigger.Kind, s.Trigger.Time.UTC().Format(time.RFC3339), s.Trigger.Detail,
		s.Start.UTC().Format("15:04:05"), s.End.UTC().Format("15:04:05"), s.Ticks, s.Packets, s.Bytes, lossNote(s), earlyNote(early)))
}

func earlyNote(early string) string {
	if early == "" {
		return ""
	}
	return "; ended early: " + early
}

// lossNote says what the incident lacks, if anything: frames it could
// not keep, ticks the run did not keep on time.
func lossNote(s Sidecar) string {
	out := ""
	if s.PacketsUnrecorded > 0 {
		out += fmt.Sprintf(", %d captured frames not in it (capture-incomplete, not the network's loss)", s.PacketsUnrecorded)
	}
	if s.TicksLate > 0 || s.TicksSkipped > 0 {
		out += fmt.Sprintf(", %d ticks late and %d skipped (samples overran)", s.TicksLate, s.TicksSkipped)
	}
	return out
}
