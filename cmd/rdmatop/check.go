package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// checkResult is the JSON of `rdmatop check --json`.
type checkResult struct {
	Source   string            `json:"source"` // live, capture FILE, bundle FILE
	Findings []rules.Finding   `json:"findings"`
	Rules    []rules.RuleState `json:"rules"`
	Worst    string            `json:"worst,omitempty"`
}

func newCheckCmd() *cobra.Command {
	var (
		hf     hostFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "check [FILE]",
		Short: "evaluate the diagnosis rules once: on this host, a capture or a recorded bundle",
		Long: `Evaluate the rules once and print what is wrong and what to do about it.

  rdmatop check [-i NETDEV|-d DEV] [--root DIR] [--interval D]   this host (two samples)
  rdmatop check FILE                                             a pcap/pcapng capture or a bundle

Exit status: 0 when nothing is at warning or above, 1 when something is
(in a bundle: at any time during the recording), 2 on usage or input
errors. rdmatop never runs the confirm or fix commands it prints.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := rules.WithDir(hf.rules)
			if err != nil {
				return usageError{err}
			}
			var res checkResult
			switch {
			case len(args) == 0:
				if err := hf.check(); err != nil {
					return err
				}
				res, err = checkLive(cmd.Context(), p, hf)
			case isBundleFile(args[0]):
				res, err = checkBundle(cmd.Context(), p, args[0])
			default:
				res, err = checkCapture(p, args[0])
			}
			if err != nil {
				return usageError{err}
			}
			res.Worst = string(rules.Worst(res.Findings))
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				writeFindings(cmd.OutOrStdout(), res)
			}
			if rules.AtLeastWarning(res.Findings) {
				return exitCode(exitFindings)
			}
			return nil
		},
	}
	hf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	return cmd
}

func oneShot(p *rules.Pack, f rules.Frame) rules.Result {
	e := rules.NewEngine(p)
	e.IgnoreFor = true // one evaluation: the sampling interval is all the history there is
	return e.Evaluate(f)
}

func checkLive(ctx context.Context, p *rules.Pack, h hostFlags) (checkResult, error) {
	snap, err := sampleTwice(ctx, h)
	if err != nil {
		return checkResult{}, err
	}
	r := oneShot(p, rules.Frame{Time: snap.Time, Snapshot: snap, Live: h.root == "/"})
	return checkResult{Source: "live", Findings: r.Findings, Rules: r.Rules}, nil
}

func checkCapture(p *rules.Pack, path string) (checkResult, error) {
	sum, err := capture.AnalyzeFile(path, capture.Config{})
	if err != nil {
		return checkResult{}, err
	}
	r := oneShot(p, rules.Frame{Time: lastTime(sum), Wire: sum})
	return checkResult{Source: "capture " + path, Findings: r.Findings, Rules: r.Rules}, nil
}

func lastTime(s *capture.Summary) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s.LastTS)
	return t
}

// checkBundle evaluates every recorded tick in order, honouring each
// rule's `for`, and reports every finding that fired at any time.
func checkBundle(ctx context.Context, p *rules.Pack, path string) (checkResult, error) {
	e := rules.NewEngine(p)
	var last rules.Result
	_, _, err := playBundle(ctx, path, func(_ int, snap *probes.Snapshot) {
		last = e.Evaluate(rules.Frame{Time: snap.Time, Snapshot: snap})
	})
	if err != nil {
		return checkResult{}, err
	}
	return checkResult{Source: "bundle " + path, Findings: last.Findings, Rules: last.Rules}, nil
}

func writeFindings(w io.Writer, res checkResult) {
	if res.Source != "" {
		fmt.Fprintf(w, "rdmatop check: %s\n", sanitize(res.Source))
	}
	if len(res.Findings) == 0 {
		fmt.Fprintln(w, "\nno findings")
	}
	for _, f := range res.Findings {
		state := ""
		if f.Resolved {
			state = " (resolved)"
		}
		fmt.Fprintf(w, "\n%s %s [%s]%s\n", strings.ToUpper(string(f.Severity)), sanitize(f.Title), f.Rule, state)
		fmt.Fprintf(w, "  on       %s\n", sanitize(objects(f.Objects)))
		fmt.Fprintf(w, "  evidence %s\n", sanitize(f.Evidence))
		fmt.Fprintf(w, "  cause    %s\n", sanitize(strings.TrimSpace(f.Cause)))
		for i, c := range f.Confirm {
			lead := "  confirm  "
			if i > 0 {
				lead = "           "
			}
			fmt.Fprintf(w, "%s%s\n", lead, c)
		}
		for i, c := range f.Fix {
			lead := "  fix      "
			if i > 0 {
				lead = "           "
			}
			fmt.Fprintf(w, "%s%s\n", lead, c)
		}
		if len(f.Docs) > 0 {
			fmt.Fprintf(w, "  docs     %s\n", strings.Join(f.Docs, ", "))
		}
	}
	var cannot []string
	for _, r := range res.Rules {
		if r.State == "cannot_evaluate" {
			cannot = append(cannot, r.Rule)
		}
	}
	if len(cannot) > 0 {
		sort.Strings(cannot)
		fmt.Fprintf(w, "\ncannot evaluate here (data not available; see --json for why): %s\n", strings.Join(cannot, ", "))
	}
}

func objects(m map[string]string) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var out []string
	for _, k := range ks {
		out = append(out, k+"="+m[k])
	}
	if len(out) == 0 {
		return "host"
	}
	return strings.Join(out, " ")
}
