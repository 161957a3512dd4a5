package main

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/rules"
)

func newCheckCmd() *cobra.Command {
	var (
		hf     hostFlags
		wf     wireFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "check [FILE]",
		Short: "evaluate the diagnosis rules once: on this host, a capture or a recording",
		Long: `Evaluate the rules and print what is wrong and what to do about it.

  rdmatop check [-i NETDEV|-d DEV] [--root DIR] [--interval D]   this host: two samples
                                      --interval apart (with -i, and the RoCE packets
                                      captured on NETDEV between them)
  rdmatop check FILE                  a pcap/pcapng capture or an rdmatop recording

Exit status: 0 when nothing is at warning or above, 1 when something is
(in a recording: at any time during it), 2 on usage or input errors.
rdmatop never runs the confirm or fix commands it prints.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pack, err := hf.pack()
			if err != nil {
				return err
			}
			var res checkResult
			if len(args) == 0 {
				if err := hf.check(cmd); err != nil {
					return err
				}
				f, err := twoSamples(cmd.Context(), &hf, &wf, pack)
				if err != nil {
					return err
				}
				res = checkResult{Source: "live", Findings: f.Findings, Rules: f.Rules}
			} else {
				hf.intervalSet = cmd.Flags().Changed("interval")
				open, kind, err := replayOpener(args[0], &hf, &wf, pack, 0)
				if err != nil {
					return err
				}
				r, err := open()
				if err != nil {
					return usageError{err}
				}
				for _, err := range r.Frames(cmd.Context()) {
					if err != nil {
						break
					}
				}
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				out := r.Result()
				if out.Err != nil {
					return usageError{out.Err}
				}
				res = checkResult{Source: "capture " + args[0], Findings: out.Findings, Rules: out.Rules}
				if kind == kindBundle {
					res.Source = "bundle " + args[0]
				}
			}
			return printCheck(cmd, res, asJSON)
		},
	}
	hf.register(cmd)
	wf.registerLive(cmd, true)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	return cmd
}

// printCheck prints the findings and sets the exit status.
func printCheck(cmd *cobra.Command, res checkResult, asJSON bool) error {
	if res.Findings == nil {
		res.Findings = []rules.Finding{}
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
}
