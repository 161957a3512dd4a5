package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/capture/pcapstream"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/nccl"
	"github.com/rdmatop/rdmatop/probes/ncclras"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
)

// liveOpts pick a live run's sources beyond the flags.
type liveOpts struct {
	noHost   bool             // capture only (rdmatop capture)
	needWire bool             // a capture that cannot open is an error, not a status
	recorder monitor.Recorder // record, the flight recorder: raw host ticks and packets
	ticks    int
	warmup   int
	oneShot  bool
	packets  int // recent packets per Frame (the screen)
	// intervalsOnly: Frames without the running analysis (Frame.Wire),
	// for a front end that reads only intervals and the Result: the
	// running analysis summarises the whole flow table at every tick,
	// under the lock the packet reader needs.
	intervalsOnly bool
}

// liveRun builds a live run from the flags: the host probes (unless
// noHost) and, with -i and without --no-capture, the wire on that
// interface. close releases the sources the run does not own.
func liveRun(h *hostFlags, w *wireFlags, pack *rules.Pack, o liveOpts) (*monitor.Run, func(), error) {
	acfg, err := w.config()
	if err != nil {
		return nil, nil, err
	}
	cfg := monitor.Config{Mode: monitor.ModeLive, Interval: h.interval, Pack: pack, Analysis: acfg,
		Ticks: o.ticks, Warmup: o.warmup, OneShot: o.oneShot, Packets: o.packets, Source: "live",
		IntervalsOnly: o.intervalsOnly}
	closeSrc := func() {}
	if !o.noHost {
		src, c, _ := sampler.LiveSources(h.root)
		if h.ncclRAS != "" {
			// Asked on its own goroutine: a query of a troubled job
			// takes seconds, and a sample never waits for one.
			w := ncclras.Watch(context.Background(), h.ncclRAS, max(h.interval, rasPeriod))
			src.RAS = w
			closeHost := c
			c = func() { closeHost(); w.Close() }
		}
		if h.ncclLog != "" {
			fl := nccl.Follow(h.ncclLog)
			src.NCCL = fl
			closeHost := c
			c = func() { closeHost(); fl.Close() }
		}
		opt := sampler.Options{Netdev: h.netdev, Device: h.device, Timeout: h.probeTimeout}
		var s *sampler.Sampler
		if o.recorder != nil {
			rec := sampler.NewRecorder(src, opt)
			s, cfg.Host = rec.Sampler, monitor.RecorderHost{R: rec}
		} else {
			s = sampler.New(src, opt)
			cfg.Host = monitor.SamplerHost{S: s}
		}
		closeSrc = func() { closeAfter(s, c) }
		if h.root != "/" {
			cfg.Source = "root " + h.root
		}
	}
	if w.stream != "" {
		src, err := pcapstream.Open(w.stream)
		if err != nil {
			closeSrc()
			return nil, nil, usageError{err}
		}
		cfg.Wire, cfg.WireName = src, src.Stream()
	} else if h.netdev != "" && !w.noCapture {
		cfg.WireName = h.netdev
		srcs, err := openWire(h.netdev, w, o.recorder != nil)
		switch {
		case err == nil:
			cfg.Wire = srcs[0]
			for _, s := range srcs[1:] {
				cfg.Fanout = append(cfg.Fanout, s)
			}
		case o.needWire:
			closeSrc()
			if errors.Is(err, os.ErrPermission) {
				return nil, nil, failure{err}
			}
			return nil, nil, err
		default:
			// The host still runs; every Frame says why there is no wire.
			cfg.WireErr = err
		}
	}
	if o.recorder != nil {
		cfg.Recorder = o.recorder
	}
	r, err := monitor.New(cfg)
	if err != nil {
		closeSrc()
		if cfg.Wire != nil {
			cfg.Wire.Close()
		}
		for _, w := range cfg.Fanout {
			w.Close()
		}
		return nil, nil, err
	}
	return r, closeSrc, nil
}

// probeDrain bounds how long shutdown waits for probe reads abandoned at
// their timeout: longer than a probe's own timeout (2 s), so only a read
// the kernel never answers is left behind.
const probeDrain = 5 * time.Second

// rasPeriod is how often NCCL's RAS is asked at most: each query makes
// RAS gather the state of every rank of the job over its own network.
const rasPeriod = 5 * time.Second

// closeAfter closes the host sources once every probe task reading them
// has returned. A task still blocked after probeDrain keeps the sources
// open: closing a socket or file under a running read is a use after
// close (a nil ethtool handle, a reused descriptor), and the process is
// ending anyway.
func closeAfter(s *sampler.Sampler, closeSources func()) {
	ctx, cancel := context.WithTimeout(context.Background(), probeDrain)
	defer cancel()
	if s.Wait(ctx) != nil {
		return
	}
	closeSources()
}

// openWire opens the live capture on netdev: --workers rings of one
// fanout group, or one ring when recording (the file needs one order of
// packets and ticks) or when the kernel has no BPF fanout.
func openWire(netdev string, w *wireFlags, recording bool) ([]*live.Source, error) {
	opts := live.Options{SnapLen: w.snaplen, Promiscuous: w.promisc}
	n := w.workers
	if n == 0 {
		n = defaultWorkers()
	}
	if recording {
		n = 1
	}
	srcs, err := live.OpenFanout(netdev, opts, n)
	if errors.Is(err, live.ErrNotSupported) && n > 1 {
		srcs, err = live.OpenFanout(netdev, opts, 1)
	}
	return srcs, err
}

// fileKind says what a replayed file holds.
type fileKind int

const (
	kindCapture fileKind = iota
	kindBundle
)

// sniffFile tells an rdmatop recording (either version, plain or gzip)
// from a capture. A version 2 recording is also a valid pcapng capture:
// the recording is tried first.
func sniffFile(path string) (fileKind, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, usageError{err}
	}
	defer f.Close()
	head := make([]byte, bundle.SniffLen)
	n, _ := io.ReadFull(f, head)
	if _, ok := bundle.Sniff(head[:n]); ok {
		return kindBundle, nil
	}
	return kindCapture, nil
}

// replayOpener returns a function that opens a new run of the recording
// at path each time it is called (a Timeline replays from the start to go
// back), and what the file is.
//
// pack nil: each run compiles the built-in pack while it reads. packets
// is how many recent packets each Frame carries; running, that
// the Frames carry the running analysis too (the screen and the exporter
// show it; a report and the JSON series do not need it).
func replayOpener(path string, iv *hostFlags, w *wireFlags, pack *rules.Pack, packets int, running bool) (func() (*monitor.Run, error), fileKind, error) {
	acfg, err := w.config()
	if err != nil {
		return nil, 0, err
	}
	kind, err := sniffFile(path)
	if err != nil {
		return nil, 0, err
	}
	open := func() (*monitor.Run, error) {
		var tape monitor.Tape
		if kind == kindBundle {
			t, err := monitor.OpenBundle(path)
			if err != nil {
				return nil, err
			}
			tape = t
		} else {
			t, err := monitor.OpenCapture(path)
			if err != nil {
				return nil, err
			}
			tape = t
		}
		return monitor.New(monitor.Config{Mode: monitor.ModeReplay, Source: path, Tape: tape, Pack: pack,
			Analysis: acfg, Interval: iv.interval, AutoInterval: !iv.intervalSet, Packets: packets,
			IntervalsOnly: !running})
	}
	// Open once now, so that a missing or unreadable file is a usage error
	// before any screen opens.
	r, err := open()
	if err != nil {
		return nil, 0, usageError{fmt.Errorf("%w", err)}
	}
	first := r
	return func() (*monitor.Run, error) {
		if first != nil {
			r := first
			first = nil
			return r, nil
		}
		return open()
	}, kind, nil
}
