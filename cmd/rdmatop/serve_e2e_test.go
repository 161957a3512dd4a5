package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rdmatop/rdmatop/exporter"
)

// The exporter end to end with a real Prometheus (Debian's prometheus
// package, started here on loopback): it scrapes `rdmatop serve` on the
// mlx5 fixture trees and on the lab's recording; values, units and labels
// are checked against the fixtures, every query of the Grafana dashboard
// and every alert expression runs through Prometheus's HTTP API, and the
// alerts of the rules that fire become pending or firing.

func buildRdmatop(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rdmatop")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// startServe runs `rdmatop serve args...` on a free loopback port and
// returns its address.
func startServe(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("rdmatop serve %v: %v", args, err)
	}
	go io.Copy(io.Discard, stderr)
	m := regexp.MustCompile(`http://([0-9.:]+)/metrics`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("rdmatop serve said %q", line)
	}
	return m[1]
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

type promResult struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  []any             `json:"value"`
		} `json:"result"`
		Alerts []struct {
			Labels map[string]string `json:"labels"`
			State  string            `json:"state"`
		} `json:"alerts"`
	} `json:"data"`
}

func promGet(t *testing.T, base, path string, q url.Values) promResult {
	t.Helper()
	resp, err := http.Get(base + path + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r promResult
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

func sampleValue(t *testing.T, r promResult) float64 {
	t.Helper()
	if len(r.Data.Result) != 1 {
		t.Fatalf("want one series, got %d: %+v", len(r.Data.Result), r.Data.Result)
	}
	v, err := strconv.ParseFloat(r.Data.Result[0].Value[1].(string), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestServeWithPrometheus(t *testing.T) {
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (Debian package prometheus; .ci/run installs it)")
	}
	bin := buildRdmatop(t)
	wd, _ := os.Getwd()
	fixture := startServe(t, bin, "--root", filepath.Join(wd, "../../testdata/sysfs/mlx5-roce-cx6dx-t0"), "--interval", "1s")
	// Looped, the recording moves whenever Prometheus starts scraping:
	// however long Prometheus takes to start on a busy machine, it sees
	// the counters move (12 s a pass at half speed).
	replay := startServe(t, bin, "--replay", filepath.Join(wd, "../../testdata/lab/pipeline/incident.pcapng.gz"), "--speed", "0.5", "--loop")

	// promtool agrees with the exposition itself.
	if promtool, err := exec.LookPath("promtool"); err == nil {
		time.Sleep(1500 * time.Millisecond)
		for _, addr := range []string{fixture, replay} {
			resp, err := http.Get("http://" + addr + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			check := exec.Command(promtool, "check", "metrics")
			check.Stdin = bytes.NewReader(body)
			if out, err := check.CombinedOutput(); err != nil {
				t.Errorf("promtool check metrics (%s): %v\n%s", addr, err, out)
			}
		}
	}

	dir := t.TempDir()
	alerts := filepath.Join(wd, "../../deploy/prometheus/alerts.yaml")
	cfg := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [%q]
scrape_configs:
  - job_name: fixture
    static_configs: [{targets: [%q]}]
  - job_name: replay
    static_configs: [{targets: [%q]}]
`, alerts, fixture, replay)
	os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644)
	web := freePort(t)
	pcmd := exec.Command(prom, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+web, "--log.level=warn")
	var plog bytes.Buffer
	pcmd.Stdout, pcmd.Stderr = &plog, &plog
	if err := pcmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pcmd.Process.Kill(); pcmd.Wait() })
	base := "http://" + web
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready: %v\n%s", err, plog.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Enough scrapes of both for rate() over 10 s: waited for, with a
	// deadline of its own (Prometheus's start may have used most of the
	// first), and an error when they do not come.
	query := func(q string) promResult {
		return promGet(t, base, "/api/v1/query", url.Values{"query": {q}})
	}
	scraped := func() bool {
		r := query(`count_over_time(rdmatop_build_info[1m])`)
		if len(r.Data.Result) != 2 {
			return false
		}
		for _, s := range r.Data.Result {
			if n, _ := strconv.Atoi(fmt.Sprint(s.Value[1])); n < 12 {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(60 * time.Second); !scraped(); time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus did not scrape both exporters 12 times in a minute:\n%s", plog.String())
		}
	}

	// Values, units and labels against the fixture files.
	file := func(p string) float64 {
		b, err := os.ReadFile("../../testdata/sysfs/mlx5-roce-cx6dx-t0/sys/class/infiniband/mlx5_0/ports/1/" + p)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		return v
	}
	for q, want := range map[string]float64{
		`rdmatop_port_bytes_total{job="fixture",device="mlx5_0",port="1",netdev="eth0",direction="tx"}`: 4 * file("counters/port_xmit_data"),
		`rdmatop_port_bytes_total{job="fixture",device="mlx5_0",direction="rx"}`:                        4 * file("counters/port_rcv_data"),
		`rdmatop_cnp_sent_total{job="fixture",device="mlx5_0"}`:                                         file("hw_counters/np_cnp_sent"),
		`rdmatop_out_of_sequence_total{job="fixture",device="mlx5_0"}`:                                  file("hw_counters/out_of_sequence"),
		`rdmatop_port_up{job="fixture",device="mlx5_1"}`:                                                0,
		`rdmatop_port_speed_bytes{job="fixture",device="mlx5_0"}`:                                       100e9 / 8,
		`rdmatop_finding_active{job="fixture",rule="port-down",device="mlx5_1",port="1"}`:               1,
	} {
		if got := sampleValue(t, query(q)); got != want {
			t.Errorf("%s = %v, want %v", q, got, want)
		}
	}
	if v := sampleValue(t, query(`sum(rdmatop_wire_psn_gaps_total{job="replay"})`)); v == 0 {
		t.Error("the replayed recording's capture shows no PSN gap")
	}
	if v := sampleValue(t, query(`sum(rdmatop_finding_active{job="replay",rule="packet-loss"})`)); v == 0 {
		t.Error("no packet-loss finding on the replayed recording")
	}
	// rxe counts packets, not bytes.
	if v := sampleValue(t, query(`max(increase(rdmatop_port_packets_total{job="replay",device="rxe0",direction="tx"}[1m]))`)); v <= 0 {
		t.Error("the replayed recording's transmitted packets did not move")
	}
	if v := sampleValue(t, query(`sum(rdmatop_wire_packets_total{job="replay",interface="veth0"})`)); v == 0 {
		t.Error("the recording's capture is not labelled with its interface")
	}

	// Present families: what either exporter serves.
	present := map[string]bool{}
	for _, addr := range []string{fixture, replay} {
		resp, _ := http.Get("http://" + addr + "/metrics")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, m := range regexp.MustCompile(`(?m)^(rdmatop_[a-z0-9_]+)`).FindAllStringSubmatch(string(body), -1) {
			present[m[1]] = true
		}
	}
	names := regexp.MustCompile(`rdmatop_[a-z0-9_]+`)
	expand := strings.NewReplacer("$__rate_interval", "10s", "$instance", ".*", "$device", ".*")
	ran, withData := 0, 0
	defer func() { t.Logf("dashboard: %d queries ran, %d required and returned data", ran, withData) }()
	for _, p := range exporter.Panels {
		for _, q := range p.Queries {
			r := query(expand.Replace(q.Expr))
			if r.Status != "success" {
				t.Errorf("panel %q: %s: %s %s", p.Title, q.Expr, r.ErrorType, r.Error)
				continue
			}
			all := true
			for _, n := range names.FindAllString(q.Expr, -1) {
				all = all && present[n]
			}
			ran++
			if all && !strings.Contains(q.Expr, `state!="ok"`) {
				if len(r.Data.Result) == 0 {
					t.Errorf("panel %q: %s returns no data although the exporters serve its metrics", p.Title, q.Expr)
				} else {
					withData++
				}
			}
		}
	}

	// Every alert expression parses and runs.
	var groups struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	b, _ := os.ReadFile(alerts)
	if err := yaml.Unmarshal(b, &groups); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			n++
			if res := query(r.Expr); res.Status != "success" {
				t.Errorf("alert %s: %s: %s", r.Alert, res.ErrorType, res.Error)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d alerts", n)
	}
	// The alerts of the firing rules are pending or firing.
	want := map[string]bool{"RdmatopPortDown": false, "RdmatopPacketLoss": false}
	for time.Now().Before(deadline.Add(10 * time.Second)) {
		for _, a := range promGet(t, base, "/api/v1/alerts", nil).Data.Alerts {
			if _, ok := want[a.Labels["alertname"]]; ok && (a.State == "firing" || a.State == "pending") {
				want[a.Labels["alertname"]] = true
			}
		}
		if want["RdmatopPortDown"] && want["RdmatopPacketLoss"] {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	for a, ok := range want {
		if !ok {
			t.Errorf("alert %s never became pending or firing", a)
		}
	}
}

// A served replay that played to its end keeps serving its last tick, but
// /healthz says it finished (503: nothing is being watched), and the
// Frame's receipt time (what the kit's staleness alert reads) is the wall
// clock while the Frame's own time is the recording's.
func TestServeReplayFinished(t *testing.T) {
	bin := buildRdmatop(t)
	wd, _ := os.Getwd()
	addr := startServe(t, bin, "--replay", filepath.Join(wd, "../../testdata/rxe/pcap/lossy1.pcap"), "--speed", "16")
	var code int
	var body string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		code, body = resp.StatusCode, string(b)
		if strings.HasPrefix(body, "finished") {
			break
		}
	}
	if code != 503 || !strings.HasPrefix(body, "finished: the run ended after") {
		t.Fatalf("healthz after the replay: %d %q", code, body)
	}
	// The process still works: a liveness probe must not restart it.
	if resp, err := http.Get("http://" + addr + "/livez"); err != nil || resp.StatusCode != 200 {
		t.Errorf("/livez after the replay: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	value := func(name string) float64 {
		m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("/metrics has no %s", name)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	now := float64(time.Now().Unix())
	if v := value("rdmatop_frame_received_timestamp_seconds"); now-v > 60 || v > now+1 {
		t.Errorf("received %v, now %v", v, now)
	}
	if v := value("rdmatop_frame_timestamp_seconds"); now-v < 86400 {
		t.Errorf("the replayed Frame's time %v is not the recording's (2026-11-29)", v)
	}
}

// On a host with nothing to watch (no RDMA device) serve is alive but not
// ready: /livez answers 200, so a liveness probe leaves it be (it probed
// /healthz and restarted the pod every few minutes), while /readyz and
// /healthz say 503 "nothing to check".
func TestServeNothingToWatch(t *testing.T) {
	bin := buildRdmatop(t)
	addr := startServe(t, bin, "--root", t.TempDir(), "--interval", "200ms")
	code := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// Until the first tick both say starting; wait for a few.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, body := code("/livez"); strings.HasPrefix(body, "alive: 3 frames") {
			break
		}
	}
	if c, body := code("/livez"); c != 200 || !regexp.MustCompile(`^alive: \d+ frames`).MatchString(body) {
		t.Errorf("/livez on a host without RDMA: %d %q, want 200 alive", c, body)
	}
	for _, path := range []string{"/readyz", "/healthz"} {
		if c, body := code(path); c != 503 || !strings.HasPrefix(body, "unknown: nothing to check") {
			t.Errorf("%s on a host without RDMA: %d %q, want 503 nothing to check", path, c, body)
		}
	}
}

// serve --replay --loop plays a recording again and again as one run: the
// Frame's time and the counters only grow, past what one pass holds, the
// recording's finding stays active across the passes (an alert's for:
// can pass: the bundled recordings end within seconds), and /readyz never
// says finished. It also refuses --loop without --replay.
func TestServeReplayLoop(t *testing.T) {
	bin := buildRdmatop(t)
	wd, _ := os.Getwd()
	rec := filepath.Join(wd, "../../testdata/lab/pipeline/incident.pcapng.gz")
	first, last, packets := onePass(t, bin, rec)
	addr := startServe(t, bin, "--replay", rec, "--loop", "--speed", "8")
	var prevTime, prevPackets float64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the frame's time is %v (one pass: %v to %v) and %v packets (one pass: %v)", prevTime, first, last, prevPackets, packets)
		}
		m := scrape(t, addr)
		ts, pkts := m[`rdmatop_frame_timestamp_seconds`], m[`rdmatop_wire_packets_total{interface="veth0"}`]
		if ts < prevTime || pkts < prevPackets {
			t.Fatalf("went back: time %v after %v, packets %v after %v", ts, prevTime, pkts, prevPackets)
		}
		prevTime, prevPackets = ts, pkts
		active := 0.0
		for k, v := range m {
			if strings.HasPrefix(k, "rdmatop_finding_active{") && strings.Contains(k, `rule="packet-loss"`) {
				active += v
			}
		}
		if pkts > 0 && active == 0 {
			t.Errorf("packet-loss not active at %v: the alert's for: would start again", ts)
		}
		if ts > last+2*(last-first) && pkts > 2*packets {
			break // into the third pass
		}
	}
	if resp, err := http.Get("http://" + addr + "/readyz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("/readyz of a looped replay: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if out, err := exec.Command(bin, "serve", "--loop").CombinedOutput(); err == nil || !strings.Contains(string(out), "--loop plays a recording again and again: it needs --replay FILE") {
		t.Errorf("serve --loop without --replay: %v %s", err, out)
	}
}

// onePass is what one replay of rec holds: its first and last Frame's
// times (Unix seconds) and its RoCE packets.
func onePass(t *testing.T, bin, rec string) (first, last, packets float64) {
	t.Helper()
	out, err := exec.Command(bin, "replay", rec, "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Series []struct {
			Time    time.Time `json:"time"`
			Packets float64   `json:"roce_packets"`
		} `json:"series"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Series) < 2 {
		t.Fatalf("replay --json: %v, %d ticks", err, len(doc.Series))
	}
	for _, s := range doc.Series {
		packets += s.Packets
	}
	toS := func(tm time.Time) float64 { return float64(tm.UnixNano()) / 1e9 }
	return toS(doc.Series[0].Time), toS(doc.Series[len(doc.Series)-1].Time), packets
}

// scrape returns addr's /metrics as series (name and labels as exposed)
// to values.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.LastIndexByte(line, ' '); i > 0 && !strings.HasPrefix(line, "#") {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				m[line[:i]] = v
			}
		}
	}
	return m
}
