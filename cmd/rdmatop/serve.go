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
	"github.com/rdmatop/rdmatop/monitor"
)

func newServeCmd() *cobra.Command {
	var (
		hf      hostFlags
		wf      wireFlags
		listen  string
		replay  string
		speed   float64
		perQP   bool
		maxQPs  int
		pprofOn bool
		ff      flightFlags
		api     bool
		loop    bool
	)
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := hf.check(cmd); err != nil {
				return err
			}
			pack, err := hf.pack()
			if err != nil {
				return err
			}
			if maxQPs > exporter.HardMaxQPs {
				return usageError{fmt.Errorf("--per-qp-max %d: at most %d", maxQPs, exporter.HardMaxQPs)}
			}
			var r *monitor.Run
			var reopen func() (*monitor.Run, error) // a replay's next run
			closeSrc := func() {}
			fr, err := ff.open(&hf, &wf, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if fr != nil && replay != "" {
				fr.Close() // its writer goroutine stops with it
				return usageError{errors.New("--flight-recorder watches this host: not with --replay")}
			}
			if api && fr == nil {
				return usageError{errors.New("--flight-api needs --flight-recorder DIR")}
			}
			if loop && replay == "" {
				return usageError{errors.New("--loop plays a recording again and again: it needs --replay FILE")}
			}
			opts := liveOpts{intervalsOnly: true}
			if fr != nil {
				opts.recorder = fr
			}
			if replay != "" {
				// The exporter reads the intervals, never the running
				// analysis (a summary of the whole flow table per tick).
				open, _, err := replayOpener(replay, &hf, &wf, pack, 0, false)
				if err != nil {
					return err
				}
				if r, err = open(); err != nil {
					return usageError{err}
				}
				reopen = open
			} else if r, closeSrc, err = liveRun(&hf, &wf, pack, opts); err != nil {
				return err
			}
			defer closeSrc()
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				r.Close()
				err = fmt.Errorf("--listen %s: %w", listen, err)
				if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, os.ErrPermission) {
					return failure{err} // the address is fine; the host will not give it
				}
				return usageError{err}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			exp := exporter.New(exporter.Options{Pack: pack, Build: build, PerQP: perQP, MaxQPs: maxQPs})
			// The run stops before the sources close (the deferred
			// closeSrc): closing a source under a running probe is a use
			// after close.
			runCtx, stopRun := context.WithCancel(ctx)
			runDone := make(chan error, 1)
			runStopped := make(chan struct{})
			defer func() {
				stopRun()
				<-runStopped
			}()
			var collectors []prometheus.Collector
			var trigger func(string)
			if fr != nil && api {
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
				frames := r.Frames(runCtx)
				if replay != "" {
					frames = replayFrames(runCtx, r, reopen, speed, loop)
				}
				var runErr error
				for f, err := range frames {
					if err != nil {
						runErr = err
						break
					}
					if fr != nil {
						fr.Observe(&f)
					}
					exp.Update(f)
				}
				runDone <- runErr
			}()
			stale := 3*hf.interval + 10*time.Second
			if replay != "" {
				// A recording's ticks come at its own pace (--speed), not the
				// interval's; when it ends, Finish says so.
				stale = 100 * 365 * 24 * time.Hour
			}
			srv := &http.Server{Handler: exporter.Handler(exp, exporter.ServerOptions{Stale: stale, Pprof: pprofOn, Collectors: collectors, FlightTrigger: trigger}),
				ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
				IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
			fmt.Fprintf(cmd.ErrOrStderr(), "rdmatop: serving on http://%s/metrics\n", ln.Addr())
			srvErr := make(chan error, 1)
			go func() { srvErr <- srv.Serve(ln) }()
			select {
			case <-ctx.Done():
			case err := <-srvErr:
				return err
			case err := <-runDone:
				if err != nil {
					// A live run only stops on a failure: say it, stop serving.
					srv.Close()
					if replay == "" {
						return failure{err}
					}
					return err // a damaged recording: its input
				}
				if replay == "" {
					srv.Close()
					return failure{errors.New("the run ended")}
				}
				// A replay ended: keep serving its last tick, /readyz
				// saying it finished (/livez: still alive).
				exp.Finish()
				<-ctx.Done()
			}
			shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return srv.Shutdown(shut)
		},
	}
	hf.register(cmd)
	wf.registerLive(cmd, true)
	cmd.Flags().StringVar(&listen, "listen", ":9879", "address to serve on (host:port; 127.0.0.1:9879 for this host only)")
	cmd.Flags().StringVar(&replay, "replay", "", "serve a recording or a capture instead of this host")
	cmd.Flags().Float64Var(&speed, "speed", 1, "with --replay: how much faster than recorded")
	cmd.Flags().BoolVar(&loop, "loop", false, "with --replay: play the recording again and again, time and counters running on")
	cmd.Flags().BoolVar(&perQP, "per-qp", false, "one series per QP (rdmatop_qp_info), capped by --per-qp-max")
	cmd.Flags().IntVar(&maxQPs, "per-qp-max", exporter.DefaultMaxQPs, fmt.Sprintf("at most this many per-QP series (hard limit %d)", exporter.HardMaxQPs))
	ff.register(cmd)
	cmd.Flags().BoolVar(&api, "flight-api", false, "with --flight-recorder: POST /flight/trigger asks for an incident (off: the exporter answers GET and HEAD only)")
	cmd.Flags().BoolVar(&pprofOn, "pprof", false, "also serve Go's profiler on /debug/pprof/ (for debugging rdmatop itself)")
	return cmd
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
