package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/probes/ncclras"
	"github.com/rdmatop/rdmatop/rules"
)

// defaultProbeTimeout bounds each source's share of a sample; the RDMA
// netlink QP dump gets three times as long (probes/sampler rdmaTimeout,
// where each source's is argued). The QP dump is the slowest: measured
// on the Soft-RoCE lab under emulation (TCG), 0.12 s for 1,000 QPs, 0.37 s
// for 3,000, and 2.3 s for 10,000 (iproute2's `rdma res show qp`), the
// kernel walking its QP table from the start for every reply; its 6 s
// holds 10,000 QPs there with room to spare. The other sources answer
// in milliseconds unless the kernel is stuck (RTNL held, a firmware
// command hung): 2 s is how long the first sample waits to find that
// out, after which the hung source is not waited for again.
const defaultProbeTimeout = 2 * time.Second

// hostFlags select what the host probes look at.
type hostFlags struct {
	netdev, device, root string
	interval             time.Duration
	intervalSet          bool
	probeTimeout         time.Duration
	rules                string
	ncclLog              string
	ncclRAS              string
}

func (h *hostFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&h.netdev, "interface", "i", "", "only the RDMA port(s) of this netdev (e.g. eth0), and capture RoCE on it")
	cmd.Flags().StringVarP(&h.device, "device", "d", "", "only this RDMA device (e.g. mlx5_0)")
	cmd.Flags().StringVar(&h.root, "root", "/", "read /sys and /proc below this directory (a fixture tree, or /host in a container)")
	cmd.Flags().DurationVar(&h.interval, "interval", time.Second, "time between samples")
	cmd.Flags().DurationVar(&h.probeTimeout, "probe-timeout", defaultProbeTimeout,
		"how long each source may take in a sample before it is reported as timed out; the RDMA netlink QP dump gets three times as long (a host with tens of thousands of QPs dumps them slowly)")
	cmd.Flags().StringVar(&h.rules, "rules", "", "directory of extra rule files (*.yaml); same ids override built-in rules")
	cmd.Flags().StringVar(&h.ncclRAS, "nccl-ras", "", "ask NCCL's RAS endpoint (NCCL 2.28.7+, read-only) for communicators and unreachable ranks; ADDR defaults to "+ncclras.DefaultAddr)
	cmd.Flags().Lookup("nccl-ras").NoOptDefVal = ncclras.DefaultAddr
	cmd.Flags().StringVar(&h.ncclLog, "nccl-log", "", "follow this job log (NCCL_DEBUG=WARN or INFO output) like tail -F: its NCCL warnings become events and findings")
	completeNames(cmd, "interface", netdevNames)
	completeNames(cmd, "device", rdmaDeviceNames)
	cmd.MarkFlagDirname("root")      //nolint:errcheck // the flag exists
	cmd.MarkFlagDirname("rules")     //nolint:errcheck
	cmd.MarkFlagFilename("nccl-log") //nolint:errcheck
}

// completeNames completes flag with what names lists (shell completion
// runs rdmatop itself; no file names for a name that is not a file).
func completeNames(cmd *cobra.Command, flag string, names func() []string) {
	cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) { //nolint:errcheck
		return names(), cobra.ShellCompDirectiveNoFileComp
	})
}

func fixedNames(vals ...string) func() []string { return func() []string { return vals } }

// netdevNames lists this host's network interfaces.
func netdevNames() []string {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(ifs))
	for _, i := range ifs {
		out = append(out, i.Name)
	}
	return out
}

// rdmaDeviceNames lists /sys/class/infiniband.
func rdmaDeviceNames() []string {
	es, err := os.ReadDir("/sys/class/infiniband")
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func (h *hostFlags) check(cmd *cobra.Command) error {
	h.intervalSet = cmd.Flags().Changed("interval")
	if h.interval < 10*time.Millisecond || h.interval > time.Hour {
		return usageError{fmt.Errorf("--interval %v: between 10ms and 1h", h.interval)}
	}
	if h.probeTimeout < 100*time.Millisecond || h.probeTimeout > time.Minute {
		return usageError{fmt.Errorf("--probe-timeout %v: between 100ms and 1m", h.probeTimeout)}
	}
	if h.netdev != "" && h.device != "" {
		return usageError{errors.New("-i and -d are exclusive")}
	}
	if st, err := os.Stat(h.root); err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("--root %s: not a directory", h.root)}
	}
	return nil
}

// checkTimeline checks --interval as the step of a file's timeline (replay,
// check FILE): a capture's intervals are its own time, so they may be far
// finer than a live sample's, but never zero.
func (h *hostFlags) checkTimeline(cmd *cobra.Command) error {
	h.intervalSet = cmd.Flags().Changed("interval")
	if h.interval < time.Microsecond || h.interval > 24*time.Hour {
		return usageError{fmt.Errorf("--interval %v: between 1µs and 24h", h.interval)}
	}
	return nil
}

func (h *hostFlags) pack() (*rules.Pack, error) {
	p, err := rules.WithDir(h.rules)
	if err != nil {
		return nil, usageError{err}
	}
	return p, nil
}

// wireFlags tune the capture analysis, live or replayed.
type wireFlags struct {
	pmtu      int
	maxFlows  int
	maxAnoms  int
	noICRC    bool
	icrc      string
	noCapture bool
	snaplen   int
	promisc   bool
	workers   int
	// stream: --wire, a pcap or pcapng stream read as the live wire.
	stream string
}

// registerAnalysis adds the flags of the capture analysis.
func (f *wireFlags) registerAnalysis(cmd *cobra.Command) {
	cmd.Flags().IntVar(&f.pmtu, "pmtu", 0, "path MTU in bytes (256, 512, 1024, 2048, 4096) for counting READ PSNs; default: inferred from the traffic")
	cmd.Flags().IntVar(&f.maxFlows, "max-flows", capture.DefaultMaxFlows, "flow table size; least recently seen flows are evicted beyond it")
	cmd.Flags().IntVar(&f.maxAnoms, "max-anomalies", capture.DefaultMaxAnomalies, "anomalies kept in the log")
	cmd.Flags().StringVar(&f.icrc, "icrc", "auto", "ICRC verification: on (every packet), off, or auto (every packet; live, one in 16 while the capture falls behind, and the report says so)")
	completeNames(cmd, "icrc", fixedNames("on", "off", "auto"))
	cmd.Flags().BoolVar(&f.noICRC, "no-icrc", false, "skip ICRC verification (the same as --icrc=off)")
}

// registerLive adds the flags of a live capture as well.
func (f *wireFlags) registerLive(cmd *cobra.Command, optional bool) {
	f.registerAnalysis(cmd)
	if optional {
		cmd.Flags().BoolVar(&f.noCapture, "no-capture", false, "with -i: do not capture RoCE on the interface (host probes only)")
	}
	cmd.Flags().IntVar(&f.snaplen, "snaplen", 0, "bytes kept per captured frame (default: whole frames, so ICRCs can be verified; 128 keeps headers only)")
	cmd.Flags().BoolVar(&f.promisc, "promisc", false, "put the interface in promiscuous mode while capturing")
	cmd.Flags().IntVar(&f.workers, "workers", defaultWorkers(), "capture rings and analysis goroutines: the kernel splits the frames among them by host pair (PACKET_FANOUT); 1: one ring")
	cmd.Flags().StringVar(&f.stream, "wire", "", "read the live wire from a pcap or pcapng stream instead of capturing on -i: - (standard input) or a FIFO, written by the NIC's sniffer on hardware RoCE, e.g. tcpdump -i mlx5_0 -U -w - udp port 4791 | rdmatop -i eth0 --wire -")
}

// defaultWorkers is one capture worker per CPU, up to 8: past that the
// merge on each tick costs more than the cores give, and one link rarely
// needs more.
func defaultWorkers() int { return min(runtime.NumCPU(), 8) }

func (f *wireFlags) config() (capture.Config, error) {
	switch f.pmtu {
	case 0, 256, 512, 1024, 2048, 4096:
	default:
		return capture.Config{}, usageError{fmt.Errorf("--pmtu %d: the IB path MTU is one of 256, 512, 1024, 2048, 4096", f.pmtu)}
	}
	icrc, ok := capture.ParseICRCMode(f.icrc)
	if !ok {
		return capture.Config{}, usageError{fmt.Errorf("--icrc %q: one of auto, on, off", f.icrc)}
	}
	if f.workers < 0 || f.workers > live.MaxFanout {
		return capture.Config{}, usageError{fmt.Errorf("--workers %d: between 1 and %d (0: one per CPU)", f.workers, live.MaxFanout)}
	}
	if f.stream != "" && (f.noCapture || f.snaplen != 0 || f.promisc) {
		return capture.Config{}, usageError{errors.New("--wire reads the wire from a stream: --no-capture, --snaplen and --promisc are for capturing on -i")}
	}
	if f.snaplen != 0 && f.snaplen < live.MinSnapLen {
		return capture.Config{}, usageError{fmt.Errorf("--snaplen %d: at least %d bytes are needed for the RoCE headers", f.snaplen, live.MinSnapLen)}
	}
	return capture.Config{
		TrackerConfig: capture.TrackerConfig{PMTU: f.pmtu, MaxFlows: f.maxFlows, MaxAnomalies: f.maxAnoms},
		NoICRC:        f.noICRC,
		ICRC:          icrc,
	}, nil
}

// outputFlags are --report and --json.
type outputFlags struct{ report, json bool }

func (o *outputFlags) register(cmd *cobra.Command, what string) {
	cmd.Flags().BoolVar(&o.report, "report", false, "print "+what+" as text (the default when not on a terminal)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print "+what+" as JSON")
}

func (o *outputFlags) check() error {
	if o.json && o.report {
		return usageError{errors.New("--json and --report are exclusive")}
	}
	return nil
}

// oneFile accepts exactly one file argument and says what is wanted when
// it is missing, instead of cobra's "accepts 1 arg(s), received 0".
// oneOrTwoFiles is oneFile, or two captures to compare.
func oneOrTwoFiles(name string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 2 {
			return nil
		}
		if len(args) > 2 {
			return usageError{fmt.Errorf("%s takes one file, or two captures to compare, got %d: %s", name, len(args), strings.Join(args, " "))}
		}
		return oneFile(name)(cmd, args)
	}
}

func oneFile(name string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return usageError{fmt.Errorf("%s needs a file: rdmatop %s FILE (a pcap or pcapng capture, or an rdmatop recording)", name, name)}
		case len(args) > 1:
			return usageError{fmt.Errorf("%s takes one file, got %d: %s", name, len(args), strings.Join(args, " "))}
		}
		return nil
	}
}
