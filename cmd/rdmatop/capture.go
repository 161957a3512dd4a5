package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/probes"
)

func newCaptureCmd() *cobra.Command {
	var (
		hf       hostFlags // -i, --interval, --rules
		wf       wireFlags
		out      outputFlags
		duration time.Duration
		count    uint64
	)
	cmd := &cobra.Command{
		Use:   "capture -i IFACE | --wire -",
		Short: "capture RoCE live on an interface (AF_PACKET) and report, like replay",
		Long: `Capture RoCEv2 and RoCEv1 frames on a network interface through an
AF_PACKET ring with an in-kernel filter, analyse them as replay does, and
print the report when stopped (Ctrl-C), after --duration or --count.
rdmatop -i IFACE shows the same analysis live, beside the host.

Needs CAP_NET_RAW (root, or: sudo setcap cap_net_raw+ep $(which rdmatop)).
Hardware RoCE NICs bypass the kernel: the capture sees Soft-RoCE traffic, or
the NIC's own traffic only when its sniffer mode is on (see docs/replay.md).
--wire reads the frames from a sniffer's pcap stream instead, until it ends:
  tcpdump -i mlx5_0 -U -w - udp port 4791 | rdmatop capture --wire -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if hf.netdev == "" && wf.stream == "" {
				return usageError{errors.New("capture needs -i IFACE, or --wire - and a sniffer's stream")}
			}
			if err := out.check(); err != nil {
				return err
			}
			pack, err := hf.pack()
			if err != nil {
				return err
			}
			r, closeSrc, err := liveRun(&hf, &wf, pack, liveOpts{noHost: true, needWire: true, intervalsOnly: true})
			if err != nil {
				return err
			}
			defer closeSrc()
			// As tcpdump says "listening on": the capture is open, and
			// what stops it.
			if wf.stream != "" {
				from := wf.stream
				if from == "-" {
					from = "standard input"
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "rdmatop: reading the wire from %s until it ends; Ctrl-C stops and reports\n", termtext.Sanitize(from))
			} else {
				fmt.Fprintf(cmd.ErrOrStderr(), "rdmatop: capturing RoCE on %s; Ctrl-C stops and reports\n", termtext.Sanitize(hf.netdev))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if duration > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, duration)
				defer cancel()
			}
			var seen uint64
			for f, err := range r.Frames(ctx) {
				if err != nil {
					return failure{err} // the live capture failed once running
				}
				if f.Interval != nil {
					seen += f.Interval.Packets
				}
				if count > 0 && seen >= count {
					break
				}
				if wf.stream != "" && f.WireStatus != nil && f.WireStatus.State != probes.StateOK {
					// The stream ended or failed: say how, then report.
					fmt.Fprintf(cmd.ErrOrStderr(), "rdmatop: %s\n", termtext.Sanitize(f.WireStatus.Detail))
					break
				}
			}
			res := r.Result()
			if out.json {
				err = writeWholeJSON(newJSONStream(cmd.OutOrStdout()), res)
			} else {
				err = printCaptureReport(cmd.OutOrStdout(), res)
			}
			if err == nil && res.Err != nil {
				err = usageError{res.Err} // a stream that was no capture, or broke off
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&hf.netdev, "interface", "i", "", "network interface to capture on (the RoCE netdev, e.g. eth0)")
	completeNames(cmd, "interface", netdevNames)
	cmd.Flags().DurationVar(&hf.interval, "interval", 100*time.Millisecond, "how often the analysis is cut (the report is the whole capture)")
	cmd.Flags().StringVar(&hf.rules, "rules", "", "directory of extra rule files (*.yaml); same ids override built-in rules")
	cmd.Flags().DurationVar(&duration, "duration", 0, "stop after this long (default: until Ctrl-C)")
	cmd.Flags().Uint64Var(&count, "count", 0, "stop after this many frames (counted at the next --interval)")
	wf.registerLive(cmd, false)
	out.register(cmd, "the analysis")
	return cmd
}
