package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/rules"
)

func newCaptureCmd() *cobra.Command {
	var (
		fl       analysisFlags
		iface    string
		duration time.Duration
		count    uint64
		snaplen  int
		promisc  bool
	)
	cmd := &cobra.Command{
		Use:   "capture -i IFACE",
		Short: "capture RoCE live on an interface (AF_PACKET) and report, like replay",
		Long: `Capture RoCEv2 and RoCEv1 frames on a network interface through an
AF_PACKET ring with an in-kernel filter, analyse them as replay does, and
print the report when stopped (Ctrl-C), after --duration or --count.

Needs CAP_NET_RAW (root, or: sudo setcap cap_net_raw+ep $(which rdmatop)).
Hardware RoCE NICs bypass the kernel: the capture sees Soft-RoCE traffic, or
the NIC's own traffic only when its sniffer mode is on (see docs/replay.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if iface == "" {
				return usageError{errors.New("capture needs -i IFACE")}
			}
			cfg, err := fl.config()
			if err != nil {
				return err
			}
			if snaplen != 0 && snaplen < capture.MinSnapLen {
				return usageError{fmt.Errorf("--snaplen %d: at least %d bytes are needed for the RoCE headers", snaplen, capture.MinSnapLen)}
			}
			src, err := capture.OpenLive(iface, capture.LiveOptions{SnapLen: snaplen, Promiscuous: promisc})
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if duration > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, duration)
				defer cancel()
			}
			a := capture.NewAnalyzer(cfg)
			runErr := runLive(ctx, src, a, count)
			st, _ := src.Stats()
			src.Close()
			sum := a.Summary()
			sum.File, sum.Format, sum.LinkType = iface, "live", "ethernet"
			sum.Snaplen = uint32(capture.DefaultSnapLen)
			if snaplen > 0 {
				sum.Snaplen = uint32(snaplen)
			}
			drops := st.Drops
			sum.KernelDrops = &drops
			if runErr != nil {
				sum.Error = runErr.Error()
			}
			var fs []rules.Finding
			if p, perr := rules.WithDir(fl.rules); perr == nil {
				fs = oneShot(p, rules.Frame{Time: lastTime(sum), Wire: sum, Live: true}).Findings
			}
			if err := printReplay(cmd.OutOrStdout(), sum, fs, fl.json); err != nil {
				return err
			}
			return runErr
		},
	}
	cmd.Flags().StringVarP(&iface, "interface", "i", "", "network interface to capture on (the RoCE netdev, e.g. eth0)")
	cmd.Flags().DurationVar(&duration, "duration", 0, "stop after this long (default: until Ctrl-C)")
	cmd.Flags().Uint64Var(&count, "count", 0, "stop after this many frames")
	cmd.Flags().IntVar(&snaplen, "snaplen", 0, "bytes kept per frame (default: whole frames, so ICRCs can be verified; 128 keeps headers only)")
	cmd.Flags().BoolVar(&promisc, "promisc", false, "put the interface in promiscuous mode while capturing")
	fl.register(cmd)
	return cmd
}

// runLive feeds frames to the analyzer until ctx ends or count frames came.
func runLive(ctx context.Context, src *capture.LiveSource, a *capture.Analyzer, count uint64) error {
	var n uint64
	for ctx.Err() == nil {
		data, ci, link, err := src.ReadPacket()
		switch {
		case errors.Is(err, capture.ErrTimeout):
			continue
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
		a.Packet(data, ci, link)
		if n++; count > 0 && n >= count {
			return nil
		}
	}
	return nil
}
