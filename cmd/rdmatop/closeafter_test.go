package main

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes/sampler"
)

// blockedEthtool is an ethtool source whose reads block until released,
// as an ioctl on a wedged driver does; it records a read after close.
type blockedEthtool struct {
	release chan struct{}
	closed  atomic.Bool
	misuse  atomic.Bool
}

func (b *blockedEthtool) Stats(string) (map[string]uint64, error) {
	<-b.release
	if b.closed.Load() {
		b.misuse.Store(true)
	}
	return map[string]uint64{"rx_packets": 1}, nil
}

func (b *blockedEthtool) DriverName(string) (string, error) { return "mlx5_core", nil }

// A probe read abandoned at its timeout still holds its source: the live
// run's close waits for it before closing the sources, and leaves them
// open when it never returns. The sources used to be closed at once, under
// the read (CI: safchain/ethtool's handle went nil inside Stats).
func TestCloseAfterWaitsForAbandonedReads(t *testing.T) {
	eth := &blockedEthtool{release: make(chan struct{})}
	s := sampler.New(sampler.Sources{FS: os.DirFS("../../testdata/sysfs/mlx5-roce-cx6dx-t0"), Ethtool: eth},
		sampler.Options{Timeout: time.Second})
	// sysfs answers within the timeout and names the netdevs; the ethtool
	// read of one of them is abandoned at it, still blocked.
	snap := s.Sample(context.Background(), time.Now())
	abandoned := false
	for _, st := range snap.Status {
		abandoned = abandoned || st.Source == "ethtool" && st.State == "timeout"
	}
	if !abandoned {
		t.Fatalf("the ethtool read was not abandoned: %+v", snap.Status)
	}

	closed := make(chan struct{})
	go func() {
		closeAfter(s, func() { eth.closed.Store(true); close(closed) })
	}()
	select {
	case <-closed:
		t.Fatal("the sources were closed while a probe still read them")
	case <-time.After(200 * time.Millisecond):
	}
	close(eth.release)
	select {
	case <-closed:
	case <-time.After(probeDrain + 5*time.Second):
		t.Fatal("the sources were not closed after the read returned")
	}
	if eth.misuse.Load() {
		t.Error("a read ran on a closed source")
	}
}
