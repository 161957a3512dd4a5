package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/flight"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
)

// flightFlags are the flight recorder's (serve and the screen).
type flightFlags struct {
	dir                          string
	keep, before, after, cooldwn time.Duration
	silence                      time.Duration
	keepPackets, maxDisk         int64
	severity                     string
	changed                      func(flag string) bool // the command line set flag
}

func (f *flightFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.changed = fl.Changed
	fl.StringVar(&f.dir, "flight-recorder", "", "keep the last minutes in memory and write an incident recording to DIR when something breaks (docs/flight.md)")
	fl.DurationVar(&f.keep, "keep", flight.DefaultKeep, "flight recorder: how far back its memory reaches")
	fl.Int64Var(&f.keepPackets, "keep-packets", flight.DefaultKeepPackets, "flight recorder: bytes of captured packets kept in memory")
	fl.DurationVar(&f.before, "before", flight.DefaultBefore, "flight recorder: an incident starts this long before its trigger")
	fl.DurationVar(&f.after, "after", flight.DefaultAfter, "flight recorder: and ends this long after its last trigger")
	fl.Int64Var(&f.maxDisk, "max-disk", flight.DefaultMaxDisk, "flight recorder: bytes of incidents kept in DIR, oldest removed first (0: no bound)")
	fl.DurationVar(&f.cooldwn, "cooldown", flight.DefaultCooldown, "flight recorder: at most one incident per this long")
	fl.StringVar(&f.severity, "trigger-severity", "critical", "flight recorder: a finding at or above this severity (info, warning, critical) is a trigger")
	fl.DurationVar(&f.silence, "trigger-silence", flight.DefaultSilence, "flight recorder: a port without RDMA traffic this long while QPs of a process stay in RTS on it is a trigger (0: off)")
	cmd.MarkFlagDirname("flight-recorder") //nolint:errcheck // the flag exists
}

// open returns the flight recorder the flags ask for (nil without
// --flight-recorder); it says what it writes on log.
func (f *flightFlags) open(hf *hostFlags, wf *wireFlags, log io.Writer) (*flight.Recorder, error) {
	if f.dir == "" {
		return nil, nil
	}
	h, opt := recordingHeader(hf, wf)
	silence := f.silence
	if f.changed != nil && !f.changed("trigger-silence") && silence+f.before > f.keep {
		// A --keep shorter than the default silence needs: the trigger
		// is off, and says so, rather than wait a silence it cannot show.
		silence = 0
		fmt.Fprintf(log, "rdmatop: flight recorder: the traffic-stopped trigger is off: --keep %s minus --before %s leaves no room for its %s of silence (set --trigger-silence)\n",
			f.keep, f.before, flight.DefaultSilence)
	}
	r, err := flight.New(flight.Options{Dir: f.dir, Keep: f.keep, KeepPackets: f.keepPackets, Before: f.before, After: f.after,
		MaxDisk: f.maxDisk, Cooldown: f.cooldwn, Severity: rules.Severity(f.severity), Silence: silence, Header: h, Pcapng: opt,
		Log: func(s string) { fmt.Fprintln(log, "rdmatop: "+s) }})
	if err != nil {
		return nil, usageError{err}
	}
	return r, nil
}

// recordingHeader is the header and capture options of a recording of
// this host with these flags (record, the flight recorder's incidents).
func recordingHeader(hf *hostFlags, wf *wireFlags) (bundle.Header, bundle.PcapngOptions) {
	hi := sampler.HostInfo(hf.root)
	sel := ""
	if hf.netdev != "" {
		sel = "-i " + hf.netdev
	} else if hf.device != "" {
		sel = "-d " + hf.device
	}
	snap := uint32(live.DefaultSnapLen)
	if wf.snaplen > 0 {
		snap = uint32(wf.snaplen)
	}
	return bundle.Header{Created: time.Now().UTC(), Tool: "rdmatop " + build.String(),
			Host:     bundle.Host{Hostname: hi.Hostname, Kernel: hi.Kernel, Arch: runtime.GOARCH, Uid: os.Getuid()},
			Interval: hf.interval.String(), Selection: sel},
		bundle.PcapngOptions{Iface: hf.netdev, SnapLen: snap}
}

// triggerOnSignal triggers fr at each SIGUSR1 (the operator saw
// something; the incident is written at the next tick) until stop, which
// waits for it.
func triggerOnSignal(fr *flight.Recorder) (stop func()) {
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-usr1:
				fr.Trigger("SIGUSR1")
			case <-quit:
				return
			}
		}
	}()
	return func() {
		signal.Stop(usr1)
		close(quit)
		<-done
	}
}
