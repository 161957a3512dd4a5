package sampler

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// testdata/lab/probes was recorded by rdmatop itself in the rxe-lab VM,
// on a real Soft-RoCE stack: ib_write_bw, then a link flap on veth1.
// Replaying it must show what iproute2 and the job's own log say happened.
func TestLabRecording(t *testing.T) {
	dir := fixtures + "lab/probes/"
	f, err := os.Open(dir + "record.bundle.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := bundle.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Host.Kernel != "6.1.0-57-amd64" {
		t.Errorf("header %+v", r.Header)
	}
	var snaps []*probes.Snapshot
	var s *Sampler
	for {
		tick, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		src, err := ReplaySources(tick, "", "bundle", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		src.Status = tick.Status
		if s == nil {
			s = New(src, Options{})
		} else {
			s.SetSources(src)
		}
		snaps = append(snaps, s.Sample(context.Background(), tick.Time))
	}
	if len(snaps) < 8 {
		t.Fatalf("%d ticks", len(snaps))
	}

	// iproute2 mid-run: rxe0 QP 17 RTS owned by ib_write_bw.
	var iproute []struct {
		Ifname string `json:"ifname"`
		LQPN   uint32 `json:"lqpn"`
		State  string `json:"state"`
		PID    int    `json:"pid"`
		Comm   string `json:"comm"`
		Type   string `json:"type"`
	}
	b, _ := os.ReadFile(dir + "rdma-res-qp.json")
	if err := json.Unmarshal(b, &iproute); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, q := range iproute {
		if q.Type == "RC" {
			want[q.Ifname+"/"+q.Comm+"/"+itoa(q.PID)+"/"+itoa(int(q.LQPN))] = true
		}
	}
	seenRC := map[string]bool{}
	for _, sn := range snaps {
		for _, q := range sn.QPs {
			if q.Type == "RC" && q.PID != nil {
				seenRC[q.Device+"/"+q.Comm+"/"+itoa(*q.PID)+"/"+itoa(int(q.LQPN))] = true
				if !q.MemlockUnlimited {
					t.Errorf("QP owner memlock: the lab runs with ulimit -l unlimited: %+v", q)
				}
			}
		}
	}
	for k := range want {
		if !seenRC[k] {
			t.Errorf("iproute2 saw RC QP %s, the recording did not (saw %v)", k, seenRC)
		}
	}

	// Events, in order of the job's actions.
	kinds := map[string][]string{}
	for _, sn := range snaps {
		for _, e := range sn.Events {
			kinds[e.Kind] = append(kinds[e.Kind], e.Device)
		}
	}
	for kind, n := range map[string]int{"qp_created": 2, "qp_destroyed": 2, "link_downed": 2} {
		if len(kinds[kind]) != n {
			t.Errorf("%d %s events, want %d: %v", len(kinds[kind]), kind, n, kinds)
		}
	}
	if downs := strings.Count(strings.Join(kinds["port_state"], " "), "rxe"); downs != 4 {
		t.Errorf("port_state events %v: want down and up for rxe0 and rxe1", kinds["port_state"])
	}
	if len(kinds["port_down"]) == 0 || len(kinds["port_active"]) == 0 {
		t.Errorf("kernel log events missing: %v", kinds)
	}

	// sent_pkts rose during the traffic, not before.
	var busy, idle int
	for _, sn := range snaps {
		p := findPort(sn, "rxe0", 1)
		if p == nil || p.Netdev != "veth0" {
			t.Fatalf("rxe0/1: %+v", p)
		}
		for _, c := range p.Counters {
			if c.Native == "sent_pkts" && c.Rate != nil {
				if *c.Rate > 10000 {
					busy++
				} else if *c.Rate == 0 {
					idle++
				}
			}
		}
	}
	if busy < 2 || idle < 3 {
		t.Errorf("sent_pkts rate: %d busy and %d idle ticks", busy, idle)
	}
	for _, st := range snaps[len(snaps)-1].Status {
		if st.Source == "rdma netlink" || st.Source == "sysfs" {
			if st.State != probes.StateOK {
				t.Errorf("%s: %+v", st.Source, st)
			}
		}
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// testdata/lab/faults: rdmatop recorded the lab host (every 250 ms) while
// shared/lab/faults provoked every fault. The RTS→ERR transitions in the
// replay must be exactly the ones the verbs program saw (tool.out), each
// seen within one recording interval (plus TCG slack) of the verbs time.
func TestLabFaultsRecording(t *testing.T) {
	dir := fixtures + "lab/faults/"
	// The verbs view: "<unix> <scenario> state side=A dev=rxe0 qpn=0x000012 prev=RTS state=ERR".
	want := map[string]float64{}
	outs, _ := filepath.Glob(dir + "*/tool.out")
	for _, p := range outs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 8 || f[2] != "state" || f[7] != "state=ERR" {
				continue
			}
			at, _ := strconv.ParseFloat(f[0], 64)
			key := strings.TrimPrefix(f[4], "dev=") + "/" + strings.TrimPrefix(f[5], "qpn=")
			if _, seen := want[key]; !seen {
				want[key] = at
			}
		}
	}
	if len(want) != 15 {
		t.Fatalf("tool.out lists %d QPs going to ERR, the MANIFEST 15", len(want))
	}
	f, err := os.Open(dir + "faults.bundle.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := bundle.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	var s *Sampler
	for {
		tick, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		src, err := ReplaySources(tick, "", "bundle", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if s == nil {
			s = New(src, Options{})
		} else {
			s.SetSources(src)
		}
		for _, e := range s.Sample(context.Background(), tick.Time).Events {
			if e.Kind == "qp_state" && strings.HasSuffix(e.Detail, "-> ERR") && e.Severity == probes.SevCritical {
				key := e.Device + "/" + fmt.Sprintf("0x%x", *e.QPN)
				got[key] = float64(e.Time.UnixNano()) / 1e9
			}
		}
	}
	for k, at := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s went to ERR at %.3f (verbs) but the recording has no RTS->ERR event", k, at)
			continue
		}
		if d := g - at; d < -0.3 || d > 0.75 {
			t.Errorf("%s: ERR seen at %.3f, verbs at %.3f (%.3f s apart)", k, g, at, d)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("the recording has %s going to ERR; the verbs program saw no such thing", k)
		}
	}
}
