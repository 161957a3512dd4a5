package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
)

// isBundleFile reports whether path holds an rdmatop bundle (plain or gzip).
func isBundleFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return false
		}
		r = gz
	}
	head := make([]byte, 64)
	n, _ := io.ReadFull(r, head)
	return bundle.IsBundle(head[:n])
}

// bundleReplay is the JSON of `rdmatop replay BUNDLE --json`.
type bundleReplay struct {
	Bundle    bundle.Header      `json:"bundle"`
	Truncated bool               `json:"truncated,omitempty"` // the last tick was cut (recorder killed)
	Snapshots []*probes.Snapshot `json:"snapshots"`
}

// replayBundle plays a bundle through the same parsers as a live host.
func replayBundle(ctx context.Context, w io.Writer, path string, asJSON bool) error {
	out := bundleReplay{Snapshots: []*probes.Snapshot{}}
	hdr, truncated, readErr := playBundle(ctx, path, func(_ int, snap *probes.Snapshot) {
		out.Snapshots = append(out.Snapshots, snap)
	})
	if readErr != nil && len(out.Snapshots) == 0 && hdr.Format == "" {
		return readErr
	}
	out.Bundle, out.Truncated = hdr, truncated
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
		return readErr
	}
	writeBundleReport(w, &out)
	return readErr
}

// playBundle replays a bundle tick by tick through the host probes'
// parsers and hands each snapshot to fn. It returns the bundle's header,
// whether its last tick was cut, and the first read error; snapshots
// before an error have been handed over.
func playBundle(ctx context.Context, path string, fn func(i int, snap *probes.Snapshot)) (bundle.Header, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return bundle.Header{}, false, err
	}
	defer f.Close()
	r, err := bundle.NewReader(f)
	if err != nil {
		return bundle.Header{}, false, fmt.Errorf("%s: %w", path, err)
	}
	scratch, err := os.MkdirTemp("", "rdmatop-replay-")
	if err != nil {
		return r.Header, false, err
	}
	defer os.RemoveAll(scratch)
	var s *sampler.Sampler
	for i := 0; ; i++ {
		tick, err := r.Next()
		if err == io.EOF {
			return r.Header, r.Truncated, nil
		}
		if err != nil {
			return r.Header, r.Truncated, fmt.Errorf("%s: %w", path, err)
		}
		src, err := sampler.ReplaySources(tick, "bundle "+path, fmt.Sprintf("%s/%d", scratch, i))
		if err != nil {
			return r.Header, r.Truncated, fmt.Errorf("%s tick %d: %w", path, i+1, err)
		}
		src.Status = tick.Status
		src.Host = probes.HostInfo{Hostname: r.Header.Host.Hostname, Kernel: r.Header.Host.Kernel}
		if s == nil {
			s = sampler.New(src, sampler.Options{})
		} else {
			s.SetSources(src)
		}
		fn(i, s.Sample(ctx, tick.Time))
	}
}

func writeBundleReport(w io.Writer, b *bundleReplay) {
	fmt.Fprintf(w, "bundle   %s %s, recorded %s by %s, every %s, %d ticks\n", sanitize(b.Bundle.Host.Hostname),
		sanitize(b.Bundle.Host.Kernel), b.Bundle.Created.Format("2006-01-02 15:04:05Z07:00"), sanitize(b.Bundle.Tool), b.Bundle.Interval, len(b.Snapshots))
	if b.Truncated {
		fmt.Fprintln(w, "note     the last tick was cut short (the recorder was killed); it is left out")
	}
	if len(b.Snapshots) == 0 {
		return
	}
	last := b.Snapshots[len(b.Snapshots)-1]
	fmt.Fprintln(w, "\nports (last tick)")
	for _, p := range last.Ports {
		rate := "-"
		if p.Traffic.RxBytesPerSec != nil && p.Traffic.TxBytesPerSec != nil {
			rate = fmt.Sprintf("rx %.3f Gb/s tx %.3f Gb/s", *p.Traffic.RxBytesPerSec*8/1e9, *p.Traffic.TxBytesPerSec*8/1e9)
		}
		fmt.Fprintf(w, "  %s/%d %-6s %s/%s %s %s\n", sanitize(p.Device), p.Port, sanitize(p.Netdev), p.State, p.PhysState, p.Rate, rate)
	}
	fmt.Fprintln(w, "\nevents")
	n := 0
	for _, s := range b.Snapshots {
		for _, e := range s.Events {
			n++
			fmt.Fprintf(w, "  %s %-8s %-16s %s %s\n", e.Time.Format("15:04:05.000"), e.Severity, e.Kind, sanitize(e.Device), sanitize(e.Detail))
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "  none")
	}
	fmt.Fprintln(w, "\nsources (last tick)")
	for _, st := range last.Status {
		fmt.Fprintf(w, "  %-14s %s %s\n", st.Source, st.State, sanitize(st.Detail))
	}
}

// sanitize makes outside strings safe for a terminal.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}

// bundleFrames replays a bundle into Frames for the screen, evaluating the
// rules tick by tick (each rule's for honoured).
func bundleFrames(ctx context.Context, path, rulesDir string) ([]monitor.Frame, error) {
	p, err := rules.WithDir(rulesDir)
	if err != nil {
		return nil, err
	}
	e := rules.NewEngine(p)
	var out []monitor.Frame
	_, _, err = playBundle(ctx, path, func(i int, snap *probes.Snapshot) {
		res := e.Evaluate(rules.Frame{Time: snap.Time, Snapshot: snap})
		out = append(out, monitor.Frame{Time: snap.Time, Mode: monitor.ModeReplay, Seq: i, Source: path,
			Snapshot: snap, Findings: res.Findings, Rules: res.Rules})
	})
	for i := range out {
		out[i].Total = len(out)
	}
	return out, err
}
