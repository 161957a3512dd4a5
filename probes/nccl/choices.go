package nccl

import (
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/internal/lazyre"
	"github.com/rdmatop/rdmatop/probes"
)

// Kinds of the events NCCL's choices give, from its INFO lines
// (NCCL_DEBUG=INFO; NCCL_DEBUG_SUBSYS=INIT,NET logs them all). They are
// not problems by themselves: a rule puts them beside the host.
const (
	// KindNetwork: the network NCCL uses between nodes ("Using network
	// IB", "Socket", or a plugin's name): NCCL.Net.
	KindNetwork = "nccl_network"
	// KindNoRDMA: why NCCL's IB transport has no device (NCCL.Reason):
	// none found, libibverbs missing, NCCL_IB_DISABLE.
	KindNoRDMA = "nccl_no_rdma"
	// KindNetDevices: the devices a network uses ("NET/IB : Using
	// [0]mlx5_0:1/RoCE [1]mlx5_1:1/IB"): NCCL.Net, NCCL.Devices.
	KindNetDevices = "nccl_net_devices"
	// KindGDR: GPUDirect RDMA on or off for an HCA (Device), NCCL.GDR.
	KindGDR = "nccl_gdr"
	// KindChannel: the transport a channel between two ranks goes over
	// ("via NET/IB/0/GDRDMA": NCCL's network device 0, GPUDirect RDMA;
	// "via NET/Socket/1", "via P2P/IPC"): NCCL.Via; one event per
	// transport and process.
	KindChannel = "nccl_channel"
	// KindSetting: an NCCL_* variable NCCL read ("NCCL_IB_HCA set to
	// mlx5_0", "NCCL_IB_DISABLE set by environment to 1."): NCCL.Setting
	// and NCCL.Value.
	KindSetting = "nccl_setting"
	// KindGraph: a graph NCCL's topology search settled on ("Pattern 4,
	// crossNic 0, nChannels 4, bw 24.0/24.0, type NVL/PIX, …"): the path
	// types within the node and between a GPU and its NIC, NCCL.Paths
	// ("NVL/PIX"); one event per process and graph line.
	KindGraph = "nccl_graph"
	// KindVersion: the NCCL version a process runs ("NCCL version
	// 2.25.1+cuda12.4"): NCCL.Value; one event per process.
	KindVersion = "nccl_version"
)

var (
	reUsingNetwork = lazyre.New(`^Using network (.+?)\s*$`)
	// "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/IB [RO]; OOB eth0:…",
	// "NET/Socket : Using [0]eth0:10.0.0.7<0> [1]eth1:…".
	reNetUsing = lazyre.New(`^NET/([^:]+?)\s*: Using (\[\d+\].*?)(?:\s*\[RO\])?(?:\s*;\s*OOB .*)?$`)
	// A device: "[0]mlx5_0:1/RoCE", "[0]eth0:10.0.0.7<0>", and in a
	// merged one (NCCL_IB_MERGE_NICS) "[0]={[0] mlx5_2:1/RoCE, [1] …}".
	reNetDev = lazyre.New(`\[\d+\]\s*([^\s,{}\[\]=]+)`)
	// "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)",
	// "NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0'".
	reGDR = lazyre.New(`^NET/([^:]+?)\s*: GPU Direct RDMA (?:\(([^)]*)\) )?(Enabled|enabled|Disabled|disabled) for HCA (\d+) '([^']*)'\s*(.*)$`)
	// "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA".
	reVia = lazyre.New(`^(?:Channel|Ring|Tree) .* via (.+?)\s*$`)
	// "NCCL_IB_DISABLE set by environment to 1.", "NCCL_IB_HCA set to mlx5_0".
	reSetting = lazyre.New(`^(NCCL_[A-Z0-9_]+) set (?:by environment )?to (.*?)\.?\s*$`)
	// "Pattern 4, crossNic 0, nChannels 4, bw 24.000000/24.000000, type
	// NVL/PIX, sameChannels 0" (older versions: "speed" for "bw").
	reVersion = lazyre.New(`^NCCL version (\S+)`)
	reGraph   = lazyre.New(`^Pattern \d+, crossNic \d+, nChannels \d+, (?:bw|speed) [\d.]+/[\d.]+, type ([A-Z]+/[A-Z]+),`)
)

// choice reads an INFO line that says what NCCL chose; ok is false for
// the others.
func (p *Parser) choice(l Line) (probes.Event, bool) {
	msg := l.Message
	ev := probes.Event{Source: "nccl", Severity: probes.SevInfo, Detail: msg}
	dev := l.CUDADev
	n := &probes.NCCLError{Host: l.Host, PID: l.PID, CUDADev: &dev}
	ev.NCCL = n
	switch {
	case reUsingNetwork().MatchString(msg):
		ev.Kind, n.Net = KindNetwork, reUsingNetwork().FindStringSubmatch(msg)[1]
	case noRDMAReason(msg) != "":
		ev.Kind, n.Reason = KindNoRDMA, noRDMAReason(msg)
	case reGDR().MatchString(msg):
		m := reGDR().FindStringSubmatch(msg)
		if m[1] == "Socket" {
			return probes.Event{}, false // sockets never carry GPU memory
		}
		on := strings.EqualFold(m[3], "enabled")
		ev.Kind, n.Net, n.GDR, ev.Device = KindGDR, m[1], &on, m[5]
		n.Reason = strings.Trim(strings.TrimSpace(m[2]+" "+m[6]), "()")
	case reNetUsing().MatchString(msg):
		m := reNetUsing().FindStringSubmatch(msg)
		ev.Kind, n.Net = KindNetDevices, m[1]
		for _, d := range reNetDev().FindAllStringSubmatch(m[2], -1) {
			n.Devices = append(n.Devices, d[1])
		}
	case reVia().MatchString(msg):
		m := reVia().FindStringSubmatch(msg)
		n.Via = m[1]
		if !p.once(l.Host + ":" + strconv.Itoa(l.PID) + " " + n.Via) {
			return probes.Event{}, false // once per transport and process
		}
		ev.Kind = KindChannel
	case reVersion().MatchString(msg):
		n.Value = reVersion().FindStringSubmatch(msg)[1]
		if !p.once(l.Host + ":" + strconv.Itoa(l.PID) + " version") {
			return probes.Event{}, false
		}
		ev.Kind = KindVersion
	case reGraph().MatchString(msg):
		n.Paths = reGraph().FindStringSubmatch(msg)[1]
		if !p.once(l.Host + ":" + strconv.Itoa(l.PID) + " " + msg) {
			return probes.Event{}, false
		}
		ev.Kind = KindGraph
	case reSetting().MatchString(msg):
		m := reSetting().FindStringSubmatch(msg)
		ev.Kind, n.Setting, n.Value = KindSetting, m[1], m[2]
	default:
		return probes.Event{}, false
	}
	return ev, true
}

// once says whether key (a process and what it chose) is new, and
// remembers it.
func (p *Parser) once(key string) bool {
	if p.via[key] {
		return false
	}
	if len(p.via) >= maxVia {
		clear(p.via)
	}
	p.via[key] = true
	return true
}

// maxVia bounds the choices remembered per process (a log followed for
// days sees many processes): past it, a choice may be said again.
const maxVia = 4096

// noRDMAReason is why a line says NCCL's IB transport has no device, ""
// when it says nothing of the kind. NCCL then falls back to sockets (or
// to a plugin). A net plugin's lines are no reason: "Plugin load
// (libnccl-net.so) returned 2" is a host without a plugin, and a plugin
// NCCL cannot use leaves it its internal IB transport.
func noRDMAReason(msg string) string {
	switch {
	case strings.HasPrefix(msg, "NET/IB : No device found"):
		return "no RDMA device found"
	case strings.Contains(msg, "libibverbs") && (strings.Contains(msg, "Failed to open") || strings.Contains(msg, "failed to open")):
		return "libibverbs could not be loaded"
	case strings.HasPrefix(msg, "NCCL_IB_DISABLE set by environment to 1"):
		return "NCCL_IB_DISABLE=1"
	}
	return ""
}
