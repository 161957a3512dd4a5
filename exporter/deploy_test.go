package exporter

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/rdmatop/rdmatop/rules"
)

var updateDeploy = flag.Bool("update-deploy", false, "rewrite deploy/grafana/rdmatop.json and deploy/prometheus/alerts.yaml")

// deploy/ holds what the rule pack and Panels generate: a changed rule or
// panel without regenerated files fails here.
func TestDeployUpToDate(t *testing.T) {
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	alerts, err := Alerts(pack)
	if err != nil {
		t.Fatal(err)
	}
	dash, err := Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{"../deploy/prometheus/alerts.yaml": alerts, "../deploy/grafana/rdmatop.json": dash} {
		if *updateDeploy {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: go test ./exporter -run TestDeployUpToDate -update-deploy", path)
		}
	}
	var d map[string]any
	if err := json.Unmarshal(dash, &d); err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	for _, r := range pack.Rules {
		if !bytes.Contains(alerts, []byte("alert: "+AlertName(r.ID)+"\n")) {
			t.Errorf("no alert for rule %s", r.ID)
		}
	}
}

func TestAlertName(t *testing.T) {
	for in, want := range map[string]string{"packet-loss": "RdmatopPacketLoss", "pfc-pause-storm": "RdmatopPfcPauseStorm", "x": "RdmatopX"} {
		if got := AlertName(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
