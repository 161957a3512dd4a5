package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
)

// hostFlags select what the host probes look at.
type hostFlags struct {
	netdev, device, root string
	interval             time.Duration
	rules                string
}

func (h *hostFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&h.netdev, "interface", "i", "", "only the RDMA port(s) of this netdev (e.g. eth0)")
	cmd.Flags().StringVarP(&h.device, "device", "d", "", "only this RDMA device (e.g. mlx5_0)")
	cmd.Flags().StringVar(&h.root, "root", "/", "read /sys and /proc below this directory (a fixture tree, or /host in a container)")
	cmd.Flags().DurationVar(&h.interval, "interval", time.Second, "time between samples")
	cmd.Flags().StringVar(&h.rules, "rules", "", "directory of extra rule files (*.yaml); same ids override built-in rules")
}

func (h *hostFlags) check() error {
	if h.interval < 10*time.Millisecond || h.interval > time.Hour {
		return usageError{fmt.Errorf("--interval %v: between 10ms and 1h", h.interval)}
	}
	if h.netdev != "" && h.device != "" {
		return usageError{errors.New("-i and -d are exclusive")}
	}
	if st, err := os.Stat(h.root); err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("--root %s: not a directory", h.root)}
	}
	return nil
}

// runOnce prints one snapshot: two samples --interval apart, so that every
// counter has a rate.
func runOnce(ctx context.Context, w io.Writer, h hostFlags) error {
	snap, err := sampleTwice(ctx, h)
	if err != nil {
		return err
	}
	p, err := rules.WithDir(h.rules)
	if err != nil {
		return usageError{err}
	}
	res := oneShot(p, rules.Frame{Time: snap.Time, Snapshot: snap, Live: h.root == "/"})
	return writeSnapshot(w, snap, res)
}

// sampleTwice samples the host twice --interval apart, so that every
// counter has a rate, and returns the second snapshot.
func sampleTwice(ctx context.Context, h hostFlags) (*probes.Snapshot, error) {
	src, closeSrc, _ := sampler.LiveSources(h.root)
	defer closeSrc()
	s := sampler.New(src, sampler.Options{Netdev: h.netdev, Device: h.device})
	now := time.Now()
	s.Sample(ctx, now)
	select {
	case <-time.After(h.interval):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Sample(ctx, now.Add(h.interval)), nil
}

// snapshotDoc is the JSON of `rdmatop --once --json`: the snapshot, the
// findings and how every rule fared.
type snapshotDoc struct {
	*probes.Snapshot
	Findings []rules.Finding   `json:"findings"`
	Rules    []rules.RuleState `json:"rules"`
}

func writeSnapshot(w io.Writer, snap *probes.Snapshot, res rules.Result) error {
	if res.Findings == nil {
		res.Findings = []rules.Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(snapshotDoc{Snapshot: snap, Findings: res.Findings, Rules: res.Rules})
}
