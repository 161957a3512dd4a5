package exporter

import (
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ServerOptions configure Handler.
type ServerOptions struct {
	// Stale: /livez and /readyz fail when no Frame came for this long
	// (0: 1 min); /livez also when none came this long after Handler.
	Stale time.Duration
	// Pprof serves net/http/pprof under /debug/pprof/ (off by default).
	Pprof bool
	// Now is the clock the health endpoints compare with (time.Now when
	// nil).
	Now func() time.Time
	// Collectors are served on /metrics beside the exporter's own (the
	// flight recorder's).
	Collectors []prometheus.Collector
	// FlightTrigger, when set (serve --flight-api), is called by POST
	// /flight/trigger: the one request that is not a read. It asks the
	// flight recorder for an incident; it changes nothing on the host.
	FlightTrigger func(detail string)
}

// Handler serves the exporter: /metrics (Prometheus text or OpenMetrics,
// by content negotiation), /livez, /readyz, /healthz and a plain index
// page. It answers GET and HEAD only, on these paths only: it has no write
// endpoint.
//
// /livez says whether the process works (a liveness probe restarts it when
// not): the run's ticks keep coming. /readyz says whether there is
// something to watch: ticks coming and an RDMA port or RoCE packets in the
// newest. /healthz is /readyz, as it always answered.
func Handler(e *Exporter, o ServerOptions) http.Handler {
	if o.Stale <= 0 {
		o.Stale = time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	started := o.Now()
	reg := prometheus.NewRegistry()
	reg.MustRegister(e, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(o.Collectors...)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true,
		ErrorHandling: promhttp.ContinueOnError, MaxRequestsInFlight: 8}))
	mux.Handle("/livez", healthHandler(func() health { return liveness(e, o, started) }))
	mux.Handle("/readyz", healthHandler(func() health { return readiness(e, o) }))
	mux.Handle("/healthz", healthHandler(func() health { return readiness(e, o) }))
	if o.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html><head><title>rdmatop exporter</title></head><body>
<h1>rdmatop exporter</h1>
<p>RoCE and RDMA health for Prometheus: canonical counters, PFC, DCQCN, QPs, events and the findings of rdmatop's rules.</p>
<ul><li><a href="metrics">/metrics</a></li><li><a href="livez">/livez</a> (the process works)</li><li><a href="readyz">/readyz</a> (there is something to watch; /healthz is the same)</li></ul>
</body></html>
`)
	})
	h := readOnly(mux)
	if o.FlightTrigger != nil {
		h = flightTrigger(h, o.FlightTrigger)
	}
	return h
}

// health is one answer of a health endpoint: 200 when ok, else 503, and
// one line that says why.
type health struct {
	ok   bool
	text string
}

// healthHandler serves what check says, as text.
func healthHandler(check func() health) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := check()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !h.ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintln(w, h.text)
	})
}

// liveness says whether the process works: its run yields ticks. It fails
// only when no Frame came for o.Stale (before the first: o.Stale since
// started), which a restart may cure. A host with nothing to watch, or a
// replay played to its end (its last tick still served), is alive.
func liveness(e *Exporter, o ServerOptions, started time.Time) health {
	n, last := e.Health()
	now := o.Now()
	switch {
	case e.Finished():
		return health{true, fmt.Sprintf("alive: the run ended after %d frames; serving the last one", n)}
	case n == 0 && now.Sub(started) > o.Stale:
		return health{false, fmt.Sprintf("stuck: no frame in the %s since the start", now.Sub(started).Round(time.Second))}
	case n == 0:
		return health{true, "alive: starting, no frame yet"}
	case now.Sub(last) > o.Stale:
		return health{false, fmt.Sprintf("stuck: the last frame is %s old", now.Sub(last).Round(time.Second))}
	}
	return health{true, fmt.Sprintf("alive: %d frames", n)}
}

// readiness says whether there is something to watch: fresh Frames, the
// newest with an RDMA port or RoCE packets (what /healthz always said).
func readiness(e *Exporter, o ServerOptions) health {
	n, last := e.Health()
	switch {
	case e.Finished():
		// A replay played to its end: the process still serves its last
		// tick, but nothing is being watched.
		return health{false, fmt.Sprintf("finished: the run ended after %d frames; serving the last one", n)}
	case n == 0:
		return health{false, "starting: no frame yet"}
	case o.Now().Sub(last) > o.Stale:
		return health{false, fmt.Sprintf("stale: the last frame is %s old", o.Now().Sub(last).Round(time.Second))}
	case e.Unchecked():
		return health{false, "unknown: nothing to check: no RDMA port in the newest frame and no RoCE packet captured"}
	}
	return health{true, fmt.Sprintf("ok: %d frames", n)}
}

// flightTrigger answers POST /flight/trigger by asking the flight
// recorder for an incident (202: it is written at the next tick), and
// passes every other request on. The request's body is not read: the
// trigger's detail names the peer that asked.
func flightTrigger(next http.Handler, trigger func(string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/flight/trigger" {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "method not allowed: POST to ask for an incident", http.StatusMethodNotAllowed)
			return
		}
		trigger("POST /flight/trigger from " + r.RemoteAddr)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintln(w, "accepted: the flight recorder writes an incident at the next tick (unless one was written within --cooldown)")
	})
}

// readOnly refuses every method but GET and HEAD.
func readOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: this exporter only serves GET and HEAD", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}
