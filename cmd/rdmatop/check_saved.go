package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
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
	return checkResult{Source: "saved outputs " + strings.Join(paths, " "), Findings: res.Findings, Rules: res.Rules,
		Inputs: out.Inputs, Model: out.Summary, Host: out.Snapshots[len(out.Snapshots)-1],
		Snapshots: len(out.Snapshots)}, nil
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
