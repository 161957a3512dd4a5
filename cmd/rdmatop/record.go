package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

func newRecordCmd() *cobra.Command {
	var (
		hf       hostFlags
		out      string
		duration time.Duration
	)
	cmd := &cobra.Command{
		Use:   "record -o FILE",
		Short: "record what the host probes see, tick by tick, into a replayable bundle",
		Long: `Record everything the probes read (sysfs and /proc files, ethtool -S,
rtnetlink, RDMA netlink, DCB netlink, kernel log) every --interval into
FILE (gzip-compressed when it ends in .gz). Each tick is flushed as it is
written: Ctrl-C or a kill loses at most one tick. Replay it anywhere with
rdmatop replay FILE. The format is in docs/bundle.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError{fmt.Errorf("record needs -o FILE")}
			}
			if err := hf.check(); err != nil {
				return err
			}
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return usageError{err}
			}
			defer f.Close()
			src, closeSrc, _ := sampler.LiveSources(hf.root)
			defer closeSrc()
			sel := ""
			if hf.netdev != "" {
				sel = "-i " + hf.netdev
			} else if hf.device != "" {
				sel = "-d " + hf.device
			}
			w, err := bundle.NewWriter(f, bundle.Header{Created: time.Now().UTC(), Tool: "rdmatop " + version,
				Host:     bundle.Host{Hostname: src.Host.Hostname, Kernel: src.Host.Kernel, Arch: runtime.GOARCH, Uid: os.Getuid()},
				Interval: hf.interval.String(), Selection: sel}, strings.HasSuffix(out, ".gz"))
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
			rec := sampler.NewRecorder(src, sampler.Options{Netdev: hf.netdev, Device: hf.device})
			ticks := 0
			for {
				_, tick, err := rec.Sample(ctx, time.Now())
				if err != nil {
					return err
				}
				if err := w.WriteTick(tick); err != nil {
					return err
				}
				ticks++
				select {
				case <-ctx.Done():
					fmt.Fprintf(cmd.ErrOrStderr(), "rdmatop: recorded %d ticks to %s\n", ticks, out)
					return w.Close()
				case <-time.After(hf.interval):
				}
			}
		},
	}
	hf.register(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "bundle file to write (must not exist; .gz compresses)")
	cmd.Flags().DurationVar(&duration, "duration", 0, "stop after this long (default: until Ctrl-C)")
	return cmd
}
