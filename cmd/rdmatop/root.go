package main

import (
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "rdmatop",
		Short: "top for RoCE and RDMA: counters, QPs, the wire and a diagnosis",
		Long: `rdmatop shows what a RoCE/RDMA host is doing and what is wrong with it.

  rdmatop replay FILE --report     analyse a pcap/pcapng capture (also .gz)
  rdmatop replay FILE --json       the same analysis as one JSON document
  sudo rdmatop capture -i eth0     capture RoCE live (AF_PACKET) and report`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newReplayCmd(), newCaptureCmd())
	return root
}
