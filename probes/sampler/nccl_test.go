package sampler

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/nccl"
)

// A followed NCCL log (real NCCL 2.30 lines, testdata/nccl/19-*) gives
// events as it grows: the lines already there at the start, said so; a
// CQE line and its completion read in two samples still joined (the QP
// number is on the first); and a recording replays the same snapshots.
func TestNCCLLogFollowedRecordedReplayed(t *testing.T) {
	raw, err := os.ReadFile(fixtures + "nccl/19-nccl2397-v2.30.4-retry-exc-newest-format-got-cqe.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	path := filepath.Join(t.TempDir(), "job.log")
	write := func(part []string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(strings.Join(part, ""))
		f.Close()
	}
	fl := nccl.Follow(path)
	defer fl.Close()
	rec := NewRecorder(Sources{NCCL: fl, Label: "fixture"}, Options{})
	var buf bytes.Buffer
	w, err := bundle.NewPcapngWriter(&buf, bundle.Header{Interval: "1s"}, bundle.PcapngOptions{Gzip: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 9, 9, 10, 46, 40, 0, time.UTC)
	var live [][]byte
	var got [][]probes.Event
	for i, part := range [][]string{lines[:4], lines[4:5], lines[5:7]} {
		write(part)
		snap, tick, err := rec.Sample(context.Background(), t0.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		w.WriteTick(tick)
		b, _ := json.Marshal(snap)
		live = append(live, b)
		var evs []probes.Event
		for _, e := range snap.Events {
			if e.Source == "nccl" {
				evs = append(evs, e)
			}
		}
		got = append(got, evs)
	}
	w.Close()
	if len(got[0]) != 1 || got[0][0].Kind != nccl.KindCompletion || got[0][0].Device != "mlx5_1" || got[0][0].QPN == nil || *got[0][0].QPN != 26257 ||
		!strings.HasSuffix(got[0][0].Detail, "(in the log before rdmatop started)") || !got[0][0].Time.Equal(t0) {
		t.Errorf("first sample: %+v", got[0])
	}
	if len(got[1]) != 0 {
		t.Errorf("a CQE line alone is no event yet: %+v", got[1])
	}
	if len(got[2]) != 1 || got[2][0].QPN == nil || *got[2][0].QPN != 21535 || got[2][0].Device != "mlx5_0" ||
		strings.Contains(got[2][0].Detail, "before rdmatop") || got[2][0].NCCL == nil || got[2][0].NCCL.Status == nil || *got[2][0].NCCL.Status != 12 {
		t.Errorf("third sample: %+v", got[2])
	}

	checkReplay(t, &buf, live)
}
