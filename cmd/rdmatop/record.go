package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// recordCmd is record's flags.
type recordCmd struct {
	hf       hostFlags
	wf       wireFlags
	out      string
	duration time.Duration
	maxSize  int64
}

func newRecordCmd() *cobra.Command {
	var rc recordCmd
	cmd := &cobra.Command{
		Use:   "record -o FILE [-i IFACE]",
		Short: "record the host and the RoCE packets into one file (pcapng), tick by tick",
		Long: `Record everything the probes read (sysfs and /proc files, ethtool -S,
rtnetlink, RDMA netlink, DCB netlink, kernel log, the lines of
--nccl-log) every --interval and, with -i, the RoCE packets captured on
IFACE, on one timeline in one file:
a pcapng that Wireshark and tshark open as is (they show the RoCE packets;
the host ticks are custom blocks beside them). FILE is gzip-compressed when
it ends in .gz. Each tick and the packets before it are flushed as they
are written: Ctrl-C or a kill loses at most the tick being written.
Replay it anywhere with rdmatop replay FILE or rdmatop check FILE. The
format is in docs/bundle.md (version 2; version 1 recordings still replay).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return rc.run(cmd) },
	}
	rc.hf.register(cmd)
	rc.wf.registerLive(cmd, true)
	cmd.Flags().StringVarP(&rc.out, "output", "o", "", "file to write (must not exist; .gz compresses)")
	cmd.Flags().DurationVar(&rc.duration, "duration", 0, "stop after this long (default: until Ctrl-C)")
	cmd.Flags().Int64Var(&rc.maxSize, "max-size", 0, "stop once the file reaches this many bytes (checked after each tick)")
	return cmd
}

func (rc *recordCmd) run(cmd *cobra.Command) error {
	if rc.out == "" {
		return usageError{fmt.Errorf("record needs -o FILE")}
	}
	if err := rc.hf.check(cmd); err != nil {
		return err
	}
	if _, err := rc.wf.config(); err != nil {
		return err
	}
	pack, err := rc.hf.pack()
	if err != nil {
		return err
	}
	f, err := os.OpenFile(rc.out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return usageError{err}
	}
	defer f.Close()
	h, opt := recordingHeader(&rc.hf, &rc.wf)
	opt.Gzip = strings.HasSuffix(rc.out, ".gz")
	w, err := bundle.NewPcapngWriter(f, h, opt)
	if err != nil {
		return err
	}
	r, closeSrc, err := liveRun(&rc.hf, &rc.wf, pack, liveOpts{recorder: w, intervalsOnly: true})
	if err != nil {
		return err
	}
	defer closeSrc()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if rc.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, rc.duration)
		defer cancel()
	}
	ticks, why, runErr := rc.loop(ctx, cmd, r, w)
	var packets uint64
	if res := r.Result(); res.Wire != nil {
		packets = res.Wire.Packets // every packet analysed, less those the writer dropped
	}
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	lostFrames, lostTicks := r.RecordingLost()
	packets -= min(packets, lostFrames)
	ticks -= min(ticks, int(lostTicks))
	fmt.Fprintf(cmd.ErrOrStderr(), "rdmatop: %s: recorded %d ticks and %d packets to %s (%d bytes)\n", why, ticks, packets, rc.out, w.Size())
	if lostFrames > 0 || lostTicks > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "rdmatop: WARNING: %d captured packets and %d host ticks were not written: the disk fell behind the capture (their analysis is complete; the file is not)\n", lostFrames, lostTicks)
	}
	if runErr != nil {
		return failure{runErr} // a live run or its file failed once running
	}
	return nil
}

// loop runs r until it ends, ctx does or the file reaches --max-size,
// and says how many ticks it took and why it stopped.
func (rc *recordCmd) loop(ctx context.Context, cmd *cobra.Command, r *monitor.Run, w *bundle.PcapngWriter) (ticks int, why string, runErr error) {
	why = "stopped"
	for fr, err := range r.Frames(ctx) {
		if err != nil {
			runErr = err
			break
		}
		ticks++
		if ticks == 1 && fr.WireStatus != nil && fr.WireStatus.State != "ok" {
			fmt.Fprintf(cmd.ErrOrStderr(), "rdmatop: recording the host only: %s: %s\n", fr.WireStatus.Source, fr.WireStatus.Detail)
		}
		if rc.maxSize > 0 && w.Size() >= rc.maxSize {
			why = fmt.Sprintf("--max-size %d reached", rc.maxSize)
			break
		}
	}
	if rc.duration > 0 && ctx.Err() == context.DeadlineExceeded {
		why = "--duration " + rc.duration.String() + " reached"
	}
	return ticks, why, runErr
}
