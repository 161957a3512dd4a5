package sampler

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/fsrec"
	"github.com/rdmatop/rdmatop/probes/gputcp"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/nccl"
	"github.com/rdmatop/rdmatop/probes/ncclras"
	"github.com/rdmatop/rdmatop/probes/owner"
	"github.com/rdmatop/rdmatop/probes/procinfo"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
)

// Raw source data in a bundle tick, by key of Tick.Raw.
const (
	rawEthtool = "ethtool"  // map[iface]ethtool.Raw
	rawRtnl    = "rtnl"     // map[iface]rtnl.Link
	rawRDMA    = "rdmanl"   // []rdmanl.Exchange
	rawDCB     = "dcb"      // map[iface]dcb.Raw
	rawKmsg    = "kmsg"     // kmsg.Batch
	rawAddrs   = "addrs"    // addrBatch: the address changes announced since the last tick
	rawNCCL    = "nccl"     // nccl.Batch: the NCCL log lines read
	rawRAS     = "nccl_ras" // rasAnswer: NCCL RAS's latest answer
	rawGPU     = "gpu_tcp"  // gpuAnswer: the GPU processes and their TCP bytes
)

// Recorder samples like a Sampler and also returns, per sample, the raw
// data every source answered: a bundle tick that Replay turns back into
// the same snapshot. What a source answered after its timeout is in
// neither.
type Recorder struct {
	*Sampler
}

// NewRecorder returns a Sampler over src that records. Each sample's
// sysfs and RDMA netlink tasks record what they read through their own
// recorders, handed over with their results (so SetSources works too).
func NewRecorder(src Sources, opt Options) *Recorder {
	s := New(src, opt)
	s.record = true
	return &Recorder{Sampler: s}
}

// Sample takes a sample and returns it with its bundle tick.
func (r *Recorder) Sample(ctx context.Context, now time.Time) (*probes.Snapshot, *bundle.Tick, error) {
	snap := r.Sampler.Sample(ctx, now)
	c := r.Sampler.last
	// The sample just taken was number ticks-1: a full one on the
	// schedule of the sysfs discovery (gidEvery), which a replay starting
	// here keeps in step with.
	tick := &bundle.Tick{Time: now, Raw: map[string]json.RawMessage{}, Status: snap.Status,
		Full: (r.Sampler.ticks-1)%gidEvery == 0 || c.addrs != nil}
	if r.src.FS != nil {
		tick.Files = c.files
		if tick.Files == nil {
			tick.Files = fsrec.Tree{}
		}
	}
	// /proc files the snapshot used, read once more through a recorder.
	if r.src.ProcRoot != "" {
		pr := fsrec.NewRecorder(os.DirFS(r.src.ProcRoot))
		for _, p := range procinfo.Paths(qpPIDs(snap)) {
			fs.ReadFile(pr, p) //nolint:errcheck // a failure is recorded as such
		}
		if slices.ContainsFunc(snap.QPs, func(q probes.QP) bool { return q.PodUID != "" }) {
			fs.ReadDir(pr, owner.PodsDir) //nolint:errcheck // a failure is recorded as such
		}
		if tick.Files == nil {
			tick.Files = fsrec.Tree{}
		}
		for k, v := range pr.Take() {
			tick.Files[k] = v
		}
	}
	add := func(key string, v any) error {
		b, err := json.Marshal(v)
		if err == nil {
			tick.Raw[key] = b
		}
		return err
	}
	var err error
	if c.ethtool != nil {
		err = add(rawEthtool, c.ethtool)
	}
	if c.rtnl != nil && err == nil {
		err = add(rawRtnl, c.rtnl)
	}
	if r.src.RDMA != nil && err == nil {
		err = add(rawRDMA, c.rdmaEx)
	}
	if c.dcbRaw != nil && err == nil {
		err = add(rawDCB, c.dcbRaw)
	}
	if c.kmsgBatch != nil && err == nil {
		err = add(rawKmsg, c.kmsgBatch)
	}
	if c.ncclBatch != nil && err == nil {
		err = add(rawNCCL, c.ncclBatch)
	}
	if c.ras != nil && err == nil {
		err = add(rawRAS, c.ras)
	}
	if c.gpus != nil && err == nil {
		err = add(rawGPU, c.gpus)
	}
	if c.addrs != nil && err == nil {
		err = add(rawAddrs, c.addrs)
	}
	return snap, tick, err
}

func qpPIDs(s *probes.Snapshot) []int {
	seen := map[int]bool{}
	var out []int
	for _, q := range s.QPs {
		if q.PID != nil && !seen[*q.PID] {
			seen[*q.PID] = true
			out = append(out, *q.PID)
		}
	}
	return out
}

// ReplaySources turns a recorded tick back into sources. byteOrder is the
// recording host's (bundle.Host.Order: "little", "big", or "" for this
// host's): its raw netlink answers decode in it. scratch is a directory
// for the recorded /proc files (procfs reads real paths).
func ReplaySources(t *bundle.Tick, byteOrder, label, scratch string) (Sources, error) {
	if byteOrder == "" {
		byteOrder = nlmsg.NativeName()
	}
	src := Sources{Label: label}
	if t.Files != nil {
		src.FS = t.Files
	}
	for _, r := range replayers {
		if raw, ok := t.Raw[r.key]; ok {
			if err := r.set(raw, byteOrder, &src); err != nil {
				return src, err
			}
		}
	}
	if t.Files != nil && scratch != "" {
		if err := replayProc(t.Files, scratch, &src); err != nil {
			return src, err
		}
	}
	return src, nil
}

// replayers turn each source's recorded answer (Tick.Raw[key]) back into
// that source, answering as it did.
var replayers = []struct {
	key string
	set func(raw json.RawMessage, byteOrder string, src *Sources) error
}{
	{rawEthtool, func(raw json.RawMessage, _ string, src *Sources) error {
		var m map[string]ethtool.Raw
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		f := &ethtool.Fake{Ifaces: map[string]ethtool.FakeIface{}}
		for k, v := range m {
			f.Ifaces[k] = ethtool.FakeIface{Driver: v.Driver, Stats: v.Stats}
		}
		src.Ethtool = f
		return nil
	}},
	{rawRtnl, func(raw json.RawMessage, _ string, src *Sources) error {
		var m map[string]rtnl.Link
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		f := &rtnl.Fake{}
		for _, k := range sortedKeys(m) {
			f.All = append(f.All, m[k])
		}
		src.Links = f
		return nil
	}},
	{rawRDMA, func(raw json.RawMessage, byteOrder string, src *Sources) error {
		var ex []rdmanl.Exchange
		if err := json.Unmarshal(raw, &ex); err != nil {
			return err
		}
		r, err := rdmanl.NewReplayFrom(ex, byteOrder)
		if err != nil {
			return err
		}
		src.RDMA = r
		return nil
	}},
	{rawDCB, func(raw json.RawMessage, byteOrder string, src *Sources) error {
		var m map[string]dcb.Raw
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		rec, err := dcb.NewRecorded(m, byteOrder)
		if err != nil {
			return err
		}
		src.DCB = rec
		return nil
	}},
	{rawKmsg, func(raw json.RawMessage, _ string, src *Sources) error {
		var b kmsg.Batch
		err := json.Unmarshal(raw, &b)
		src.Kmsg = &kmsg.Fake{Batches: []kmsg.Batch{b}}
		return err
	}},
	{rawNCCL, func(raw json.RawMessage, _ string, src *Sources) error {
		var b nccl.Batch
		err := json.Unmarshal(raw, &b)
		src.NCCL = &nccl.Fake{Batches: []nccl.Batch{b}}
		return err
	}},
	{rawRAS, func(raw json.RawMessage, _ string, src *Sources) error {
		var a rasAnswer
		if err := json.Unmarshal(raw, &a); err != nil {
			return err
		}
		f := &ncclras.Fake{Status: a.Status}
		if a.Err != "" {
			f.Err = errors.New(a.Err) // its status is the recorded one (src.Status)
		}
		src.RAS = f
		return nil
	}},
	{rawGPU, func(raw json.RawMessage, _ string, src *Sources) error {
		var a gpuAnswer
		if err := json.Unmarshal(raw, &a); err != nil {
			return err
		}
		f := &gputcp.Fake{Procs: a.Procs}
		if a.Err != "" {
			f.Err = errors.New(a.Err) // its status is the recorded one (src.Status)
		}
		src.GPU = f
		return nil
	}},
	{rawAddrs, func(raw json.RawMessage, _ string, src *Sources) error {
		var b addrBatch
		if err := json.Unmarshal(raw, &b); err != nil {
			return err
		}
		f := &rtnl.FakeAddrs{}
		for _, e := range b.Events {
			f.Add(e)
		}
		f.AddLost(b.Lost)
		src.Addrs = f
		return nil
	}},
}

// replayProc puts the recorded /proc files under scratch, where procfs
// reads them, when the tick has any.
func replayProc(files fsrec.Tree, scratch string, src *Sources) error {
	if _, err := fs.Stat(files, "proc/meminfo"); err != nil {
		return nil
	}
	var pids []int
	for k := range files {
		var pid int
		if n, _ := sscanPID(k, &pid); n {
			pids = append(pids, pid)
		}
	}
	if err := procinfo.Materialize(files, scratch, pids); err != nil {
		return err
	}
	if err := owner.Materialize(files, scratch); err != nil {
		return err
	}
	src.ProcRoot = scratch
	return nil
}

// sscanPID matches "proc/<pid>/comm".
func sscanPID(path string, pid *int) (bool, error) {
	const pre, suf = "proc/", "/comm"
	if len(path) <= len(pre)+len(suf) || path[:len(pre)] != pre || path[len(path)-len(suf):] != suf {
		return false, nil
	}
	n := 0
	for _, ch := range path[len(pre) : len(path)-len(suf)] {
		if ch < '0' || ch > '9' {
			return false, nil
		}
		n = n*10 + int(ch-'0')
	}
	*pid = n
	return true, nil
}
