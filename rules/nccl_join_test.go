package rules_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/nccl"
	"github.com/rdmatop/rdmatop/rules"
)

// The lab's real fault recording (veth1 taken down under running QPs,
// testdata/lab/faults) with a job's NCCL log followed beside it: the
// status-12 lines (real NCCL 2.30 lines, testdata/nccl/19-*) are read in
// the sample where the port went down. What this host shows at that time
// is the cause, the NCCL error its consequence, listed under it. (The
// recording holds several faults; the story as a whole begins with an
// earlier one.)
func TestNCCLErrorJoinedWithPortDown(t *testing.T) {
	path := hrFix + "lab/faults/faults.bundle.gz"
	down := -1
	for i, s := range hrReplay(t, path, nil) {
		if slices.ContainsFunc(s.Events, func(e probes.Event) bool {
			return e.Source == "port" && e.Kind == "port_state" && e.Device == "rxe1" && strings.Contains(e.Detail, "DOWN")
		}) {
			down = i
			break
		}
	}
	if down < 0 {
		t.Fatal("no port going down in the faults recording")
	}
	raw, err := os.ReadFile(hrFix + "nccl/19-nccl2397-v2.30.4-retry-exc-newest-format-got-cqe.log")
	if err != nil {
		t.Fatal(err)
	}
	// The log is another cluster's (mlx5_0, mlx5_1): as this host's job
	// would have written it, it names this host's device. A cause joins
	// an NCCL error only on the device the error names.
	lines := strings.NewReplacer("mlx5_0", "rxe1", "mlx5_1", "rxe1").Replace(string(raw))
	batch, _ := json.Marshal(nccl.Batch{Lines: strings.Split(lines, "\n")})
	tick := 0
	snaps := hrReplay(t, path, func(tk *bundle.Tick) {
		if tick == down {
			tk.Raw["nccl"] = batch
		}
		tick++
	})
	p := hrPack(t)
	res, _ := hrRun(t, p, hrFrames(snaps...), false)
	fs := p.Group(res.Findings, rules.GroupOptions{})
	var retry *rules.Finding
	for i := range fs {
		if fs[i].Rule == "nccl-retry-exceeded" {
			retry = &fs[i]
		}
	}
	if retry == nil {
		t.Fatalf("no nccl-retry-exceeded:\n%s", hrDump(fs))
	}
	if retry.ExplainedBy == nil || (retry.ExplainedBy.Rule != "port-down" && retry.ExplainedBy.Rule != "link-flap") {
		t.Errorf("nccl-retry-exceeded explained by %+v, want the port:\n%s", retry.ExplainedBy, hrDump(fs))
	}
}

// What RAS says is a state: nccl-peer-unreachable holds while a rank is
// missing (NCCL's published 2.29.1 answer), names it, and clears when RAS
// answers without it; nccl-rank-error holds on a rank with an error
// pending (6, ncclRemoteError), not on one in progress (7).
func TestRASFindings(t *testing.T) {
	b, err := os.ReadFile(hrFix + "ncclras/status-2.29.1-docs.json")
	if err != nil {
		t.Fatal(err)
	}
	load := func() *probes.NCCLRAS {
		var st probes.NCCLRAS
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		st.Addr = "localhost:28028"
		return &st
	}
	missing := load()
	healed := load()
	c := &healed.Communicators[0]
	c.Missing, c.MissingCount = nil, 0
	inProgress := load()
	inProgress.Communicators[0].Missing = nil
	inProgress.Communicators[0].Ranks[0].Status.AsyncError = 7
	remote := load()
	remote.Communicators[0].Missing = nil
	remote.Communicators[0].Ranks[0].Status.AsyncError = 6

	p := hrPack(t)
	e := rules.NewEngine(p)
	e.IgnoreFor = true
	defer rules.CheckNoFailures(t, e)
	t0 := time.Date(2025, 12, 19, 13, 7, 0, 0, time.UTC)
	active := func(i int, st *probes.NCCLRAS) map[string]string {
		snap := hrIdle(t)
		snap.NCCLRAS = st
		res := e.Evaluate(rules.Frame{Time: t0.Add(time.Duration(i) * time.Second), Snapshot: snap})
		out := map[string]string{}
		for _, f := range res.Findings {
			if !f.Resolved && strings.HasPrefix(f.Rule, "nccl-") {
				out[f.Rule] = f.Evidence
			}
		}
		return out
	}
	got := active(0, missing)
	if ev, ok := got["nccl-peer-unreachable"]; !ok || !strings.Contains(ev, "rank 1 of communicator 0xae94423cfbb2ef4a (2 ranks) unresponsive: process 1524345 on node 172.16.64.245 managing GPU 1") {
		t.Errorf("missing rank: %v", got)
	}
	if got := active(1, missing); got["nccl-peer-unreachable"] == "" {
		t.Errorf("a rank still missing no longer holds: %v", got)
	}
	if got := active(2, healed); len(got) != 0 {
		t.Errorf("healed: %v", got)
	}
	if got := active(3, inProgress); len(got) != 0 {
		t.Errorf("in progress is no error: %v", got)
	}
	if got := active(4, remote); !strings.Contains(got["nccl-rank-error"], "process 1524344 on node 172.16.64.245 managing GPU 0, init state 0, async error 6") {
		t.Errorf("remote error: %v", got)
	}
}
