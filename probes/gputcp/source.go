package gputcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// ErrNotSupported: this system has no socket diagnostics (not Linux).
var ErrNotSupported = errors.New("gputcp: socket diagnostics are not supported on this system")

// RescanEvery is how often Live reads every process's descriptors to find
// new GPU processes. A job starts once and runs for hours: finding it
// within half a minute costs a readlink per descriptor of the whole host
// twice a minute instead of every sample.
const RescanEvery = 30 * time.Second

// Source answers with the GPU processes and what their TCP sockets moved
// since the previous Poll; now is the sample's time.
type Source interface {
	Poll(ctx context.Context, now time.Time) ([]probes.GPUProcess, error)
}

// Fake answers with the same processes (or error) every Poll: a recorded
// answer replayed.
type Fake struct {
	Procs []probes.GPUProcess
	Err   error
}

// Poll returns f's answer.
func (f *Fake) Poll(context.Context, time.Time) ([]probes.GPUProcess, error) { return f.Procs, f.Err }

// Live reads a host's processes and sockets. Not safe for concurrent use.
type Live struct {
	procDir  string
	timeout  time.Duration
	lastScan time.Time
	known    []int               // the GPU processes the last Poll found
	prev     map[sockKey]tcpSock // their sockets then
	prevAt   time.Time           // that Poll's time
	watched  map[int]bool        // pids read at that Poll
}

// sockKey names a socket across namespaces (inodes are per host, but a
// socket is only looked up in its process's namespace).
type sockKey struct {
	netns string
	inode uint32
}

// New reads root's /proc ("/" for this host, "/host" from a container
// given the host's PID namespace); each socket dump waits at most timeout.
func New(root string, timeout time.Duration) *Live {
	return &Live{procDir: filepath.Join(root, "proc"), timeout: timeout}
}

// Poll finds the GPU processes (every RescanEvery among all processes,
// else among those found before) and what their TCP sockets moved since
// the previous Poll. A namespace whose sockets cannot be read leaves its
// processes without TCP figures, and its error is returned beside the
// rest.
func (l *Live) Poll(ctx context.Context, now time.Time) ([]probes.GPUProcess, error) {
	candidates := l.known
	if l.lastScan.IsZero() || now.Sub(l.lastScan) >= RescanEvery || now.Before(l.lastScan) {
		all, err := pids(l.procDir)
		if err != nil {
			return nil, err
		}
		candidates, l.lastScan = all, now
	}
	var procs []proc
	for _, pid := range candidates {
		if p, ok := readProc(l.procDir, pid); ok {
			procs = append(procs, p)
		}
	}
	socks, errs := l.dumpAll(ctx, procs)
	out := make([]probes.GPUProcess, 0, len(procs))
	interval := now.Sub(l.prevAt).Seconds()
	known := make([]int, 0, len(procs))
	for _, p := range procs {
		known = append(known, p.pid)
		out = append(out, l.measure(p, socks, interval))
	}
	l.known, l.prev, l.prevAt = known, socks, now
	l.watched = map[int]bool{}
	for _, pid := range known {
		l.watched[pid] = true
	}
	return out, errors.Join(errs...)
}

// dumpAll dumps the TCP sockets of each network namespace the processes
// live in, once per namespace, and keeps the processes' own: the host's
// namespace may hold many thousands of others.
func (l *Live) dumpAll(ctx context.Context, procs []proc) (map[sockKey]tcpSock, []error) {
	self := selfNetNS()
	theirs := map[sockKey]bool{}
	for _, p := range procs {
		for _, ino := range p.sockets {
			theirs[sockKey{p.netns, ino}] = true
		}
	}
	out := map[sockKey]tcpSock{}
	done := map[string]bool{}
	var errs []error
	for _, p := range procs {
		if p.netns == "" || done[p.netns] || len(p.sockets) == 0 {
			continue
		}
		done[p.netns] = true
		nsFile := filepath.Join(l.procDir, fmt.Sprint(p.pid), "ns", "net")
		if p.netns == self {
			nsFile = ""
		}
		netns := p.netns
		m, err := dump(ctx, nsFile, l.timeout, func(ino uint32) bool { return theirs[sockKey{netns, ino}] })
		if err != nil {
			errs = append(errs, fmt.Errorf("TCP sockets of %s (pid %d's): %w", p.netns, p.pid, err))
			continue
		}
		for ino, s := range m {
			out[sockKey{p.netns, ino}] = s
		}
	}
	return out, errs
}

// measure is p's TCP figures: its sockets in socks, and, when the
// previous Poll watched it too, the bytes they moved since, per second
// (a socket new since then moved all it has; one closed since is lost to
// the count).
func (l *Live) measure(p proc, socks map[sockKey]tcpSock, interval float64) probes.GPUProcess {
	g := probes.GPUProcess{PID: p.pid, Comm: p.comm, GPUFiles: p.gpus, NetNS: p.netns}
	rated := l.watched[p.pid] && interval > 0
	var sent, recv uint64
	type moved struct {
		peer  string
		bytes uint64
	}
	var peers []moved
	for _, ino := range p.sockets {
		k := sockKey{p.netns, ino}
		s, ok := socks[k]
		if !ok {
			continue // not TCP, or in no namespace read
		}
		g.TCPSockets++
		if !s.hasBytes {
			rated = false
			continue
		}
		ds, dr := s.acked, s.received
		if was, ok := l.prev[k]; ok && was.hasBytes && s.acked >= was.acked && s.received >= was.received {
			ds, dr = s.acked-was.acked, s.received-was.received
		}
		sent, recv = sent+ds, recv+dr
		if s.peer.IsValid() {
			peers = append(peers, moved{s.peer.String(), ds + dr})
		}
	}
	if rated {
		sp, rp := float64(sent)/interval, float64(recv)/interval
		g.TCPSentPerSec, g.TCPRecvPerSec = &sp, &rp
	}
	slices.SortStableFunc(peers, func(a, b moved) int { return cmp.Compare(b.bytes, a.bytes) })
	for _, m := range peers {
		if len(g.Peers) == probes.MaxGPUPeers {
			break
		}
		if m.bytes > 0 && !slices.Contains(g.Peers, m.peer) {
			g.Peers = append(g.Peers, m.peer)
		}
	}
	return g
}
