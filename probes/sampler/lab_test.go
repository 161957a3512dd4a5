package sampler

import (
	"context"
	"encoding/json"
	"io"
	"os"
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
		src, err := ReplaySources(tick, "bundle", t.TempDir())
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
