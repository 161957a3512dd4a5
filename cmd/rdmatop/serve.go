package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/exporter"
	"github.com/rdmatop/rdmatop/flight"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/rules"
)

// serveCmd is serve's flags and what it opened.
type serveCmd struct {
	hf      hostFlags
	wf      wireFlags
	ff      flightFlags
	listen  string
	replay  string
	speed   float64
	loop    bool
	perQP   bool
	maxQPs  int
	api     bool
	pprofOn bool
}

func newServeCmd() *cobra.Command {
	var s serveCmd
	cmd := &cobra.Command{
		Use:   "serve [--listen :9879] [-i NETDEV|-d DEV] [--root DIR] [--interval D]",
		Short: "a Prometheus exporter: the host's RoCE health and rdmatop's findings on /metrics",
		Long: `Serve what rdmatop sees on this host to Prometheus: /metrics (Prometheus
text or OpenMetrics), /livez (the process works: its ticks come), /readyz
(there is something to watch; /healthz is the same) and an index page.
The same pipeline as the
screen samples the host every --interval (and, with -i, captures RoCE on
NETDEV unless --no-capture) and evaluates the rules; a scrape reads the
newest result and never waits on a probe. GET and HEAD only.

--replay FILE serves a recording (or a capture) instead, at its recorded
pace times --speed, then keeps serving its last tick; with --loop it plays
the recording again and again, its clock and counters running on, so that
an alert's for: duration can pass.

--flight-recorder DIR keeps the last --keep of what record would write
(host ticks and, with -i, RoCE packets) in memory and, when something
breaks (a link flap, a QP into ERR, an NCCL warning, a finding at or
above --trigger-severity, or SIGUSR1), writes --before to --after around
it to DIR as a recording that replay and check read (docs/flight.md).

Metrics, units and labels: docs/exporter.md. Dashboards, alerts, a
DaemonSet and a node-problem-detector plugin: deploy/.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return s.run(cmd) },
	}
	s.hf.register(cmd)
	s.wf.registerLive(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&s.listen, "listen", ":9879", "address to serve on (host:port; 127.0.0.1:9879 for this host only)")
	fl.StringVar(&s.replay, "replay", "", "serve a recording or a capture instead of this host")
	fl.Float64Var(&s.speed, "speed", 1, "with --replay: how much faster than recorded")
	fl.BoolVar(&s.loop, "loop", false, "with --replay: play the recording again and again, time and counters running on")
	fl.BoolVar(&s.perQP, "per-qp", false, "one series per QP (rdmatop_qp_info), capped by --per-qp-max")
	fl.IntVar(&s.maxQPs, "per-qp-max", exporter.DefaultMaxQPs, fmt.Sprintf("at most this many per-QP series (hard limit %d)", exporter.HardMaxQPs))
	s.ff.register(cmd)
	fl.BoolVar(&s.api, "flight-api", false, "with --flight-recorder: POST /flight/trigger asks for an incident (off: the exporter answers GET and HEAD only)")
	fl.BoolVar(&s.pprofOn, "pprof", false, "also serve Go's profiler on /debug/pprof/ (for debugging rdmatop itself)")
	return cmd
}

// check refuses flag combinations that make no sense, before anything
// is opened.
func (s *serveCmd) check(cmd *cobra.Command) error {
	if err := s.hf.check(cmd); err != nil {
		return err
	}
	if s.maxQPs > exporter.HardMaxQPs {
		return usageError{fmt.Errorf("--per-qp-max %d: at most %d", s.maxQPs, exporter.HardMaxQPs)}
	}
	if s.loop && s.replay == "" {
		return usageError{errors.New("--loop plays a recording again and again: it needs --replay FILE")}
	}
	return nil
}

// openRun opens what serve watches: the recording of --replay (with the
// opener that plays it again), or this host, recorded by fr when set.
func (s *serveCmd) openRun(pack *rules.Pack, fr *flight.Recorder) (r *monitor.Run, reopen func() (*monitor.Run, error), closeSrc func(), err error) {
	if s.replay != "" {
		// The exporter reads the intervals, never the running analysis
		// (a summary of the whole flow table per tick).
		open, _, err := replayOpener(s.replay, &s.hf, &s.wf, pack, 0, false)
		if err != nil {
			return nil, nil, nil, err
		}
		if r, err = open(); err != nil {
			return nil, nil, nil, usageError{err}
		}
		return r, open, func() {}, nil
	}
	opts := liveOpts{intervalsOnly: true}
	if fr != nil {
		opts.recorder = fr
	}
	r, closeSrc, err = liveRun(&s.hf, &s.wf, pack, opts)
	return r, nil, closeSrc, err
}

// openFlight opens the flight recorder of --flight-recorder (nil without
// it) and refuses it where it has nothing to watch.
func (s *serveCmd) openFlight(cmd *cobra.Command) (*flight.Recorder, error) {
	fr, err := s.ff.open(&s.hf, &s.wf, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	if fr != nil && s.replay != "" {
		fr.Close() // its writer goroutine stops with it
		return nil, usageError{errors.New("--flight-recorder watches this host: not with --replay")}
	}
	if s.api && fr == nil {
		return nil, usageError{errors.New("--flight-api needs --flight-recorder DIR")}
	}
	return fr, nil
}

// listenOn opens --listen: a usage error for a bad address, a failure
// when the host will not give a good one.
func (s *serveCmd) listenOn() (net.Listener, error) {
	ln, err := net.Listen("tcp", s.listen)
	if err == nil {
		return ln, nil
	}
	err = fmt.Errorf("--listen %s: %w", s.listen, err)
	if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, os.ErrPermission) {
		return nil, failure{err} // the address is fine; the host will not give it
	}
	return nil, usageError{err}
}

func (s *serveCmd) run(cmd *cobra.Command) error {
	if err := s.check(cmd); err != nil {
		return err
	}
	pack, err := s.hf.pack()
	if err != nil {
		return err
	}
	fr, err := s.openFlight(cmd)
	if err != nil {
		return err
	}
	r, reopen, closeSrc, err := s.openRun(pack, fr)
	if err != nil {
		if fr != nil {
			fr.Close()
		}
		return err
	}
	defer closeSrc()
	ln, err := s.listenOn()
	if err != nil {
		r.Close()
		if fr != nil {
			fr.Close()
		}
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	exp := exporter.New(exporter.Options{Pack: pack, Build: build, PerQP: s.perQP, MaxQPs: s.maxQPs})
	// The run stops before the sources close (the deferred closeSrc):
	// closing a source under a running probe is a use after close.
	runCtx, stopRun := context.WithCancel(ctx)
	runDone := make(chan error, 1)
	runStopped := make(chan struct{})
	defer func() {
		stopRun()
		<-runStopped
	}()
	var collectors []prometheus.Collector
	var trigger func(string)
	if fr != nil && s.api {
		trigger = fr.Trigger
	}
	if fr != nil {
		collectors = append(collectors, fr.Collector())
		stopSignal := triggerOnSignal(fr)
		defer func() {
			stopRun() // the run first: its recording goroutine writes to fr
			<-runStopped
			stopSignal()
			fr.Close()
		}()
	}
	go func() {
		defer close(runStopped)
		runDone <- s.publish(runCtx, r, reopen, fr, exp)
	}()
	srv := s.server(exp, collectors, trigger)
	fmt.Fprintf(cmd.ErrOrStderr(), "rdmatop: serving on http://%s/metrics\n", ln.Addr())
	srvErr := make(chan error, 1)
	go func() { srvErr <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-srvErr:
		return err
	case err := <-runDone:
		if err := s.runEnded(err, srv, exp); err != nil {
			return err
		}
		<-ctx.Done()
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shut)
}

// publish feeds the run's Frames to the flight recorder and the exporter
// until the run ends or ctx does.
func (s *serveCmd) publish(ctx context.Context, r *monitor.Run, reopen func() (*monitor.Run, error), fr *flight.Recorder, exp *exporter.Exporter) error {
	frames := r.Frames(ctx)
	if s.replay != "" {
		frames = replayFrames(ctx, r, reopen, s.speed, s.loop)
	}
	for f, err := range frames {
		if err != nil {
			return err
		}
		if fr != nil {
			fr.Observe(&f)
		}
		exp.Update(f)
	}
	return nil
}

// server is the HTTP server of the exporter. A live run is stale after
// three intervals without a tick; a recording's ticks come at its own
// pace (--speed), not the interval's, and when it ends Finish says so.
func (s *serveCmd) server(exp *exporter.Exporter, collectors []prometheus.Collector, trigger func(string)) *http.Server {
	stale := 3*s.hf.interval + 10*time.Second
	if s.replay != "" {
		stale = 100 * 365 * 24 * time.Hour
	}
	return &http.Server{Handler: exporter.Handler(exp, exporter.ServerOptions{Stale: stale, Pprof: s.pprofOn, Collectors: collectors, FlightTrigger: trigger}),
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
}

// runEnded says what the run's end means: a live run only stops on a
// failure (say it, stop serving); a replay that ended keeps serving its
// last tick, /readyz saying it finished (/livez: still alive), and nil
// means go on serving until asked to stop.
func (s *serveCmd) runEnded(err error, srv *http.Server, exp *exporter.Exporter) error {
	switch {
	case err != nil && s.replay == "":
		srv.Close()
		return failure{err}
	case err != nil:
		srv.Close()
		return err // a damaged recording: its input
	case s.replay == "":
		srv.Close()
		return failure{errors.New("the run ended")}
	}
	exp.Finish()
	return nil
}

// replayFrames is what serve publishes of a replay: r's Frames at their
// recorded pace times speed, or with loop, r's and then those of the runs
// reopen makes, one after the other until ctx ends (monitor.Looped).
func replayFrames(ctx context.Context, r *monitor.Run, reopen func() (*monitor.Run, error), speed float64, loop bool) iter.Seq2[monitor.Frame, error] {
	if !loop {
		return monitor.Paced(ctx, r.Frames(ctx), speed)
	}
	first := r
	return monitor.Paced(ctx, monitor.Looped(ctx, func() (*monitor.Run, error) {
		if r := first; r != nil {
			first = nil
			return r, nil
		}
		return reopen()
	}), speed)
}
