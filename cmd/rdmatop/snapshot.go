package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// twoSamples runs the host (and the wire, with -i) for two ticks
// --interval apart and returns the second: every counter has a rate and
// the wire holds what was captured between them. The rules judge that
// tick alone, every rule firing as soon as its condition holds.
func twoSamples(ctx context.Context, h *hostFlags, w *wireFlags, pack *rules.Pack) (monitor.Frame, error) {
	r, closeSrc, err := liveRun(h, w, pack, liveOpts{ticks: 2, warmup: 1, oneShot: true})
	if err != nil {
		return monitor.Frame{}, err
	}
	defer closeSrc()
	var last monitor.Frame
	for f, err := range r.Frames(ctx) {
		if err != nil {
			return monitor.Frame{}, err
		}
		last = f
	}
	if err := ctx.Err(); err != nil {
		return monitor.Frame{}, err
	}
	return last, nil
}

// snapshotDoc is the JSON of `rdmatop --once --json`: the snapshot, the
// wire analysis of the interval between the two samples (with -i), the
// findings and how every rule fared.
type snapshotDoc struct {
	*probes.Snapshot
	Wire     *capture.Summary  `json:"wire,omitempty"`
	Findings []rules.Finding   `json:"findings"`
	Rules    []rules.RuleState `json:"rules"`
	// Unknown says why nothing could be checked (exit 2); absent when
	// there was something to look at.
	Unknown string `json:"unknown,omitempty"`
}

func runOnce(cmd *cobra.Command, h *hostFlags, w *wireFlags, pack *rules.Pack) error {
	f, err := twoSamples(cmd.Context(), h, w, pack)
	if err != nil {
		return err
	}
	unknown := unknownReason(f, h)
	if err := writeSnapshot(cmd.OutOrStdout(), f, unknown); err != nil {
		return err
	}
	if unknown != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "rdmatop: UNKNOWN:", termtext.Sanitize(unknown))
		return exitCode(exitUsage)
	}
	return nil
}

func writeSnapshot(out io.Writer, f monitor.Frame, unknown string) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(snapshotDoc{Snapshot: f.Snapshot, Wire: f.Interval, Findings: f.Findings, Rules: f.Rules, Unknown: unknown})
}
