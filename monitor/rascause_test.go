package monitor_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/nccl"
	"github.com/rdmatop/rdmatop/probes/ncclras"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
)

// A rank's NCCL log says its transfers ran out of retries (status 12,
// real NCCL 2.30 lines); RAS says the peer's process does not answer.
// The first finding is the peer, with the retries under it: they are its
// consequence.
func TestDeadPeerExplainsRetryExceeded(t *testing.T) {
	raw, err := os.ReadFile("../testdata/nccl/19-nccl2397-v2.30.4-retry-exc-newest-format-got-cqe.log")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../testdata/ncclras/status-2.29.1-docs.json")
	if err != nil {
		t.Fatal(err)
	}
	var st probes.NCCLRAS
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	// NCCL's sample answer, its missing rank moved to the node the log's
	// first error points at (RAS and the log's peer address are both on
	// NCCL's bootstrap network): the two sources tell one story.
	st.Communicators[0].Missing[0].Host = "10.153.235.13"
	smp := sampler.New(sampler.Sources{Label: "fixture",
		NCCL: &nccl.Fake{Batches: []nccl.Batch{{Lines: strings.Split(string(raw), "\n")}}},
		RAS:  &ncclras.Fake{Status: &st}}, sampler.Options{})
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	r, err := monitor.New(monitor.Config{Host: monitor.SamplerHost{S: smp}, Interval: time.Millisecond, Ticks: 2, Warmup: 1, OneShot: true, Pack: pack})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
	}
	fs := r.Result().Findings
	if len(fs) == 0 || fs[0].Rule != "nccl-peer-unreachable" {
		t.Fatalf("first finding %v", fs)
	}
	if !strings.Contains(fs[0].Evidence, "process 1524345 on node 10.153.235.13") {
		t.Errorf("evidence %q", fs[0].Evidence)
	}
	explained := false
	for _, f := range fs {
		if f.Rule == "nccl-retry-exceeded" {
			explained = f.ExplainedBy != nil && f.ExplainedBy.Rule == "nccl-peer-unreachable"
		}
	}
	if !explained {
		t.Errorf("nccl-retry-exceeded is not under the unreachable peer: %+v", fs)
	}
}
