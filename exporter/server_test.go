package exporter

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

func server(t *testing.T, o ServerOptions) (*Exporter, *httptest.Server) {
	t.Helper()
	pack, _ := rules.Default()
	e := New(Options{Pack: pack})
	srv := httptest.NewServer(Handler(e, o))
	t.Cleanup(srv.Close)
	return e, srv
}

func get(t *testing.T, req *http.Request) (int, string, http.Header) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// GET and HEAD on its paths only; healthz follows the Frames; OpenMetrics
// by content negotiation.
func TestServerEndpoints(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	e, srv := server(t, ServerOptions{Stale: time.Minute, Now: clock})
	req := func(method, path string, hdr ...string) *http.Request {
		r, _ := http.NewRequest(method, srv.URL+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		return r
	}
	if code, body, _ := get(t, req("GET", "/healthz")); code != 503 || !strings.Contains(body, "no frame yet") {
		t.Errorf("healthz before any frame: %d %q", code, body)
	}
	for _, f := range fixtureFrames(t) {
		e.Update(f)
	}
	if code, body, _ := get(t, req("GET", "/healthz")); code != 200 || !strings.Contains(body, "ok: 2 frames") {
		t.Errorf("healthz: %d %q", code, body)
	}
	now = now.Add(2 * time.Minute)
	if code, body, _ := get(t, req("GET", "/healthz")); code != 503 || !strings.Contains(body, "stale") {
		t.Errorf("healthz after 2 min without frames: %d %q", code, body)
	}
	code, body, hdr := get(t, req("GET", "/metrics"))
	if code != 200 || !strings.Contains(body, "rdmatop_port_bytes_total{") || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
		t.Errorf("/metrics: %d %s", code, hdr.Get("Content-Type"))
	}
	code, body, hdr = get(t, req("GET", "/metrics", "Accept", "application/openmetrics-text; version=1.0.0"))
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/openmetrics-text") || !strings.HasSuffix(body, "# EOF\n") {
		t.Errorf("OpenMetrics: %d %s", code, hdr.Get("Content-Type"))
	}
	if code, body, _ := get(t, req("GET", "/")); code != 200 || !strings.Contains(body, `href="metrics"`) {
		t.Errorf("index: %d", code)
	}
	if code, _, _ := get(t, req("HEAD", "/metrics")); code != 200 {
		t.Errorf("HEAD /metrics: %d", code)
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"} {
		if code, _, hdr := get(t, req(m, "/metrics")); code != 405 || hdr.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /metrics: %d, Allow %q", m, code, hdr.Get("Allow"))
		}
	}
	for _, p := range []string{"/debug/pprof/", "/metrics/x", "/admin", "/../etc/passwd", "/index.html"} {
		if code, _, _ := get(t, req("GET", p)); code != 404 {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
}

// pprof only when asked.
func TestServerPprofFlag(t *testing.T) {
	_, srv := server(t, ServerOptions{Pprof: true})
	r, _ := http.NewRequest("GET", srv.URL+"/debug/pprof/", nil)
	if code, _, _ := get(t, r); code != 200 {
		t.Errorf("pprof with the flag: %d", code)
	}
}

// POST /flight/trigger only with --flight-api: without it the exporter
// answers GET and HEAD only, and with it that one path takes POST only.
func TestServerFlightTrigger(t *testing.T) {
	_, off := server(t, ServerOptions{})
	r, _ := http.NewRequest("POST", off.URL+"/flight/trigger", nil)
	if code, _, _ := get(t, r); code != 405 {
		t.Errorf("POST /flight/trigger without the flag: %d, want 405", code)
	}
	var mu sync.Mutex // the handler's goroutine appends, the test reads
	var asked []string
	_, on := server(t, ServerOptions{FlightTrigger: func(d string) { mu.Lock(); asked = append(asked, d); mu.Unlock() }})
	r, _ = http.NewRequest("POST", on.URL+"/flight/trigger", nil)
	code, _, _ := get(t, r)
	mu.Lock() // held to the end: no request below may trigger (it would block)
	defer mu.Unlock()
	if code != 202 || len(asked) != 1 || !strings.HasPrefix(asked[0], "POST /flight/trigger from 127.0.0.1:") {
		t.Errorf("POST /flight/trigger: %d, asked %q", code, asked)
	}
	for _, m := range []string{"GET", "PUT", "DELETE"} {
		r, _ = http.NewRequest(m, on.URL+"/flight/trigger", nil)
		if code, _, _ := get(t, r); code != 405 {
			t.Errorf("%s /flight/trigger: %d, want 405", m, code)
		}
	}
	r, _ = http.NewRequest("POST", on.URL+"/metrics", nil)
	if code, _, _ := get(t, r); code != 405 || len(asked) != 1 {
		t.Errorf("POST /metrics with the flag: %d", code)
	}
}

// Malformed requests get an HTTP error, never a panic or a hang.
func TestServerMalformedRequests(t *testing.T) {
	e, srv := server(t, ServerOptions{})
	for _, f := range fixtureFrames(t) {
		e.Update(f)
	}
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, raw := range []string{
		"GET /metrics HTTP/1.1\r\n\r\n",            // no Host
		"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n", // unknown version
		"GARBAGE\r\n\r\n",                          // not HTTP
		"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
		"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",                               // bad escape
		"GET " + strings.Repeat("a", 70000) + " HTTP/1.1\r\nHost: x\r\n\r\n", // huge request line
		"\x00\x01\x02\x03\r\n\r\n",
	} {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(3 * time.Second))
		c.Write([]byte(raw))
		line, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil && err != io.EOF {
			t.Errorf("%.40q: %v", raw, err)
			continue
		}
		if !strings.HasPrefix(line, "HTTP/1.1 4") && !strings.HasPrefix(line, "HTTP/1.0 4") && !strings.HasPrefix(line, "HTTP/1.1 505") {
			t.Errorf("%.40q: answered %q, want a 4xx", raw, line)
		}
	}
	// The server still answers.
	r, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
	if code, _, _ := get(t, r); code != 200 {
		t.Errorf("after malformed requests: %d", code)
	}
}

// Scrapes and updates at once (run with -race): no race, every scrape a
// complete metric set.
func TestConcurrentScrapes(t *testing.T) {
	e, srv := server(t, ServerOptions{})
	frames := fixtureFrames(t)
	e.Update(frames[0])
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				r, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
				if code, body, _ := get(t, r); code != 200 || !strings.Contains(body, "rdmatop_build_info") {
					t.Errorf("scrape: %d", code)
				}
			}
		}()
	}
	for i := range 50 {
		f := frames[i%2]
		f.Seq = i
		e.Update(f)
	}
	wg.Wait()
}

// A live host with nothing to check (no RDMA port, no RoCE captured) is
// not healthy: /healthz says unknown with 503, as `check` says UNKNOWN;
// once a Frame has a port, it is ok again. It used to answer 200 "ok".
func TestHealthzNothingChecked(t *testing.T) {
	e, srv := server(t, ServerOptions{Stale: time.Minute})
	empty := monitor.Frame{Time: time.Now(), Mode: monitor.ModeLive, Snapshot: &probes.Snapshot{}}
	e.Update(empty)
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(body), "nothing to check") {
		t.Errorf("healthz with no RDMA port: %d %q", resp.StatusCode, body)
	}
	withPort := empty
	withPort.Snapshot = &probes.Snapshot{Ports: []probes.Port{{Device: "mlx5_0", Port: 1}}}
	e.Update(withPort)
	resp, err = http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("healthz with a port: %d", resp.StatusCode)
	}
}

// /livez says whether the process works, /readyz whether there is
// something to watch, and /healthz keeps answering as /readyz: a node
// without RDMA is alive but not ready (a liveness probe on /healthz
// restarted the exporter there every few minutes), a run whose ticks stop
// is neither, and a replay played to its end is alive with nothing to
// watch.
func TestLivenessAndReadiness(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	pack, _ := rules.Default()
	e := New(Options{Pack: pack, Now: clock})
	srv := httptest.NewServer(Handler(e, ServerOptions{Stale: time.Minute, Now: clock}))
	t.Cleanup(srv.Close)
	check := func(when string, live, ready int, liveText, readyText string) {
		t.Helper()
		for _, c := range []struct {
			path, text string
			code       int
		}{{"/livez", liveText, live}, {"/readyz", readyText, ready}, {"/healthz", readyText, ready}} {
			r, _ := http.NewRequest("GET", srv.URL+c.path, nil)
			if code, body, _ := get(t, r); code != c.code || !strings.HasPrefix(body, c.text) {
				t.Errorf("%s: %s %d %q, want %d %q…", when, c.path, code, body, c.code, c.text)
			}
		}
	}
	check("before the first frame", 200, 503, "alive: starting", "starting: no frame yet")
	now = now.Add(61 * time.Second)
	check("a minute without a first frame", 503, 503, "stuck: no frame in the 1m1s since the start", "starting: no frame yet")

	nothing := monitor.Frame{Time: now, Mode: monitor.ModeLive, Snapshot: &probes.Snapshot{}}
	e.Update(nothing)
	check("no RDMA port", 200, 503, "alive: 1 frames", "unknown: nothing to check")
	withPort := nothing
	withPort.Snapshot = &probes.Snapshot{Ports: []probes.Port{{Device: "mlx5_0", Port: 1}}}
	e.Update(withPort)
	check("a port", 200, 200, "alive: 2 frames", "ok: 2 frames")
	now = now.Add(2 * time.Minute)
	check("two minutes without a frame", 503, 503, "stuck: the last frame is 2m0s old", "stale: the last frame is 2m0s old")
	e.Finish()
	check("a replay that ended", 200, 503, "alive: the run ended after 2 frames", "finished: the run ended after 2 frames")
}
