package monitor

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// BundleTape plays an rdmatop recording: each host tick goes through the
// same parsers as a live host (sampler.ReplaySources), and the packets of
// a version 2 recording come in the order the live run analysed them, so
// a recording replays to what the live run saw.
type BundleTape struct {
	path    string
	f       *os.File
	r       *bundle.Reader
	s       *sampler.Sampler
	scratch string
	ticks   int
	n       int // records read
	// unwatch stops closing f when the first Next's context ends (a pipe
	// only; see Next); watched says the file was looked at.
	unwatch func() bool
	watched bool
}

// OpenBundle opens a recording.
func OpenBundle(path string) (*BundleTape, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := bundle.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Recorded /proc files are materialised here for procfs, one tick at a
	// time.
	scratch, err := os.MkdirTemp("", "rdmatop-replay-")
	if err != nil {
		f.Close()
		return nil, err
	}
	return &BundleTape{path: path, f: f, r: r, scratch: scratch}, nil
}

// Header returns the recording's header.
func (t *BundleTape) Header() bundle.Header { return t.r.Header }

// Truncated reports whether the recording's last tick was cut (the
// recorder was killed while writing it).
func (t *BundleTape) Truncated() bool { return t.r.Truncated }

// CutAt says where a truncated recording ends ("" when it is whole).
func (t *BundleTape) CutAt() string { return t.r.CutAt }

// HostTicks: Frames are cut at the recorded ticks.
func (t *BundleTape) HostTicks() bool { return true }

// Next returns the next recorded packet, or tick as a snapshot.
func (t *BundleTape) Next(ctx context.Context) (Record, error) {
	if t.n++; t.n%ctxEvery == 0 {
		if err := ctx.Err(); err != nil {
			return Record{}, err
		}
	}
	if !t.watched {
		t.watched = true
		// A read of a pipe whose writer went quiet blocks until the file
		// is closed; a regular file's read always returns.
		if st, err := t.f.Stat(); err == nil && !st.Mode().IsRegular() {
			t.unwatch = context.AfterFunc(ctx, func() { t.f.Close() })
		}
	}
	rec, err := t.r.ReadRecord()
	if err == io.EOF {
		return Record{}, io.EOF
	}
	if err != nil {
		if ctx.Err() != nil {
			return Record{}, ctx.Err()
		}
		return Record{}, fmt.Errorf("%s: %w", t.path, err)
	}
	if p := rec.Packet; p != nil {
		return Record{Data: p.Data, CI: p.CI, Link: p.Link}, nil
	}
	tick := rec.Tick
	t.ticks++
	dir := filepath.Join(t.scratch, strconv.Itoa(t.ticks))
	defer os.RemoveAll(dir)
	src, err := sampler.ReplaySources(tick, t.r.Header.Host.Order(), "bundle "+t.path, dir)
	if err != nil {
		return Record{}, fmt.Errorf("%s tick %d: %w", t.path, t.ticks, err)
	}
	src.Status = tick.Status
	src.Host = probes.HostInfo{Hostname: t.r.Header.Host.Hostname, Kernel: t.r.Header.Host.Kernel}
	if t.s == nil {
		t.s = sampler.New(src, selection(t.r.Header.Selection))
	} else {
		t.s.SetSources(src)
	}
	snap := t.s.Sample(ctx, tick.Time)
	return Record{Snapshot: snap, Time: tick.Time, Capture: tick.Capture, Skipped: tick.Skipped, LateS: tick.LateS}, nil
}

// Close closes the file and removes the scratch directory.
func (t *BundleTape) Close() error {
	os.RemoveAll(t.scratch)
	if t.unwatch != nil && !t.unwatch() {
		return nil // the context has closed the file
	}
	return t.f.Close()
}

// Progress returns the bytes of the file read so far and its size.
func (t *BundleTape) Progress() (done, total int64) {
	if st, err := t.f.Stat(); err == nil {
		total = st.Size()
	}
	done, _ = t.f.Seek(0, io.SeekCurrent)
	return done, total
}

// Describe names the recording in the analysis of its packets: the
// interface it captured (its -i) when known, else the file.
func (t *BundleTape) Describe(s *capture.Summary) {
	s.File, s.Format, s.LinkType = t.path, "rdmatop bundle (pcapng)", "ethernet"
	s.Snaplen = t.r.SnapLen()
	if o := selection(t.r.Header.Selection); o.Netdev != "" {
		s.File, s.Interface = o.Netdev, o.Netdev
	}
}

// selection turns a recording's "-i NETDEV" or "-d DEV" back into the
// sampler's options, so that a replay shows what the recorder selected.
func selection(sel string) sampler.Options {
	var o sampler.Options
	switch f := strings.Fields(sel); {
	case len(f) == 2 && f[0] == "-i":
		o.Netdev = f[1]
	case len(f) == 2 && f[0] == "-d":
		o.Device = f[1]
	}
	return o
}
