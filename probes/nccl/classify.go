package nccl

import (
	"encoding/binary"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/internal/lazyre"
	"github.com/rdmatop/rdmatop/probes"
)

// Event kinds.
const (
	// KindCompletion: a work request completed in error (ibv_wc_status).
	KindCompletion = "nccl_completion_error"
	// KindAsync: the HCA raised an asynchronous event (port error, local
	// catastrophic error, a fatal event on a QP).
	KindAsync = "nccl_async_event"
	// KindModifyQP: a QP transition failed while connecting (the path, the
	// GID or the peer did not answer).
	KindModifyQP = "nccl_modify_qp_failed"
	// KindWarn: any other warning NCCL logged.
	KindWarn = "nccl_warn"
	// KindLinkLocalGID: NCCL connected a QP from a link-local GID
	// (fe80::/10, derived from the MAC), which no router forwards (an
	// INFO line of NCCL_DEBUG_SUBSYS=NET).
	KindLinkLocalGID = "nccl_link_local_gid"
)

// Statuses are the names of ibv_wc_status (rdma-core's verbs.h), by number.
var Statuses = [...]string{
	"IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_EEC_OP_ERR",
	"IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR",
	"IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_OP_ERR",
	"IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR", "IBV_WC_REM_INV_RD_REQ_ERR",
	"IBV_WC_REM_ABORT_ERR", "IBV_WC_INV_EECN_ERR", "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
	"IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR",
}

// StatusName is the verbs name of status n, or "" when it has none.
func StatusName(n int) string {
	if n >= 0 && n < len(Statuses) {
		return Statuses[n]
	}
	return ""
}

// Parser turns NCCL log lines into events. It joins a completion error
// with the "Got CQE with error (… qp_num=N)" line its thread logged just
// before it (NCCL 2.30), which alone names the QP. Not safe for
// concurrent use.
type Parser struct {
	qpn map[string]uint32 // by thread: the QP of its last CQE line
	via map[string]bool   // "HOST:PID CHOICE" of the channel transports and graphs said
}

// NewParser returns a parser.
func NewParser() *Parser { return &Parser{qpn: map[string]uint32{}, via: map[string]bool{}} }

// Line parses one line of a log and returns its event (Event): ok is
// false for text NCCL did not log and for lines that tell nothing wrong.
func (p *Parser) Line(s string) (ev probes.Event, ok bool) {
	l, ok := ParseLine(s)
	if !ok {
		return probes.Event{}, false
	}
	return p.Event(l)
}

// Event turns a parsed line into an event: a warning, an INFO line
// showing a QP connected from a link-local GID, or one saying what NCCL
// chose (choices.go). Other INFO lines give none.
func (p *Parser) Event(l Line) (ev probes.Event, ok bool) {
	if l.Level == "INFO" {
		if ev, ok := linkLocalGID(l); ok {
			return ev, true
		}
		return p.choice(l)
	}
	if l.Level != "WARN" {
		return probes.Event{}, false
	}
	if r := noRDMAReason(l.Message); r != "" {
		// "misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]"
		// (NCCL 2.4): a choice it then makes, said as a warning.
		ev, _ = p.choice(l)
		ev.Severity = probes.SevWarning
		return ev, true
	}
	ev = probes.Event{Source: "nccl", Kind: KindWarn, Severity: probes.SevWarning, Detail: l.Message}
	n := &probes.NCCLError{Host: l.Host, PID: l.PID}
	dev := l.CUDADev
	n.CUDADev = &dev
	ev.NCCL = n
	msg := l.Message
	switch {
	case strings.Contains(msg, "Got CQE with error"):
		if m := reQPNum().FindStringSubmatch(msg); m != nil {
			if q, err := strconv.ParseUint(m[1], 10, 32); err == nil {
				p.qpn[l.Thread()] = uint32(q)
			}
		}
		return probes.Event{}, false // the completion line after it tells the error
	case strings.Contains(msg, "Got completion"):
		ev.Kind, ev.Severity = KindCompletion, probes.SevCritical
		completion(msg, n)
		if n.Status != nil && *n.Status == 5 {
			// Flushed: the QP was already in error; a consequence.
			ev.Severity = probes.SevWarning
		}
		if m := reHCA().FindStringSubmatch(msg); m != nil {
			ev.Device = m[1]
		}
		if q, ok := p.qpn[l.Thread()]; ok {
			ev.QPN = &q
			delete(p.qpn, l.Thread())
		}
	case strings.Contains(msg, "async ") || strings.Contains(msg, "GID table changed") || strings.Contains(msg, "unknown event type"):
		m := reAsync().FindStringSubmatch(msg)
		if m == nil {
			break // a warning about the async thread itself
		}
		ev.Kind, ev.Severity = KindAsync, probes.SevCritical
		ev.Device = m[1]
		ev.Port, _ = strconv.Atoi(m[2])
		switch {
		case m[3] != "":
			n.Async = strings.TrimSpace(m[3])
		case m[4] != "":
			n.Async = "GID table changed"
		case m[5] != "":
			// IBV_EVENT_GID_CHANGE (18 in verbs.h), which NCCL 2.23.4 to
			// 2.27 did not name.
			n.Async = "unknown event type (" + m[5] + ")"
			if m[5] == "18" {
				n.Async = "GID table changed"
			}
		}
		if m := reQPN().FindStringSubmatch(msg); m != nil {
			if q, err := strconv.ParseUint(m[1], 10, 32); err == nil {
				qpn := uint32(q)
				ev.QPN = &qpn
			}
		}
		if strings.Contains(msg, "non-fatal") || n.Async == "GID table changed" {
			ev.Severity = probes.SevWarning
		}
	case strings.Contains(msg, "ibv_modify_qp failed"):
		ev.Kind, ev.Severity = KindModifyQP, probes.SevCritical
		if m := reOnDev().FindStringSubmatch(msg); m != nil {
			ev.Device = m[1]
			ev.Port, _ = strconv.Atoi(m[2])
		}
		if m := reLocalGID().FindStringSubmatch(msg); m != nil {
			n.LocalGID = m[1]
		}
		if m := reRemoteGID().FindStringSubmatch(msg); m != nil {
			n.RemoteGID = m[1]
		}
	}
	return ev, true
}

// linkLocalGID reads the INFO line NCCL logs for each QP it connects
// ("NET/IB: … qpn 1047 mtu 5 … GID 0 (80FE/1A8A41FEFF21A75E) …"): an
// event when the GID is link-local, nothing otherwise.
func linkLocalGID(l Line) (probes.Event, bool) {
	m := reQPGID().FindStringSubmatch(l.Message)
	if m == nil {
		return probes.Event{}, false
	}
	gid, ok := printedGID(m[4], m[5])
	if !ok || !gid.IsLinkLocalUnicast() {
		return probes.Event{}, false
	}
	dev := l.CUDADev
	ev := probes.Event{Source: "nccl", Kind: KindLinkLocalGID, Severity: probes.SevWarning, Detail: l.Message,
		NCCL: &probes.NCCLError{Host: l.Host, PID: l.PID, CUDADev: &dev, LocalGID: gid.String()}}
	if q, err := strconv.ParseUint(m[1], 10, 32); err == nil {
		qpn := uint32(q)
		ev.QPN = &qpn
	}
	if i, err := strconv.Atoi(m[3]); err == nil {
		ev.NCCL.GIDIndex = &i
	}
	return ev, true
}

// printedGID reads a GID as NCCL prints it: its subnet prefix and
// interface id as two 64-bit hex numbers loaded from the GID's bytes in
// the host's order, so byte-reversed on the little-endian hosts GPUs run
// on ("80FE/1A8A41FEFF21A75E" is fe80::5ea7:21ff:fe41:8a1a).
func printedGID(prefix, iface string) (netip.Addr, bool) {
	hi, err1 := strconv.ParseUint(prefix, 16, 64)
	lo, err2 := strconv.ParseUint(iface, 16, 64)
	if err1 != nil || err2 != nil {
		return netip.Addr{}, false
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], hi)
	binary.LittleEndian.PutUint64(b[8:], lo)
	return netip.AddrFrom16(b), true
}

// completion reads a completion error's fields, each where it is.
func completion(msg string, n *probes.NCCLError) {
	if m := rePeer().FindStringSubmatch(msg); m != nil {
		n.Peer = m[1]
		n.PeerPort, _ = strconv.Atoi(m[2])
	}
	if m := reStatus().FindStringSubmatch(msg); m != nil {
		num := m[1] + m[3] // "error 12" / "status=12", or "status=NAME(12)"
		if v, err := strconv.Atoi(num); err == nil {
			n.Status = &v
			n.StatusName = StatusName(v)
		}
	}
	n.Opcode = intField(reOpcode(), msg)
	n.VendorErr = intField(reVendor(), msg)
	if m := reDir().FindStringSubmatch(msg); m != nil {
		n.Direction = m[1]
	}
	if m := reLocalGID().FindStringSubmatch(msg); m != nil {
		n.LocalGID = m[1]
	}
	if m := reRemoteGID().FindStringSubmatch(msg); m != nil {
		n.RemoteGID = m[1]
	}
}

func intField(re *regexp.Regexp, s string) *int {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	v, err := strconv.Atoi(m[1])
	if err != nil {
		return nil
	}
	return &v
}

// Patterns, compiled on first use (lazyre).
var (
	// "from peer 10.1.2.3<40554>", "from peer fe80::1%ib0<53249>"
	rePeer = lazyre.New(`from peer (\S+?)<(\d+)>`)
	// "with error 12", "with status=12", "with status=IBV_WC_RETRY_EXC_ERR(12)"
	reStatus = lazyre.New(`with (?:error |status=)(?:(\d+)|([A-Z_]+)\((\d+)\))`)
	// "opcode 1", "opcode=129", "opcode=IBV_WC_RDMA_WRITE(1)"
	reOpcode = lazyre.New(`opcode[ =](?:[A-Z_]+\()?(\d+)`)
	// "vendor err 129", "vendor_err=129"
	reVendor    = lazyre.New(`vendor[ _]err[ =](\d+)`)
	reDir       = lazyre.New(`(?:\(|req_type=)(Send|Recv)\b`)
	reLocalGID  = lazyre.New(`local ?G[Ii][Dd] ([0-9A-Fa-f:.]*[0-9A-Fa-f])`)
	reRemoteGID = lazyre.New(`remote ?G[Ii][Dd]s? ?([0-9A-Fa-f:.]*[0-9A-Fa-f])`)
	reHCA       = lazyre.New(`\bhca (\S+)`)
	reQPNum     = lazyre.New(`qp_num=(\d+)`)
	reQPN       = lazyre.New(`\bqpn=(\d+)`) // NCCL 2.30.7's fatal QP events
	// "qpn 1047 mtu 5 … GID 0 (80FE/1A8A41FEFF21A75E)" (qp_num from 2.29.7)
	reQPGID = lazyre.New(`\bqp(?:n|_num) (\d+) mtu (\d+)\b.*?\bGID (\d+) \(([0-9A-Fa-f]{1,16})/([0-9A-Fa-f]{1,16})\)`)
	// "Got async event : port error" (before 2.20: no device), "mlx5_0:1 Got
	// async event : local access violation work queue error", "mlx5_1:1
	// async fatal event on QP (0x…): invalid request …", "… async fatal
	// event: …", "… Got async error event: …", "… Got non-fatal async event:
	// port active(9)", "mlx5_0:1 GID table changed", "mlx5_0:1 unknown
	// event type (18)".
	reAsync = lazyre.New(`(?:(\S+):(\d+) )?(?:(?:Got (?:non-fatal )?async (?:error )?event|async fatal event(?: on [A-Z]+[^:]*)?)\s*:\s*(.+)$|(GID table changed)|unknown event type \((\d+)\))`)
	// "on dev mlx5_1:1,"
	reOnDev = lazyre.New(`on dev (\S+?):(\d+)`)
)
