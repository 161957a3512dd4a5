package flight

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/rules"
)

// File names in the directory: NAME.pcapng.gz, while written
// NAME.pcapng.gz.partial, and its sidecar NAME.json.
const (
	namePrefix   = "rdmatop-incident-"
	recordingExt = ".pcapng.gz"
	partialExt   = ".partial"
	sidecarExt   = ".json"
)

// Sidecar is the JSON written beside an incident recording.
type Sidecar struct {
	File     string    `json:"file"`
	Trigger  Trigger   `json:"trigger"`  // the first
	Triggers []Trigger `json:"triggers"` // every one it holds, in order
	// Start and End are the window asked for: Before the first trigger
	// (before what it began, Trigger.Since) to After the last (an incident
	// that reached maxIncidentSpan ends there).
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// EndedEarly says why the recording stops before End, if it does.
	EndedEarly string `json:"ended_early,omitempty"`
	// Findings held when the first trigger came, most severe first.
	Findings []Brief     `json:"findings"`
	Host     bundle.Host `json:"host"`
	Tool     string      `json:"tool"`
	Ticks    uint64      `json:"ticks"`
	Packets  uint64      `json:"packets"`
	// PacketsDropped were in the window but not written: the incident
	// alone reached --max-disk.
	PacketsDropped uint64 `json:"packets_dropped"`
	// PacketsUnrecorded are the frames the capture saw within the
	// recording's ticks that it lacks, what a replay of it counts as
	// capture-incomplete: those dropped for --max-disk, those the memory
	// let go before the recorder wrote them (the disk fell behind a busy
	// link) and those the run's recording queue dropped.
	PacketsUnrecorded uint64 `json:"packets_unrecorded"`
	// TicksLate and TicksSkipped say how the live run kept time in the
	// window: the ticks that started late (a sample overran) and the
	// whole intervals lost.
	TicksLate    uint64 `json:"ticks_late"`
	TicksSkipped uint64 `json:"ticks_skipped"`
	Bytes        int64  `json:"bytes"`
}

// Brief is a finding as the sidecar lists it.
type Brief struct {
	Rule     string            `json:"rule"`
	Severity rules.Severity    `json:"severity"`
	Title    string            `json:"title"`
	Objects  map[string]string `json:"objects,omitempty"`
}

// incident is a recording being written, by the incident writer alone.
type incident struct {
	side    Sidecar // its counts; the recorder's job has its triggers and end
	path    string  // the final name; the file is path+partialExt until done
	f       *os.File
	w       *bundle.PcapngWriter
	maxSize int64 // bytes the recording may reach (--max-disk); 0: no bound
	// unflushed: bytes of packets handed to w since its last flush
	unflushed int64

	// What the file lacks of the frames the capture saw (see tick):
	// ticked says a tick was written, handed is the ring's frame count at
	// it, written the frames written since; missing is the running count
	// of frames missed, marked says the ticks carry it, said that one did
	// (firstUnrec is then its count: the baseline).
	ticked, marked, said  bool
	handed, written       uint64
	missing               uint64
	firstUnrec, lastUnrec uint64 // the ticks' Capture.Unrecorded, first and last written
}

// newSidecar is the sidecar of an incident triggered by t, with findings
// fs (most severe first, as check lists them).
func newSidecar(o *Options, t Trigger, fs []Brief) Sidecar {
	side := Sidecar{Trigger: t, Triggers: []Trigger{t}, Start: t.began().Add(-o.Before), End: t.Time.Add(o.After),
		Findings: slices.Clone(fs), Host: o.Header.Host, Tool: o.Header.Tool}
	if side.Findings == nil {
		side.Findings = []Brief{}
	}
	slices.SortStableFunc(side.Findings, func(a, b Brief) int { return b.Severity.Rank() - a.Severity.Rank() })
	return side
}

// openIncident creates the partial recording of the incident side
// describes.
func openIncident(o *Options, side Sidecar) (*incident, error) {
	t := side.Trigger
	base := namePrefix + t.Time.UTC().Format("20060102T150405Z") + "-" + t.Kind
	var f *os.File
	var path string
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		path = filepath.Join(o.Dir, name+recordingExt)
		var err error
		f, err = os.OpenFile(path+partialExt, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			if _, err := os.Stat(path); err == nil {
				f.Close()
				os.Remove(path + partialExt)
				continue
			}
			break
		}
		if !errors.Is(err, os.ErrExist) || n == 100 {
			return nil, err
		}
	}
	h := o.Header
	h.Created = t.Time.UTC()
	opt := o.Pcapng
	opt.Gzip = true
	w, err := bundle.NewPcapngWriter(f, h, opt)
	if err != nil {
		f.Close()
		os.Remove(path + partialExt)
		return nil, err
	}
	side.File = filepath.Base(path)
	return &incident{path: path, f: f, w: w, side: side}, nil
}

// packet writes a frame unless the recording would pass maxSize: its
// file's size counts only what was flushed, so the frames since then count
// at their full size (gzip makes them smaller: the bound holds).
func (in *incident) packet(ci gopacket.CaptureInfo, data []byte) error {
	n := int64(len(data)) + epbBytes
	if in.maxSize > 0 && in.w.Size()+in.unflushed+n > in.maxSize {
		in.side.PacketsDropped++
		return nil
	}
	if err := in.w.WritePacket(ci, data); err != nil {
		return err
	}
	in.unflushed += n
	in.side.Packets++
	in.written++
	return nil
}

// epbBytes is what pcapng adds to a packet: an enhanced packet block's
// header, trailer and padding.
const epbBytes = 32 + 3

// tick writes t and flushes it, with the packets before it, to the file.
// A tick is always written, the bound notwithstanding: without it the
// packets before it replay in no interval. handed is the count of frames
// the ring had been handed before t.
//
// The frames handed since the tick before that the file lacks (the ring
// let them go before the writer reached them, or --max-disk cut them)
// are added to t's running Capture.Unrecorded, so that a replay of the
// incident reads the hole as the capture's (capture-incomplete), never
// as the network's loss. A tick without a CaptureState gets one when a
// capture runs: frames were handed to the recorder before the incident
// was decided (marked is set then) or before the tick. Every tick from
// the first on then says, since the first tick that says is a replay's
// baseline, and a baseline that already counts a loss would hide it. (A
// live run with a capture gives every tick its CaptureState anyway.)
func (in *incident) tick(t *bundle.Tick, handed uint64) error {
	if in.ticked && handed-in.handed > in.written {
		in.missing += handed - in.handed - in.written
	}
	in.ticked, in.handed, in.written = true, handed, 0
	if t.Capture == nil && (handed > 0 || in.marked) {
		t.Capture = &bundle.CaptureState{}
	}
	if c := t.Capture; c != nil {
		c.Unrecorded += in.missing
		if !in.said {
			in.firstUnrec = c.Unrecorded
		}
		in.marked, in.said, in.lastUnrec = true, true, c.Unrecorded
		in.side.PacketsUnrecorded = in.lastUnrec - min(in.firstUnrec, in.lastUnrec)
	}
	if t.LateS > 0 {
		in.side.TicksLate++
	}
	in.side.TicksSkipped += uint64(max(t.Skipped, 0))
	if err := in.w.WriteTick(t); err != nil {
		return err
	}
	in.unflushed = 0
	in.side.Ticks++
	return nil
}

// finish closes the recording, gives it its final name and writes the
// sidecar beside it; each is synced before it is renamed.
func (in *incident) finish(early string) error {
	in.side.EndedEarly = early
	err := in.w.Close()
	if e := in.f.Sync(); err == nil {
		err = e
	}
	if e := in.f.Close(); err == nil {
		err = e
	}
	in.side.Bytes = in.w.Size()
	if err != nil {
		return err // the partial file stays: it replays up to its last tick
	}
	if err := os.Rename(in.path+partialExt, in.path); err != nil {
		return err
	}
	b, err := json.MarshalIndent(in.side, "", "  ")
	if err != nil {
		return err
	}
	side := strings.TrimSuffix(in.path, recordingExt) + sidecarExt
	if err := writeFileSynced(side, append(b, '\n')); err != nil {
		return err
	}
	return syncDir(filepath.Dir(in.path))
}

// writeFileSynced writes b to path through a temporary file, synced and
// renamed: a crash leaves the old file or the new, never half of one.
func writeFileSynced(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if e := f.Chmod(0o644); err == nil {
		err = e // as the recording beside it (CreateTemp makes 0600)
	}
	if e := f.Sync(); err == nil {
		err = e
	}
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// stored is an incident in the directory: its files and their bytes.
type stored struct {
	name  string   // NAME, without extension
	files []string // paths
	bytes int64
}

// listStored returns the incidents in dir, oldest first (their names
// start with the trigger's time), except the one at skip (a path).
func listStored(dir, skip string) ([]stored, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	by := map[string]*stored{}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, namePrefix) || e.IsDir() {
			continue
		}
		base := n
		for _, ext := range []string{partialExt, recordingExt, sidecarExt} {
			base = strings.TrimSuffix(base, ext)
		}
		if filepath.Join(dir, base+recordingExt) == skip {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		s := by[base]
		if s == nil {
			s = &stored{name: base}
			by[base] = s
		}
		s.files = append(s.files, filepath.Join(dir, n))
		s.bytes += info.Size()
	}
	out := make([]stored, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b stored) int { return strings.Compare(a.name, b.name) })
	return out, nil
}
