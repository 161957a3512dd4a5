package main

import (
	"errors"

	"github.com/rdmatop/rdmatop/rules"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func newRootCmd() *cobra.Command {
	var (
		hf     hostFlags
		once   bool
		asJSON bool
	)
	root := &cobra.Command{
		Use:   "rdmatop",
		Short: "top for RoCE and RDMA: counters, QPs, the wire and a diagnosis",
		Long: `rdmatop shows what a RoCE/RDMA host is doing and what is wrong with it.

  rdmatop replay FILE --report     analyse a pcap/pcapng capture (also .gz)
  rdmatop replay FILE --json       the same analysis as one JSON document
  sudo rdmatop capture -i eth0     capture RoCE live (AF_PACKET) and report
  rdmatop --once --json [-i eth0]  one snapshot of the host: ports, counters and rates,
                                   PFC, congestion, QPs, events, config, probe status
  rdmatop record -o FILE           record what the probes see, tick by tick
  rdmatop check [FILE]             what is wrong and what to do (exit 1 on warnings)
  rdmatop rules                    the diagnosis rules
  rdmatop demo                     a built-in scenario, no hardware needed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := hf.check(); err != nil {
				return err
			}
			if !once {
				if !isTerminal(cmd.OutOrStdout()) {
					return usageError{errors.New("the interactive screen needs a terminal: use --once --json, check, record, replay or capture")}
				}
				p, err := rules.WithDir(hf.rules)
				if err != nil {
					return usageError{err}
				}
				return runTUI(cmd, tuiSource{root: hf.root, netdev: hf.netdev, device: hf.device, interval: hf.interval, pack: p})
			}
			if !asJSON {
				return usageError{errors.New("--once needs --json for now (the text view comes with the screen)")}
			}
			return runOnce(cmd.Context(), cmd.OutOrStdout(), hf)
		},
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	hf.register(root)
	root.PersistentFlags().StringVar(&theme, "theme", "dark", "screen colours: dark or light (NO_COLOR in the environment turns colour off)")
	root.Flags().BoolVar(&once, "once", false, "print one snapshot (two samples --interval apart) and exit")
	root.Flags().BoolVar(&asJSON, "json", false, "with --once: print it as JSON")
	root.AddCommand(newReplayCmd(), newCaptureCmd(), newRecordCmd(), newCheckCmd(), newRulesCmd(), newDemoCmd())
	return root
}
