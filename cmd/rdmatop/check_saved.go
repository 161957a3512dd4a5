package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
	"github.com/rdmatop/rdmatop/saved"
)

// checkSaved diagnoses saved outputs: package saved builds the host model,
// the pipeline judges it as it would a recording.
func checkSaved(cmd *cobra.Command, paths []string, pack *rules.Pack) (checkResult, error) {
	out, err := saved.Load(paths)
	if err != nil {
		if errors.Is(err, saved.ErrNothingRead) && out != nil {
			writeInputs(cmd.ErrOrStderr(), out.Inputs)
		}
		return checkResult{}, usageError{err}
	}
	r, err := monitor.New(monitor.Config{Mode: monitor.ModeReplay, Source: strings.Join(paths, " "),
		Tape: monitor.NewSnapshotTape(out.Snapshots), Pack: pack})
	if err != nil {
		return checkResult{}, err
	}
	for _, err := range r.Frames(cmd.Context()) {
		if err != nil {
			break
		}
	}
	if err := cmd.Context().Err(); err != nil {
		return checkResult{}, err
	}
	res := r.Result()
	if res.Err != nil {
		return checkResult{}, usageError{res.Err}
	}
	host := out.Snapshots[len(out.Snapshots)-1]
	cr := checkResult{Source: "saved outputs " + strings.Join(paths, " "), Findings: res.Findings, Rules: res.Rules,
		Inputs: out.Inputs, Model: out.Summary, Host: host, Snapshots: len(out.Snapshots)}
	if !judgeable(host) && len(res.Findings) == 0 {
		// Settings alone (a QoS transcript), or one reading of a netdev's
		// counters: the rules judge a port's state or counter rates, so
		// every rule that "held" here held on nothing.
		cr.Unknown = "nothing was checked: the inputs hold " + out.Summary +
			", but no RDMA port, QP, GID or kernel log event, nor two readings of counters to take rates from" +
			" (add the port's sysfs counters, or a second ethtool -S some seconds later)"
	}
	return cr, nil
}

// judgeable reports whether a model of saved outputs holds what a rule
// judges: an RDMA port (its state), a QP, a GID, an event (a kernel log
// line, an NCCL warning; not what NCCL chose, which alone vouches for no
// host), or a port's counters read twice (rates).
func judgeable(s *probes.Snapshot) bool {
	for _, p := range s.Ports {
		if p.Device != "" || s.Interval > 0 {
			return true
		}
	}
	return len(s.QPs) > 0 || len(s.Config.GIDs) > 0 || slices.ContainsFunc(s.Events, func(e probes.Event) bool {
		return e.Source != "nccl" || e.Severity != probes.SevInfo
	})
}

// writeInputs lists what each input was and what was read from it.
func writeInputs(w io.Writer, inputs []saved.Input) {
	fmt.Fprintln(w, "\ninputs")
	for _, in := range inputs {
		fmt.Fprintf(w, "  %s\n    %s\n", termtext.Sanitize(in.Path), termtext.Sanitize(string(in.Kind)))
		for _, r := range in.Read {
			fmt.Fprintf(w, "      read     %s\n", termtext.Sanitize(r))
		}
		for _, r := range in.Ignored {
			fmt.Fprintf(w, "      ignored  %s\n", termtext.Sanitize(r))
		}
	}
}
