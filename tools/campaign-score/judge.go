package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/internal/faultspec"
	"github.com/rdmatop/rdmatop/internal/wiretruth"
)

// pointResult is one capture point of one run judged.
type pointResult struct {
	point string
	did   []string // what the network did, by the truth, seen from here
	why   string
	// hidden: the network did something but nothing of it is visible
	// here (wiretruth.NothingVisible); then no warning is right.
	hidden   bool
	first    string // rdmatop's first finding at warning or above, "none"
	warnings int
	right    bool
	checks   []wiretruth.CountCheck
	// uncompared: flow observations not held against the truth, because
	// the impairment sat on the flow's sender's own egress, before its
	// capture point: the truth is what happened between the points, and
	// packets dropped, delayed or reordered before both change what both
	// see in ways it cannot know (the qdisc counts drops, not which).
	uncompared int
}

// label is the truth's name for what happened, as seen from the point.
func (p pointResult) label() string {
	switch {
	case len(p.did) == 0:
		return "nothing"
	case p.hidden:
		return p.did[0] + " (not visible here)"
	}
	return p.did[0]
}

// runResult is one run judged at both capture points.
type runResult struct {
	name string
	spec faultspec.Spec
	// rows: the family rows the run is filed under ("loss @mid"), from
	// the spec: names only, never labels.
	rows   []string
	points []pointResult
	// From meta.txt: the workload's exit codes and what each impairing
	// qdisc counted (tc -s) — the qdisc's own account, shown beside the
	// truth where a fault sits before both capture points.
	exits  string
	qdiscs map[string]string // "fwd", "rev" → "netem dropped 3; tbf dropped 9"
	truth  *wiretruth.Run
	mtu    string // the RoCE MTU, from the veth MTU in meta.txt
}

func judgeRun(dir, bin, which string) (runResult, error) {
	t, err := wiretruth.LoadRun(filepath.Join(dir, "truth.json.gz"))
	if err != nil {
		return runResult{}, err
	}
	res := runResult{name: t.Run, truth: t}
	if res.spec, err = faultspec.Parse(t.Spec); err != nil {
		return res, fmt.Errorf("%s: %w", dir, err)
	}
	res.rows = rowsOf(res.spec)
	res.mtu = mtuOf(filepath.Join(dir, "meta.txt"))
	res.exits, res.qdiscs = readMeta(filepath.Join(dir, "meta.txt"))
	for _, c := range t.Captures {
		file := wiretruth.FullCapture(dir, c.Name)
		if which == "cut" {
			file = filepath.Join(dir, c.Name+".pcap.gz")
		}
		p := pointResult{point: c.Name}
		p.did, p.why = wiretruth.NetworkDid(&t.Truth, c.Name)
		p.hidden = len(p.did) > 0 && wiretruth.NothingVisible(&t.Truth, c.Name)
		if p.first, p.warnings, err = check(bin, file); err != nil {
			return res, err
		}
		p.right = wiretruth.FirstFindingRight(p.did, p.hidden, p.first, p.warnings)
		if p.checks, p.uncompared, err = counts(t, c.Name, file); err != nil {
			return res, err
		}
		res.points = append(res.points, p)
	}
	return res, nil
}

// rowsOf names the families a spec drew, each with where it sits.
func rowsOf(s faultspec.Spec) []string {
	var rows []string
	add := func(fault, at string) {
		for _, f := range faultspec.Families(fault) {
			r := f + " @" + at
			if !slices.Contains(rows, r) {
				rows = append(rows, r)
			}
		}
	}
	add(s.Fwd, s.AtFwd)
	add(s.Rev, s.AtRev)
	if len(rows) == 0 {
		rows = []string{"none"}
	}
	return rows
}

// check runs `rdmatop check --json FILE` and returns its first finding at
// warning or above and how many there were.
func check(bin, file string) (first string, warnings int, err error) {
	cmd := exec.Command(bin, "check", "--json", file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		// A capture rdmatop cannot check (exit 2: empty, unreadable) is
		// judged as it is, not dropped: it counts as wrong.
		fmt.Fprintf(os.Stderr, "check %s: %v: %s", file, err, stderr.String())
		return "check-failed", 0, nil
	}
	var doc struct {
		Findings []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return "", 0, fmt.Errorf("check %s: %w", file, err)
	}
	first = "none"
	for _, f := range doc.Findings {
		if f.Severity == "info" {
			continue
		}
		if warnings == 0 {
			first = f.Rule
		}
		warnings++
	}
	return first, warnings, nil
}

// counts holds rdmatop's analysis of the capture at point against the
// truth, flow by flow, as TestWireTruthCampaign does (flows with a PSN
// stream only: not ACKs, CNPs or UD).
func counts(t *wiretruth.Run, point, file string) (checks []wiretruth.CountCheck, uncompared int, err error) {
	s, err := capture.AnalyzeFile(file, capture.Config{})
	if err != nil {
		return nil, 0, err
	}
	impairedBefore := map[string]bool{} // capture points an impairment preceded
	for _, d := range t.DroppedBefore {
		impairedBefore[d.Before] = true
	}
	byKey := map[string]*capture.FlowSummary{}
	for i := range s.Flows {
		f := &s.Flows[i]
		byKey[fmt.Sprintf("%s>%s/%d", f.Src, f.Dst, f.DestQP)] = f
	}
	var out []wiretruth.CountCheck
	for i := range t.Flows {
		ft := &t.Flows[i]
		if ft.Seen[ft.Upstream].Packets == 0 {
			continue
		}
		if impairedBefore[ft.Upstream] {
			uncompared++
			continue
		}
		f := byKey[fmt.Sprintf("%s>%s/%d", ft.Src, ft.Dst, ft.DstQP)]
		if f == nil {
			if ft.Seen[point].Packets > 0 {
				out = append(out, wiretruth.CountCheck{Name: "flow-missing", Want: ft.Seen[point].Packets})
			}
			continue
		}
		out = append(out, ft.Compare(point, wiretruth.Counts{Missing: f.MissingPSNs, Duplicates: f.Duplicates,
			OutOfOrder: f.OutOfOrder, Resent: f.RetransmittedPackets, Episodes: f.GoBackN})...)
	}
	return out, uncompared, nil
}

var (
	qdiscLine = regexp.MustCompile(`^qdisc (\S+) `)
	sentLine  = regexp.MustCompile(`dropped (\d+)`)
	markLine  = regexp.MustCompile(`marked (\d+)`)
)

// readMeta reads the workload's exit codes and each impairment's qdisc
// counters (tc -s at removal) from a run's meta.txt.
func readMeta(path string) (exits string, qdiscs map[string]string) {
	qdiscs = map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		return "no meta.txt", qdiscs
	}
	var ex []string
	section, kind := "", ""
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "client exit ") || strings.HasPrefix(l, "server exit "):
			ex = append(ex, l)
		case strings.HasSuffix(l, " packets dropped by kernel") && !strings.HasPrefix(l, "0 "):
			// A capture that lost packets makes the truth call them lost.
			ex = append(ex, "tcpdump: "+l)
		case strings.HasPrefix(l, "## fwd impairment"):
			section = "fwd"
		case strings.HasPrefix(l, "## rev impairment"):
			section = "rev"
		case strings.HasPrefix(l, "## "):
			section = ""
		case section != "":
			if m := qdiscLine.FindStringSubmatch(l); m != nil {
				kind = m[1]
			} else if m := sentLine.FindStringSubmatch(l); m != nil && kind != "prio" && kind != "" {
				add := fmt.Sprintf("%s dropped %s", kind, m[1])
				qdiscs[section] = strings.TrimPrefix(qdiscs[section]+"; "+add, "; ")
			} else if m := markLine.FindStringSubmatch(l); m != nil && kind == "red" {
				qdiscs[section] += ", marked " + m[1]
			}
		}
	}
	return strings.Join(ex, ", "), qdiscs
}

// captureDrops says which capture of a run dropped packets, from the
// "N packets dropped by kernel" tcpdump wrote into meta.txt: "123417 at
// veth0"; "" when none did.
func captureDrops(meta string) string {
	b, err := os.ReadFile(meta)
	if err != nil {
		return ""
	}
	var out []string
	point := ""
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "## tcpdump "); ok {
			point = p
			continue
		}
		if n, ok := strings.CutSuffix(l, " packets dropped by kernel"); ok && n != "0" {
			out = append(out, n+" at "+point)
		}
	}
	return strings.Join(out, ", ")
}

// mtuOf names the run's RoCE MTU from the veth MTU meta.txt records
// (rxe takes the largest IB MTU that fits in it with its headers).
func mtuOf(meta string) string {
	b, err := os.ReadFile(meta)
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "mtu: "); ok {
			switch v {
			case "1500":
				return "1024"
			case "4500":
				return "4096"
			}
			return "veth " + v
		}
	}
	return "?"
}
