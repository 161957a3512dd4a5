package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/demo"
	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/rules"
)

func newDemoCmd() *cobra.Command {
	var (
		out  outputFlags
		seed int64
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "the whole pipeline on a built-in scenario: no RDMA hardware needed",
		Long: `Run rdmatop on a built-in, deterministic scenario: two mlx5 ports on a
simulated fabric whose counters and packets tell a story — healthy traffic,
then PFC back-pressure on priority 3, ECN marks without CNPs, a QP dropping
to ERR, loss with retransmissions, and recovery. The raw inputs go through
the same sampler, capture analyser, rules and pipeline as a live host.

--report prints the story (each episode and the findings it raised);
--json prints every frame as one JSON document per line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if !out.json && !out.report && isTerminal(w) {
				return runReplayTUI(cmd, monitor.ModeDemo, "demo", func() (*monitor.Run, error) {
					cfg := demo.Config(seed)
					cfg.Packets = screenPackets
					return monitor.New(cfg)
				})
			}
			r, err := demo.NewRun(seed)
			if err != nil {
				return err
			}
			if out.json {
				enc := json.NewEncoder(w)
				for f, err := range r.Frames(cmd.Context()) {
					if err != nil {
						return err
					}
					if err := enc.Encode(f); err != nil {
						return err
					}
				}
				return cmd.Context().Err()
			}
			return demoReport(cmd, w, r)
		},
	}
	out.register(cmd, "the story")
	cmd.Flags().Int64Var(&seed, "seed", demo.DefaultSeed, "jitter seed (the story is the same)")
	return cmd
}

// demoReport tells the scenario: each phase, and the findings that were
// active at its end.
func demoReport(cmd *cobra.Command, w io.Writer, r *monitor.Run) error {
	var prev monitor.Frame
	phase := ""
	flush := func(f monitor.Frame) {
		if phase == "" {
			return
		}
		active := 0
		for _, fd := range f.Findings {
			if fd.Resolved {
				continue
			}
			active++
			fmt.Fprintf(w, "  %-8s %s [%s] %s\n", fd.Severity, termtext.Sanitize(fd.Title), fd.Rule, termtext.Sanitize(fd.Evidence))
		}
		if active == 0 {
			fmt.Fprintln(w, "  no active findings")
		}
	}
	for f, err := range r.Frames(cmd.Context()) {
		if err != nil {
			return err
		}
		if f.Phase != phase {
			flush(prev)
			phase = f.Phase
			fmt.Fprintf(w, "\n%s  %s\n", f.Time.Format("15:04:05"), f.Phase)
		}
		prev = f
	}
	flush(prev)
	fmt.Fprintf(w, "\n%d findings over the run, worst %s (see `rdmatop demo --json` for every frame)\n",
		len(prev.Findings), rules.Worst(prev.Findings))
	return nil
}
