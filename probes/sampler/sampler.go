// Package sampler runs rdmatop's host probes together: each source in its
// own goroutine with its own timeout, then one probes.Snapshot with rates
// against the previous sample, events and configuration.
//
// Sources come in as interfaces (the live host, fakes, or a replayed
// bundle tick), so the same code serves `rdmatop --once`, `record` and
// `replay`. The clock is the caller's: Sample takes the sample time.
package sampler

import (
	"context"
	"io/fs"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/qpevent"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
	"github.com/rdmatop/rdmatop/probes/sysfs"
)

// Sources are what a Sampler reads. A nil source is skipped and reported
// as not supported.
type Sources struct {
	FS       fs.FS       // the host's "/" (sys/...), a fixture tree or a replayed tree
	ProcRoot string      // directory holding proc/ for procinfo; "" skips it
	Ethtool  ethtool.OS  // ethtool -S
	Links    rtnl.OS     // rtnetlink link stats
	RDMA     rdmanl.Conn // RDMA netlink
	DCB      dcb.Querier // DCB netlink
	Kmsg     kmsg.Source // /dev/kmsg
	Label    string      // "live", "fixture DIR", "bundle FILE"
	Host     probes.HostInfo
	// Status, when set (a replayed tick), is reported instead of what the
	// replayed sources say: the recorded host's view of its sources.
	Status []probes.Status
	// Opened says why sources that are nil could not be opened; it
	// replaces the generic "not given" status of those sources.
	Opened []probes.Status
}

// Options narrow and bound a sample.
type Options struct {
	Netdev  string        // -i: only the RDMA port(s) of this netdev
	Device  string        // -d: only this RDMA device
	Timeout time.Duration // per source; 0 means 2 s
}

// Sampler samples a host. Not safe for concurrent use.
type Sampler struct {
	src       Sources
	opt       Options
	runner    *probes.Runner
	prev      *probes.Snapshot
	prevPorts map[string]portState
	prevGIDs  map[string]string
	prevDevs  map[string]bool
	qps       qpevent.Detector
	ticks     int
	last      *collected
	// devCache is the last full discovery (see devices).
	devCache      []sysfs.Device
	devCacheNames []string
	fullDiscovery bool         // this sample rediscovered the devices
	linkCache     []sysfs.Link // netdev ↔ port, from the last full discovery
	ecnCache      map[string]sysfs.ECN
	ccCache       map[string]sysfs.CCParams
}

// New returns a Sampler over src.
func New(src Sources, opt Options) *Sampler {
	if opt.Timeout <= 0 {
		opt.Timeout = 2 * time.Second
	}
	return &Sampler{src: src, opt: opt, runner: probes.NewRunner()}
}

// Sample takes one sample at time now (the caller's clock).
func (s *Sampler) Sample(ctx context.Context, now time.Time) *probes.Snapshot {
	var c collected
	tasks := s.tasks(&c)
	status := s.runner.Run(ctx, tasks)
	s.memlock(&c)
	snap := s.assemble(&c, now)
	snap.Status = append(status, c.extraStatus...)
	for _, o := range s.src.Opened {
		replaced := false
		for i := range snap.Status {
			if snap.Status[i].Source == o.Source {
				snap.Status[i], replaced = o, true
			}
		}
		if !replaced {
			snap.Status = append(snap.Status, o)
		}
	}
	if s.src.Status != nil {
		// A replay reports what the recorded host's sources said.
		snap.Status = s.src.Status
	}
	s.prev = snap
	s.last = &c
	s.ticks++
	return snap
}

// collected is what the tasks of one sample gathered.
type collected struct {
	devs      []sysfs.Device
	counters  []sysfs.CounterSet
	netdevs   []sysfs.Netdev
	links     []sysfs.Link
	ecn       map[string]sysfs.ECN
	cc        map[string]sysfs.CCParams // by RDMA device
	ethtool   map[string]ethtool.Raw
	rtnl      map[string]rtnl.Link
	rdma      *rdmaResult
	dcb       map[string]dcb.Config
	dcbRaw    map[string]dcb.Raw
	kmsgBatch *kmsg.Batch
	kmsg      []kmsg.Record
	kmsgLost  uint64
	memory    *probes.MemoryConfig
	procs     map[uint32]procFacts

	extraStatus []probes.Status
}

type rdmaResult struct {
	stats   map[string]rdmanl.PortStats // "dev/port" → STAT_GET counters, where sysfs had none
	devices []rdmanl.Device
	qps     []rdmanl.QP
	failed  []uint32
}

type procFacts struct {
	soft      *uint64
	unlimited bool
}

type portState struct {
	state, phys string
	linkDowned  *uint64
	linkErrRec  *uint64
}
