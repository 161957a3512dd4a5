package rules_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

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
	batch, _ := json.Marshal(nccl.Batch{Lines: strings.Split(string(raw), "\n")})
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
