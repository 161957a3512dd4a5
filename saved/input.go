package saved

import (
	"strconv"
	"time"
)

// Kind is what a file was recognised as.
type Kind string

// Kinds of input.
const (
	KindEthtool     Kind = "ethtool -S"
	KindSysfsGrep   Kind = "sysfs counter listing (grep . FILES)"
	KindSysfsCat    Kind = "sysfs counter listing (find | cat, head)"
	KindSysfsTree   Kind = "sysfs tree"
	KindSysfsFile   Kind = "sysfs file"
	KindRdmaStat    Kind = "rdma statistic show"
	KindRdmaStatJ   Kind = "rdma -j statistic show"
	KindRdmaQP      Kind = "rdma res show qp"
	KindRdmaQPJ     Kind = "rdma -j res show qp"
	KindRdmaLink    Kind = "rdma link show"
	KindRdmaLinkJ   Kind = "rdma -j link show"
	KindIPLink      Kind = "ip -s link"
	KindIPLinkJ     Kind = "ip -j -s link"
	KindMlnxQos     Kind = "mlnx_qos -i"
	KindKernelLog   Kind = "kernel log (dmesg, journalctl -k)"
	KindNCCLLog     Kind = "NCCL log (NCCL_DEBUG output)"
	KindDevinfo     Kind = "ibv_devinfo -v"
	KindMlxconfig   Kind = "mlxconfig query"
	KindCapture     Kind = "packet capture or rdmatop recording"
	KindSosreport   Kind = "sosreport"
	KindBinary      Kind = "binary"
	KindEmpty       Kind = "empty"
	KindUnknown     Kind = "unrecognised"
	KindUnreadable  Kind = "unreadable"
	KindTruncated   Kind = "truncated archive"
	KindUnsupported Kind = "not read here"
)

// Input is one file given, or found in a directory or archive, and what
// became of it.
type Input struct {
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
	// Read says what was taken from the file ("ethtool -S of enp59s0f0
	// (mlx5_core): 751 counters").
	Read []string `json:"read,omitempty"`
	// Ignored says what was not taken, and why.
	Ignored []string `json:"ignored,omitempty"`
	// Time is when the output was taken, when the file says so.
	Time *time.Time `json:"time,omitempty"`
}

// Usable reports whether anything was read from the input.
func (in *Input) Usable() bool { return len(in.Read) > 0 }

// plural says n things: "1 counter", "2 counters" ("1 kernel log lines"
// read wrong at 3 a.m.).
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + one + "s"
}

func (in *Input) read(format string, args ...any) {
	in.Read = append(in.Read, sprintf(format, args...))
}
func (in *Input) ignore(format string, args ...any) {
	in.Ignored = append(in.Ignored, sprintf(format, args...))
}
