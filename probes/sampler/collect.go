package sampler

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/owner"
	"github.com/rdmatop/rdmatop/probes/procinfo"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/sysfs"
)

func procFS(root string) fs.FS { return os.DirFS(filepath.Join(root, "proc")) }

// env is what one sample's tasks read, copied from the Sampler before they
// start: a task still running after its timeout must never read what a
// later sample changes. The slices and maps it holds are never modified
// in place (commits replace them).
type env struct {
	src Sources
	// rereadGIDs: an address changed since the last sample: the GID
	// tables are read again now, not on their schedule.
	rereadGIDs    bool
	opt           Options
	record        bool
	ticks         int
	devCache      []sysfs.Device
	devCacheNames []string
	linkCache     []sysfs.Link
	linksKnown    bool
	ecnCache      map[string]sysfs.ECN
	ccCache       map[string]sysfs.CCParams
	hwPorts       map[string]bool
	selected      *selection
	now           time.Time  // the sample's time
	guard         *fileGuard // safe for concurrent use
	rdmaNetdevs   []string   // RoCE ports' netdevs, from RDMA netlink's last answer
}

func (s *Sampler) env(now time.Time) *env {
	var nds []string
	if s.lastRDMA != nil {
		for _, p := range s.lastRDMA.ports {
			if p.Netdev != "" && (s.opt.Device == "" || p.Dev == s.opt.Device) {
				nds = append(nds, p.Netdev)
			}
		}
	}
	return &env{rdmaNetdevs: nds, src: s.src, opt: s.opt, record: s.record, ticks: s.ticks, now: now, guard: s.guard, devCache: s.devCache,
		devCacheNames: s.devCacheNames, linkCache: s.linkCache, linksKnown: s.linksKnown,
		ecnCache: s.ecnCache, ccCache: s.ccCache, hwPorts: s.hwPorts, selected: s.selected}
}

// linkAnswer is sysfs's netdev ↔ port links for the netdev sources; ok
// false: sysfs could not tell.
type linkAnswer struct {
	links []sysfs.Link
	ok    bool
}

// handoff passes one value from a task to others of the same sample.
type handoff[T any] struct {
	once sync.Once
	done chan struct{}
	v    T
}

func newHandoff[T any]() *handoff[T] { return &handoff[T]{done: make(chan struct{})} }

// put publishes v; later calls do nothing.
func (h *handoff[T]) put(v T) { h.once.Do(func() { h.v = v; close(h.done) }) }

// get waits for the value, or for ctx to end.
func (h *handoff[T]) get(ctx context.Context) (T, error) {
	select {
	case <-h.done:
		return h.v, nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// tasks lists this sample's sources; each gathers its data privately and
// commits it into c only if it answered in time. The per-netdev sources
// (ethtool, rtnetlink, DCB) read the netdevs tied to the sampled RDMA
// ports: those the last full discovery found, so they start at once; only
// before any discovery has worked do they wait for this sample's sysfs
// task (within their own timeout). Nothing else waits for anything.
func (s *Sampler) tasks(c *collected, now time.Time) []probes.Task {
	e := s.env(now)
	e.rereadGIDs = c.addrs != nil
	links := newHandoff[linkAnswer]()
	netdevs := e.netdevsFor(links)
	list := []probes.Task{e.sysfsTask(s, c, links)}
	if e.src.Ethtool != nil {
		list = append(list, e.ethtoolTask(c, netdevs))
	}
	if e.src.Links != nil {
		list = append(list, e.rtnlTask(c, netdevs))
	}
	if e.src.DCB != nil {
		list = append(list, e.dcbTask(c, netdevs))
	}
	list = append(list, e.rdmaTask(c))
	if e.src.Kmsg != nil {
		list = append(list, e.kmsgTask(c))
	}
	if e.src.NCCL != nil {
		list = append(list, e.ncclTask(c))
	}
	if e.src.RAS != nil {
		list = append(list, e.rasTask(c))
	}
	if e.src.ProcRoot != "" {
		list = append(list, e.procTask(c))
	}
	if e.src.GPU != nil {
		list = append(list, e.gpuTask(c))
	}
	// A replayed source that timed out on the recorded host contributed
	// nothing there; whatever the tick holds of it (a late read) must not
	// contribute here.
	for i, t := range list {
		if slices.ContainsFunc(e.src.Status, func(st probes.Status) bool { return st.Source == t.Name && st.State == probes.StateTimeout }) {
			list[i].Run = func(context.Context) (func(), error) {
				return nil, errors.New("timed out when recorded")
			}
		}
	}
	return list
}

// How long each source may take, from what it does. t is
// Options.Timeout (--probe-timeout, 2 s by default); every source gets it
// but RDMA netlink, whose QP dump gets three times as long.
//
//   - sysfs: a few hundred small files, each a show() callback (an mlx5
//     hw_counters read is one firmware command): milliseconds in all. It
//     is slow only when something in the kernel is stuck, and then each
//     file is given up on after fileWait (see guardfs.go), so the task
//     answers with what did; t bounds discovery, which lists directories.
//   - ethtool: one ioctl per RDMA netdev (ETHTOOL_GSTATS: mlx5 queries
//     its firmware), milliseconds; it takes RTNL, so it hangs when RTNL
//     is held, and t is how long a sample waits once to find that out.
//   - rtnetlink, DCB: one request per netdev, microseconds; RTNL again.
//   - kmsg, nccl, nccl-ras, proc: reads of what is already buffered or a
//     few /proc files: microseconds. t is generous; it only matters if
//     the source is broken.
//   - gpu-tcp: a readlink per descriptor of the GPU processes and a TCP
//     socket dump per network namespace they live in, milliseconds; every
//     gputcp.RescanEvery a readlink per descriptor of the whole host,
//     tens of milliseconds on a busy node.
//   - RDMA netlink: the QP dump, where the kernel walks its QP table from
//     the start for every reply, so its cost grows faster than the QP
//     count: 0.12 s for 1,000 QPs, 0.37 s for 3,000 and 2.3 s for 10,000
//     (iproute2) on the Soft-RoCE lab under TCG emulation, our slowest
//     measured host; a real CPU is several times faster. 3 × 2 s = 6 s
//     holds 10,000 QPs on that host with 2.5× to spare. A sample waits
//     for its slowest source: a dump that slow makes the tick late, and
//     the tick says so (late_s); one that never answers costs 6 s once
//     and is not started again until it returns.
func rdmaTimeout(t time.Duration) time.Duration { return 3 * t }

// joinSome reports per-netdev errors; when every netdev failed the same
// way (not supported, permission) that is the source's state.
func joinSome(errs []error, n int) error {
	if len(errs) == 0 {
		return nil
	}
	if len(errs) == n {
		return errors.Join(errs...)
	}
	return fmt.Errorf("%d of %d netdevs: %w", len(errs), n, errors.Join(errs...))
}

// readRDMA dumps devices, ports and QPs, and reads through STAT_GET the
// hardware counters of the ports sysfs had none for at its last read
// (e.g. a container without the device's sysfs directory): it does not
// wait for this sample's sysfs. Before sysfs has answered once it reads
// every selected port; assemble uses them only where sysfs has nothing.
func (e *env) readRDMA(ctx context.Context, conn rdmanl.Conn) (*rdmaResult, error) {
	cl := rdmanl.Client{Conn: conn}
	if e.src.ProcRoot != "" {
		cl.Comm = rdmanl.CommFromProc(procFS(e.src.ProcRoot))
	}
	smp, err := cl.SampleContext(ctx)
	r := &rdmaResult{devices: smp.Devices, ports: smp.Ports, qps: smp.QPs}
	for _, p := range smp.Ports {
		k := portKey(p.Dev, int(p.Index))
		if e.hwPorts[k] || !e.mayBeSelected(p.Dev) {
			continue
		}
		if st, serr := cl.PortStatsContext(ctx, p.DevIndex, p.Index); serr == nil {
			if r.stats == nil {
				r.stats = map[string]rdmanl.PortStats{}
			}
			r.stats[k] = st
		}
	}
	if err != nil && len(smp.Devices) > 0 {
		// Some devices failed: keep the others, remember which failed
		// so their QPs are not taken for destroyed.
		for _, d := range smp.Devices {
			if !slices.ContainsFunc(smp.QPs, func(q rdmanl.QP) bool { return q.DevIndex == d.Index }) {
				r.failed = append(r.failed, d.Index)
			}
		}
	}
	if err != nil && len(smp.Devices) == 0 {
		r = nil
	}
	return r, err
}

// mayBeSelected: -d and -i do not rule the device out, as far as this
// sample's tasks know.
func (e *env) mayBeSelected(dev string) bool {
	switch {
	case e.opt.Device != "" && dev != e.opt.Device:
		return false
	case e.opt.Netdev != "" && e.selected != nil:
		return e.selected.devs[dev]
	}
	return true
}

// owners reads, for every process that owns a QP, its locked-memory
// limit and what its cgroup says (container, pod), and the node's pod
// names when one of them is in a pod.
func (s *Sampler) owners(c *collected) {
	if c.rdma == nil || s.src.ProcRoot == "" {
		return
	}
	p, err := procinfo.New(s.src.ProcRoot, procinfo.Options{})
	if err != nil {
		return
	}
	var pids []int
	for _, q := range c.rdma.qps {
		if q.HasPID && !slices.Contains(pids, int(q.PID)) {
			pids = append(pids, int(q.PID))
		}
	}
	procs, _, _ := p.Processes(pids)
	c.procs = map[uint32]procFacts{}
	inPod := false
	for _, pr := range procs {
		soft, unl := pr.MemlockSnapshot()
		c.procs[uint32(pr.PID)] = procFacts{soft: soft, unlimited: unl, owner: pr.Owner}
		inPod = inPod || pr.Owner.PodUID != ""
	}
	if inPod {
		// Without the node's pod directories (or the right to read
		// them) pods are named by their UID alone.
		c.pods, _ = owner.ReadPods(os.DirFS(s.src.ProcRoot))
	}
}
