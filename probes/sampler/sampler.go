// Package sampler runs rdmatop's host probes together: each source in its
// own goroutine with its own timeout, then one probes.Snapshot with rates
// against the previous sample, events and configuration. A source that
// does not answer in time does not hold up the others and its late answer
// is dropped; what it said last is carried forward, marked stale with its
// age (carry.go), and the ports are the union of what every source knows.
//
// Sources come in as interfaces (the live host, fakes, or a replayed
// bundle tick), so the same code serves `rdmatop --once`, `record` and
// `replay`. The clock is the caller's: Sample takes the sample time.
package sampler

import (
	"context"
	"io/fs"
	"slices"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/fsrec"
	"github.com/rdmatop/rdmatop/probes/gputcp"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/nccl"
	"github.com/rdmatop/rdmatop/probes/ncclras"
	"github.com/rdmatop/rdmatop/probes/owner"
	"github.com/rdmatop/rdmatop/probes/qpevent"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
	"github.com/rdmatop/rdmatop/probes/sysfs"
)

// Sources are what a Sampler reads. A nil source is skipped and reported
// as not supported.
type Sources struct {
	FS       fs.FS          // the host's "/" (sys/...), a fixture tree or a replayed tree
	ProcRoot string         // directory holding proc/ for procinfo; "" skips it
	Ethtool  ethtool.OS     // ethtool -S
	Links    rtnl.OS        // rtnetlink link stats
	RDMA     rdmanl.Conn    // RDMA netlink
	DCB      dcb.Querier    // DCB netlink
	Kmsg     kmsg.Source    // /dev/kmsg
	NCCL     nccl.Source    // a job's NCCL log, followed (--nccl-log)
	RAS      ncclras.Source // NCCL's RAS endpoint (--nccl-ras)
	GPU      gputcp.Source  // processes holding GPU device files, and their TCP bytes
	// Addrs announces address changes (rtnetlink): a sample after one
	// reads the GID tables again at once instead of on their schedule,
	// and the GID events take the time of the change.
	Addrs rtnl.AddrSource
	Label string // "live", "fixture DIR", "bundle FILE"
	Host  probes.HostInfo
	// Status, when set (a replayed tick), is reported instead of what the
	// replayed sources say: the recorded host's view of its sources. A
	// source it says timed out contributes nothing, as on that host.
	Status []probes.Status
	// Opened says why sources that are nil could not be opened; it
	// replaces the generic "not given" status of those sources.
	Opened []probes.Status
}

// Options narrow and bound a sample. -i and -d select RDMA devices: their
// ports, QPs, events (QP, port, device, GID, and kernel log lines that
// name them) and configuration; host-wide facts (memory, kernel log lines
// naming no device) stay.
type Options struct {
	Netdev  string        // -i: only the RDMA device(s) with a port on this netdev
	Device  string        // -d: only this RDMA device
	Timeout time.Duration // per source (RDMA netlink: 3×, see rdmaTimeout); 0 means 2 s
	// Now times each source (its status's duration); time.Now when nil.
	Now func() time.Time
}

// Sampler samples a host. Not safe for concurrent use.
type Sampler struct {
	src    Sources
	opt    Options
	runner *probes.Runner
	record bool // a Recorder's: tasks also keep what they read (collected.files, rdmaEx)
	prev   *probes.Snapshot
	// prevPorts, prevGIDs and prevDevs are the last sample that sysfs
	// answered, for port, GID and device events.
	prevPorts map[string]portState
	prevGIDs  map[gidSlot]probes.GID
	prevDevs  map[string]bool
	lastSeen  map[string]map[string]seen // port → counter → its last reading (see rates)
	qps       qpevent.Detector
	nccl      *nccl.Parser                // across samples: a CQE line and its completion may straddle two
	rasSeen   map[rasRankKey]rasRankState // the last RAS answer's troubled ranks, for events
	ticks     int
	last      *collected
	// What earlier samples learned, for the tasks of the next one (see
	// env). Only commits and assemble change these, on Sample's goroutine.
	devCache      []sysfs.Device // the last full discovery (see devices)
	devCacheNames []string
	linkCache     []sysfs.Link // netdev ↔ port, from the last full discovery
	linksKnown    bool         // linkCache is from a discovery that worked
	ecnCache      map[string]sysfs.ECN
	ccCache       map[string]sysfs.CCParams
	hwPorts       map[string]bool // "dev/port" with sysfs counters at the last sysfs read; nil before one
	selected      *selection      // -d/-i's devices as last known; nil before known

	// What carries a source that stops answering (see carry): the last
	// answer of sysfs, RDMA netlink and DCB, and when each came; the
	// counters are in lastSeen. guard is what sysfs reads go through;
	// its stuck reads outlive the sample that found them.
	guard     *fileGuard
	lastSysfs *sysfsAnswer
	lastRDMA  *rdmaResult
	rdmaAt    time.Time
	lastDCB   map[string]dcb.Config
	dcbAt     time.Time
	// downSince and lastOK say, per source, since when it has not
	// answered and when it last did (sample times).
	downSince map[string]time.Time
	lastOK    map[string]time.Time
}

// sysfsAnswer is the last sysfs answer, carried forward while sysfs does
// not answer.
type sysfsAnswer struct {
	devs    []sysfs.Device
	links   []sysfs.Link
	netdevs []sysfs.Netdev
	at      time.Time
}

// New returns a Sampler over src.
func New(src Sources, opt Options) *Sampler {
	if opt.Timeout <= 0 {
		opt.Timeout = 2 * time.Second
	}
	s := &Sampler{src: src, opt: opt, runner: probes.NewRunner(), guard: newFileGuard(),
		downSince: map[string]time.Time{}, lastOK: map[string]time.Time{}}
	s.runner.Now = opt.Now
	return s
}

// Sample takes one sample at time now (the caller's clock). Each source
// runs in its own goroutine bounded by its timeout; a source that does
// not answer in time is reported as timed out and its late answer is
// dropped. What it said last is carried forward, marked stale with its
// age (see carry), so that a hung source never takes the ports away.
func (s *Sampler) Sample(ctx context.Context, now time.Time) *probes.Snapshot {
	var c collected
	if s.src.Addrs != nil {
		if evs, lost := s.src.Addrs.Drain(); len(evs) > 0 || lost > 0 {
			c.addrs = &addrBatch{Events: evs, Lost: lost}
		}
	}
	status := s.runner.Run(ctx, s.tasks(&c, now))
	status = append(status, c.extraStatus...)
	for _, o := range s.src.Opened {
		replaced := false
		for i := range status {
			if status[i].Source == o.Source {
				status[i], replaced = o, true
			}
		}
		if !replaced {
			status = append(status, o)
		}
	}
	if s.src.Status != nil {
		// A replay reports what the recorded host's sources said.
		status = slices.Clone(s.src.Status)
	}
	s.carry(&c, status, now)
	s.owners(&c)
	snap := s.assemble(&c, now)
	s.track(status, &c, now)
	snap.Status = status
	s.prev = snap
	s.last = &c
	s.ticks++
	return snap
}

// collected is what the tasks of one sample handed over (their commits),
// read by assemble once every task has finished or timed out.
type collected struct {
	sysfs  bool // the sysfs task answered in time (even with an error)
	devsOK bool // ... and listed the devices (or carried: sysfsAge)
	// sysfsAge is set when devs, links and netdevs are the last sysfs
	// answer carried forward: how old it is, in seconds.
	sysfsAge *float64
	// hungCounters are the counter files of this sample that did not
	// answer: "dev/port" → source+"\x00"+name.
	hungCounters map[string]map[string]bool
	hungSince    time.Time // the oldest of them hangs since
	// stale are the counter sources (Counter.Source) whose counters are
	// carried forward where missing: their source did not answer.
	stale map[string]bool
	// rdmaStale says c.rdma is RDMA netlink's last answer carried
	// forward (devices and ports only), rdmaAge old.
	rdmaStale bool
	rdmaAge   float64
	// staleAge is the oldest carried value of each source, in seconds.
	staleAge  map[string]float64
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
	// addrs: the address changes announced since the last sample (nil:
	// none, or no announcer).
	addrs     *addrBatch
	kmsg      []kmsg.Record
	kmsgLost  uint64
	ncclBatch *nccl.Batch
	ras       *rasAnswer // nil: not asked this sample
	gpus      *gpuAnswer // nil: not asked this sample
	gpudir    *probes.GPUDirectConfig
	memory    *probes.MemoryConfig
	procs     map[uint32]procFacts
	pods      owner.Pods // of the node, read when an owner is in a pod

	// What a Recorder's tasks read, handed over with their results.
	files  fsrec.Tree
	rdmaEx []rdmanl.Exchange

	extraStatus []probes.Status
}

type rdmaResult struct {
	stats   map[string]rdmanl.PortStats // "dev/port" → STAT_GET counters, where sysfs had none
	devices []rdmanl.Device
	ports   []rdmanl.Port
	qps     []rdmanl.QP
	failed  []uint32
}

type procFacts struct {
	soft      *uint64
	unlimited bool
	owner     owner.Owner
}

type portState struct {
	state, phys string
	linkDowned  *uint64
	linkErrRec  *uint64
}

// Wait waits for every probe task the sampler started, including those
// abandoned at their timeout, so that the caller can close the sources
// they read. An error names the tasks that did not return before ctx
// ended; their sources must stay open.
func (s *Sampler) Wait(ctx context.Context) error { return s.runner.Wait(ctx) }
