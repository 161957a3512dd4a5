package sampler

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/fsrec"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/procinfo"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
	"github.com/rdmatop/rdmatop/probes/sysfs"
)

// The sources of one sample, one task each (Sampler.tasks lists them).

// netdevsFor returns what the per-netdev tasks read: the netdevs tied to
// the sampled RDMA ports, from the last full discovery, or from this
// sample's sysfs task (links) before any worked.
func (e *env) netdevsFor(links *handoff[linkAnswer]) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		if e.linksKnown {
			return selectedNetdevs(e.linkCache, e.opt), nil
		}
		l, err := links.get(ctx)
		if err != nil {
			return nil, fmt.Errorf("waiting for sysfs to name the netdevs: %w", err)
		}
		if !l.ok && len(e.rdmaNetdevs) > 0 {
			// sysfs hung before it named them: RDMA netlink named the
			// RoCE ports' netdevs in an earlier sample.
			var links []sysfs.Link
			for _, n := range e.rdmaNetdevs {
				links = append(links, sysfs.Link{Netdev: n})
			}
			return selectedNetdevs(links, e.opt), nil
		}
		if !l.ok && e.opt.Netdev == "" {
			// Nor did anything else: no answer to give.
			return nil, fmt.Errorf("sysfs hung before it named the netdevs: %w", os.ErrDeadlineExceeded)
		}
		return selectedNetdevs(l.links, e.opt), nil
	}
}

// sysfsTask discovers the devices and reads their files, through the
// guard, and tells the per-netdev tasks (links) which netdevs to read.
func (e *env) sysfsTask(s *Sampler, c *collected, links *handoff[linkAnswer]) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "sysfs", Timeout: t, Run: func(ctx context.Context) (func(), error) {
		defer links.put(linkAnswer{}) // whatever happened, nobody waits for more
		// Files are read through the guard, which gives up on a file
		// that does not answer (fileWait) and starts nothing once
		// three quarters of the timeout are spent: the task answers in
		// time with every file that did, and names those that did not.
		bctx, cancel := context.WithTimeout(ctx, t*3/4)
		defer cancel()
		var fsys fs.FS
		var view *guardedFS
		switch e.src.FS.(type) {
		case nil:
		case fsrec.Tree:
			// A recording in memory: it cannot hang (a file that hung
			// when recorded answers so at once), no guard to pay for.
			fsys = e.src.FS
		default:
			view = e.guard.view(bctx, e.src.FS, e.now, min(fileWait, t/4))
			defer view.close() // its readers end with the task
			fsys = view
		}
		r, err := e.readSysfs(fsys, links)
		// Discovery failed: the netdev sources read nothing (or -i's
		// netdev), unless it hung: then they cannot tell either.
		links.put(linkAnswer{ok: !errors.Is(err, os.ErrDeadlineExceeded)})
		var skipped int
		if view != nil {
			r.hung, r.hungSince, skipped = view.Hung()
		}
		if !r.devsOK && errors.Is(err, os.ErrDeadlineExceeded) {
			// Discovery itself hung: no answer, as if the task had
			// timed out (its last answer is carried forward).
			return nil, err
		}
		if len(r.hung) > 0 || skipped > 0 {
			what := fmt.Sprintf("%d files hang (no answer within %v; not read again until the kernel answers)", len(r.hung), min(fileWait, t/4))
			if len(r.hung) == 1 {
				what = fmt.Sprintf("1 file hangs (no answer within %v; not read again until the kernel answers)", min(fileWait, t/4))
			}
			if skipped > 0 {
				what += fmt.Sprintf("; %d more not read in this sample, its time spent on them", skipped)
			}
			what += "; what they last read is carried forward, stale (absent if never read)"
			if err != nil {
				what += "; " + err.Error()
			}
			err = &probes.PartialError{What: what, Stuck: r.hung}
		}
		return func() { s.commitSysfs(c, r) }, err
	}}
}

// ethtoolTask reads ethtool -S of each netdev.
func (e *env) ethtoolTask(c *collected, netdevs func(ctx context.Context) ([]string, error)) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "ethtool", Timeout: t, Run: func(ctx context.Context) (func(), error) {
		nds, err := netdevs(ctx)
		if err != nil {
			return nil, err
		}
		out := map[string]ethtool.Raw{}
		var errs []error
		for _, n := range nds {
			if err := ctx.Err(); err != nil { // the ioctl cannot be abandoned: stop between netdevs
				return nil, err
			}
			raw, err := ethtool.Read(e.src.Ethtool, n)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out[n] = raw
		}
		return func() { c.ethtool = out }, joinSome(errs, len(nds))
	}}
}

// rtnlTask reads each netdev's link from rtnetlink.
func (e *env) rtnlTask(c *collected, netdevs func(ctx context.Context) ([]string, error)) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "rtnetlink", Timeout: t, Run: func(ctx context.Context) (func(), error) {
		nds, err := netdevs(ctx)
		if err != nil {
			return nil, err
		}
		var out map[string]rtnl.Link
		var errs []error
		for _, n := range nds {
			l, err := rtnl.LinkContext(ctx, e.src.Links, n)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if out == nil {
				out = map[string]rtnl.Link{}
			}
			out[n] = l
		}
		return func() { c.rtnl = out }, joinSome(errs, len(nds))
	}}
}

// dcbTask reads each netdev's DCB configuration.
func (e *env) dcbTask(c *collected, netdevs func(ctx context.Context) ([]string, error)) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "dcb", Timeout: t, Run: func(ctx context.Context) (func(), error) {
		nds, err := netdevs(ctx)
		if err != nil {
			return nil, err
		}
		var cfgs map[string]dcb.Config
		var raws map[string]dcb.Raw
		var errs []error
		for _, n := range nds {
			cfg, raw, err := dcb.ProbeContext(ctx, e.src.DCB, n)
			if raws == nil {
				raws = map[string]dcb.Raw{}
			}
			raws[n] = raw
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if cfgs == nil {
				cfgs = map[string]dcb.Config{}
			}
			cfgs[n] = cfg
		}
		return func() { c.dcb, c.dcbRaw = cfgs, raws }, joinSome(errs, len(nds))
	}}
}

// rdmaTask reads RDMA netlink (recording its exchanges when asked).
func (e *env) rdmaTask(c *collected) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "rdma netlink", Timeout: rdmaTimeout(t), Run: func(ctx context.Context) (func(), error) {
		if e.src.RDMA == nil {
			return nil, fmt.Errorf("no RDMA netlink connection: %w", probes.ErrNotSupported)
		}
		conn := e.src.RDMA
		var rec *rdmanl.Recorder
		if e.record {
			rec = &rdmanl.Recorder{Conn: conn}
			conn = rec
		}
		r, err := e.readRDMA(ctx, conn)
		return func() {
			if r != nil {
				c.rdma = r
			}
			if rec != nil {
				c.rdmaEx = rec.Take()
			}
		}, err
	}}
}

// kmsgTask takes the kernel log records that came since the last sample.
func (e *env) kmsgTask(c *collected) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "kmsg", Timeout: t, Run: func(ctx context.Context) (func(), error) {
		b, err := e.src.Kmsg.Poll()
		if err != nil {
			return nil, err
		}
		var recs []kmsg.Record
		for _, raw := range b.Raw {
			if r, err := kmsg.ParseRecord(raw); err == nil {
				recs = append(recs, r)
			}
		}
		return func() { c.kmsg, c.kmsgLost, c.kmsgBatch = recs, b.Lost, &b }, nil
	}}
}

// ncclTask takes the NCCL log lines that came since the last sample.
func (e *env) ncclTask(c *collected) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "nccl", Timeout: t, Run: func(ctx context.Context) (func(), error) {
		b, err := e.src.NCCL.Poll()
		// Lines read before a failure are still the log's.
		return func() { c.ncclBatch = &b }, err
	}}
}

// rasTask takes NCCL RAS's latest answer.
func (e *env) rasTask(c *collected) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "nccl-ras", Timeout: t, Run: func(ctx context.Context) (func(), error) {
		st, err := e.src.RAS.Poll() // the latest answer; never waits for one
		a := &rasAnswer{Status: st}
		if err != nil {
			a.Err = err.Error()
		}
		return func() { c.ras = a }, err
	}}
}

// gpuTask finds the GPU processes and what they moved over TCP.
func (e *env) gpuTask(c *collected) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "gpu-tcp", Timeout: t, Run: func(ctx context.Context) (func(), error) {
		procs, err := e.src.GPU.Poll(ctx, e.now)
		a := &gpuAnswer{Procs: procs}
		if err != nil {
			a.Err = err.Error()
		}
		// A namespace that could not be read leaves the others' figures.
		return func() { c.gpus = a }, err
	}}
}

// procTask reads the memory and fragmentation of /proc.
func (e *env) procTask(c *collected) probes.Task {
	t := e.opt.Timeout
	return probes.Task{Name: "proc", Timeout: t, Run: func(ctx context.Context) (func(), error) {
		p, err := procinfo.New(e.src.ProcRoot, procinfo.Options{})
		if err != nil {
			return nil, err
		}
		m, err := p.Memory()
		if err != nil {
			return nil, err
		}
		fr, ferr := p.Fragmentation()
		var mc probes.MemoryConfig
		if ferr == nil {
			mc = m.Snapshot(&fr)
		} else {
			mc = m.Snapshot(nil)
		}
		return func() { c.memory = &mc }, ferr
	}}
}
