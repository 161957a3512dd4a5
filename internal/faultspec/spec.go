// Package faultspec reads and writes the spec lines of the two-point
// wire-truth campaign (test/lab/twopoint, docs/wiretruth.md) and names
// the fault families a fault column asks for. The names are for tables
// only: what the network actually did comes from the truth
// (internal/wiretruth), never from the spec.
package faultspec

import (
	"fmt"
	"strings"
)

// Where a fault sits.
const (
	Mid = "mid" // between the two capture points (netns mid)
	Src = "src" // on the sender's own egress, before its capture point
)

// Spec is one run: name | workload | A→B fault | B→A fault | perftest
// args | where (fwd [rev]) | network. The last three columns are
// optional; "-" is no fault.
type Spec struct {
	Name, Workload string
	Fwd, Rev       string // the fault on A→B and on B→A, "-" for none
	Extra          string // perftest arguments for both ends
	AtFwd, AtRev   string // Mid or Src
	Net            string // v4, v6, v4-vlan, v6-vlan
}

// Parse reads one spec line (as campaign.sh does; also the "spec: "
// line of a run's meta.txt without its prefix).
func Parse(line string) (Spec, error) {
	cols := strings.Split(line, "|")
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
	}
	if len(cols) < 4 {
		return Spec{}, fmt.Errorf("spec %q: want at least 4 columns, got %d", line, len(cols))
	}
	for len(cols) < 7 {
		cols = append(cols, "")
	}
	s := Spec{Name: cols[0], Workload: cols[1], Fwd: cols[2], Rev: cols[3], Extra: cols[4], Net: cols[6]}
	at := strings.Fields(cols[5])
	s.AtFwd, s.AtRev = Mid, Mid
	if len(at) > 0 {
		s.AtFwd, s.AtRev = at[0], at[0]
	}
	if len(at) > 1 {
		s.AtRev = at[1]
	}
	if s.Net == "" {
		s.Net = "v4"
	}
	return s, nil
}

// String writes the spec line with every column.
func (s Spec) String() string {
	return fmt.Sprintf("%s | %s | %s | %s | %s | %s %s | %s", s.Name, s.Workload, s.Fwd, s.Rev, s.Extra, s.AtFwd, s.AtRev, s.Net)
}
