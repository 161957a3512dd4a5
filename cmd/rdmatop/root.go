package main

import (
	"errors"

	"github.com/rdmatop/rdmatop/internal/buildinfo"

	"github.com/spf13/cobra"
)

// version and revision, when set at build time with -ldflags "-X
// main.version=... -X main.revision=..." (make build, make image), override
// the module version and VCS revision the toolchain recorded.
var (
	version  = "dev"
	revision = ""
)

// build is what this binary is (--version, rdmatop_build_info).
var build = buildinfo.Read(version, revision)

func newRootCmd() *cobra.Command {
	var (
		hf     hostFlags
		wf     wireFlags
		ff     flightFlags
		once   bool
		asJSON bool
	)
	root := &cobra.Command{
		Use:   "rdmatop",
		Short: "top for RoCE and RDMA: counters, QPs, the wire and a diagnosis",
		Long: `rdmatop shows what a RoCE/RDMA host is doing and what is wrong with it.

  sudo rdmatop -i eth0             the screen: ports, PFC, congestion, QPs, events and
                                   the RoCE packets on eth0, with a diagnosis
  rdmatop replay FILE              a pcap/pcapng capture or a recording, as a timeline
  rdmatop replay FILE --report     the same analysis as text (--json: as JSON)
  rdmatop --once --json [-i eth0]  one snapshot of the host (and the wire), as JSON
  rdmatop check [FILE]             what is wrong and what to do (exit 1 on warnings)
  rdmatop record -o FILE [-i eth0] record the host and the wire into one file
  sudo rdmatop capture -i eth0     capture RoCE live and report, like replay
  rdmatop serve [--listen :9879]   a Prometheus exporter of the same (deploy/ for the fleet)
  rdmatop rules                    the diagnosis rules
  rdmatop demo                     a built-in scenario, no hardware needed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := hf.check(cmd); err != nil {
				return err
			}
			pack, err := hf.pack()
			if err != nil {
				return err
			}
			if once {
				if !asJSON {
					return usageError{errors.New("--once needs --json (the text view is the screen)")}
				}
				return runOnce(cmd, &hf, &wf, pack)
			}
			if !isTerminal(cmd.OutOrStdout()) {
				return usageError{errors.New("the interactive screen needs a terminal: use --once --json, check, record, replay or capture")}
			}
			return runLiveTUI(cmd, &hf, &wf, &ff, pack)
		},
		Version:       build.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	hf.register(root)
	wf.registerLive(root, true)
	ff.register(root)
	root.PersistentFlags().StringVar(&theme, "theme", "dark", "screen colours: dark or light (NO_COLOR in the environment turns colour off)")
	root.RegisterFlagCompletionFunc("theme", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) { //nolint:errcheck
		return []string{"dark", "light"}, cobra.ShellCompDirectiveNoFileComp
	})
	root.Flags().BoolVar(&once, "once", false, "print one snapshot (two samples --interval apart) and exit")
	root.Flags().BoolVar(&asJSON, "json", false, "with --once: print it as JSON")
	root.AddCommand(newReplayCmd(), newCaptureCmd(), newRecordCmd(), newCheckCmd(), newRulesCmd(), newDemoCmd(), newServeCmd())
	return root
}
