package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/internal/placeholdertest"
)

// checkDoc is the part of `check --json` a placeholder is held against.
type checkDoc struct {
	Findings []struct {
		Rule    string            `json:"rule"`
		Confirm []string          `json:"confirm"`
		Fix     []string          `json:"fix"`
		Objects map[string]string `json:"objects"`
	} `json:"findings"`
	Host *struct {
		Ports []struct {
			Device string `json:"device"`
			Port   int    `json:"port"`
			Netdev string `json:"netdev"`
		} `json:"ports"`
	} `json:"host"`
}

// onlyPort is the input's one RDMA port (device and netdev), when it has
// exactly one: then a command about "the port" can only mean it.
func (d checkDoc) onlyPort() (dev, netdev string) {
	if d.Host == nil {
		return "", ""
	}
	n := 0
	for _, p := range d.Host.Ports {
		if p.Device != "" {
			dev, netdev = p.Device, p.Netdev
			n++
		}
	}
	if n != 1 {
		return "", ""
	}
	return dev, netdev
}

// Every saved output and every capture of testdata, checked as a user
// would: a command keeps a placeholder only when nothing the input holds
// gives its value - the finding's own objects (its device and port, its
// netdev, the flow's destination, its priority), or the input's one RDMA
// port. (Recordings have their own walk: monitor's
// TestNoPlaceholderWhereTheRecordingKnows.)
func TestNoPlaceholderWhereTheInputKnows(t *testing.T) {
	var inputs []string
	for _, glob := range []string{
		"../../testdata/real/*.txt", "../../testdata/sosreport/sosreport-*", "../../testdata/saved/rxe/*",
		"../../testdata/pcaps/*.pcap", "../../testdata/pcaps/*.pcapng", "../../testdata/rxe/pcap/*.pcap*",
		"../../testdata/wiretruth/*/veth0.pcap.gz",
	} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, m...)
	}
	checked, withFindings := 0, 0
	for _, in := range inputs {
		if strings.HasSuffix(in, ".csv") || strings.HasSuffix(in, ".md") {
			continue
		}
		out, errs, code := runCLI(t, "check", "--json", in)
		if code == 2 {
			continue // not something check reads on its own (a fragment of a saved output)
		}
		var doc checkDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: exit %d, %v\n%s", in, code, err, errs)
		}
		if len(doc.Findings) > 0 {
			withFindings++
		}
		dev, netdev := doc.onlyPort()
		place := placeholdertest.Place{Device: dev, Netdev: netdev}
		for _, f := range doc.Findings {
			for _, line := range append(append([]string{}, f.Confirm...), f.Fix...) {
				for _, m := range placeholdertest.Pattern.FindAllString(line, -1) {
					checked++
					if placeholdertest.Known(m, f.Objects, place) {
						t.Errorf("%s: %s %v keeps %s where the input knows it: %s", filepath.Base(in), f.Rule, f.Objects, m, line)
					}
				}
			}
		}
	}
	if withFindings < 40 {
		t.Fatalf("only %d of %d inputs gave findings: testdata moved?", withFindings, len(inputs))
	}
	t.Logf("%d inputs with findings; %d placeholders left, none of them known", withFindings, checked)
}
