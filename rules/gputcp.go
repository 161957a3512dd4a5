package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
)

// GPUTCP is a GPU process's TCP traffic over the sample's interval, for
// rules: the processes whose rates are known, busiest first.
type GPUTCP struct {
	PID        int      `expr:"pid"`
	Comm       string   `expr:"comm"`
	GPUFiles   []string `expr:"gpu_files"`
	Sockets    int      `expr:"sockets"`
	SentPerSec float64  `expr:"sent_per_s"`
	RecvPerSec float64  `expr:"recv_per_s"`
	Peers      []string `expr:"peers"`
}

// gpuOnTCP lists the GPU processes whose TCP rates are known, the one
// moving the most first.
func gpuOnTCP(procs []probes.GPUProcess) []GPUTCP {
	var out []GPUTCP
	for _, p := range procs {
		if p.TCPSentPerSec == nil || p.TCPRecvPerSec == nil {
			continue
		}
		out = append(out, GPUTCP{PID: p.PID, Comm: p.Comm, GPUFiles: p.GPUFiles, Sockets: p.TCPSockets,
			SentPerSec: *p.TCPSentPerSec, RecvPerSec: *p.TCPRecvPerSec, Peers: p.Peers})
	}
	slices.SortStableFunc(out, func(a, b GPUTCP) int {
		return cmp.Compare(b.SentPerSec+b.RecvPerSec, a.SentPerSec+a.RecvPerSec)
	})
	return out
}

// gpuTCPEvidence says which GPU processes move bytes over TCP (the
// busiest three), how much each way, to whom, beside what the host's
// RDMA ports moved. It is the evidence template function "gputcp".
func gpuTCPEvidence(h *HostEnv) string {
	var parts []string
	for i, g := range h.GPUOnTCP {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more GPU process(es)", len(h.GPUOnTCP)-3))
			break
		}
		s := fmt.Sprintf("pid %d (%s, holding %s) sent %s and received %s over %d TCP socket(s)",
			g.PID, g.Comm, strings.Join(g.GPUFiles, " "), byteRate(g.SentPerSec), byteRate(g.RecvPerSec), g.Sockets)
		if len(g.Peers) > 0 {
			s += " with " + strings.Join(g.Peers, ", ")
		}
		parts = append(parts, s)
	}
	out := strings.Join(parts, "; ")
	if b := h.RDMABalance; b != nil {
		out += "; meanwhile this host's " + strconv.Itoa(b.Ports) + " ACTIVE RDMA port(s) alike moved " +
			byteRate(b.BytesPerSec) + " (idle: " + strings.Join(b.Idle, ", ") + ")"
	}
	return out
}
