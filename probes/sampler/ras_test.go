package sampler

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/ncclras"
)

// RAS's answer (NCCL's published 2.29.1 sample: rank 1 unresponsive) is
// in every snapshot; a rank newly unresponsive, then dead, is an event
// once each; a failed query says nothing of ranks; a recording replays
// the same snapshots.
func TestRASAnswersAndEvents(t *testing.T) {
	b, err := os.ReadFile(fixtures + "ncclras/status-2.29.1-docs.json")
	if err != nil {
		t.Fatal(err)
	}
	var unresponsive probes.NCCLRAS
	if err := json.Unmarshal(b, &unresponsive); err != nil {
		t.Fatal(err)
	}
	dead := unresponsive
	dead.Communicators = append([]probes.NCCLCommunicator(nil), unresponsive.Communicators...)
	dead.Communicators[0].Missing = append([]probes.NCCLMissingRank(nil), unresponsive.Communicators[0].Missing...)
	dead.Communicators[0].Missing[0].Status.ConsideredDead = true

	fake := &ncclras.Fake{Status: &unresponsive}
	rec := NewRecorder(Sources{RAS: fake, Label: "fixture"}, Options{})
	var buf bytes.Buffer
	w, _ := bundle.NewPcapngWriter(&buf, bundle.Header{Interval: "1s"}, bundle.PcapngOptions{Gzip: true})
	t0 := time.Date(2025, 12, 19, 13, 7, 0, 0, time.UTC)
	steps := []struct {
		status *probes.NCCLRAS
		err    error
		kind   string // the RAS event of the sample, "" none
	}{
		{&unresponsive, nil, KindRASRankUnresponsive},
		{&unresponsive, nil, ""},
		{nil, context.DeadlineExceeded, ""},
		{&dead, nil, KindRASRankDead},
	}
	var live [][]byte
	for i, st := range steps {
		fake.Status, fake.Err = st.status, st.err
		snap, tick, err := rec.Sample(context.Background(), t0.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		w.WriteTick(tick)
		js, _ := json.Marshal(snap)
		live = append(live, js)
		var kinds []string
		for _, e := range snap.Events {
			if e.Source == "nccl" {
				kinds = append(kinds, e.Kind)
				if !strings.Contains(e.Detail, "process 1524345 on node 172.16.64.245 managing GPU 1") {
					t.Errorf("step %d: detail %q", i, e.Detail)
				}
			}
		}
		if want := st.kind; (want == "" && len(kinds) != 0) || (want != "" && (len(kinds) != 1 || kinds[0] != want)) {
			t.Errorf("step %d: events %v, want %q", i, kinds, want)
		}
		if (snap.NCCLRAS != nil) != (st.status != nil) {
			t.Errorf("step %d: RAS in the snapshot %v", i, snap.NCCLRAS != nil)
		}
		if st.err != nil && !strings.Contains(js2status(snap, "nccl-ras"), "timeout") {
			t.Errorf("step %d: status %s", i, js2status(snap, "nccl-ras"))
		}
	}
	w.Close()

	checkReplay(t, &buf, live)
}

func js2status(s *probes.Snapshot, source string) string {
	for _, st := range s.Status {
		if st.Source == source {
			return string(st.State) + ": " + st.Detail
		}
	}
	return ""
}
