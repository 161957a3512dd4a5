// Package nccl reads NCCL's log (NCCL_DEBUG=WARN or INFO output, as
// saved by a job or a scheduler) for what bears on RDMA: the work
// completion errors and asynchronous events of its IB/RoCE transport and
// its failed QP transitions, and from its INFO lines what it chose (the
// network, its devices, GPUDirect RDMA, each channel's transport, its
// NCCL_* settings: choices.go). Each becomes an event of the host model
// (probes.Event with source "nccl") carrying what the line says: the
// ibv_wc_status, vendor syndrome, opcode, direction, peer address, GIDs,
// HCA and QP number; the network, devices, reason, GDR and transport.
//
// NCCL's wording changed over its versions (2.4 "Got completion with error
// 12, opcode 1, len 0, vendor err 129"; 2.12 "from peer ADDR<port> with
// error 4, …"; 2.19 "with status=12 opcode=… vendor err 129 (Recv) localGid …
// remoteGids…"; 2.27 "… hca mlx5_1"; 2.30 "status=IBV_WC_RETRY_EXC_ERR(12)
// … vendor_err=129"): a completion line is read field by field, so that a
// field it lacks is absent, never guessed. Its tests run on real lines
// from public reports (testdata/nccl, with provenance).
//
// Lines are data: nothing here runs, signals or writes anything, and text
// is kept as logged (sanitising for display is the UI's job).
package nccl

import (
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/internal/lazyre"
)

// Line is one line of NCCL's log: "HOST:PID:TID [CUDADEV] [FILE:LINE] NCCL
// LEVEL MESSAGE", wherever it starts (a launcher or a logger may prefix
// it: mpirun's "[1,12]<stdout>:", a timestamp).
type Line struct {
	Host    string
	PID     int // 0 when not a number (a redacted log)
	TID     int
	CUDADev int
	Source  string // NCCL's source file and line, when logged
	Level   string // WARN, INFO, TRACE, ABORT
	Message string
}

// Thread names the thread that logged l (its CQE line and completion
// line go together).
func (l Line) Thread() string {
	return l.Host + ":" + strconv.Itoa(l.PID) + ":" + strconv.Itoa(l.TID)
}

// levels are the levels NCCL logs; ParseLine looks for " NCCL LEVEL".
var levels = []string{"WARN", "INFO", "TRACE", "ABORT"}

// ParseLine parses one line; ok is false for a line NCCL did not log in
// its debug format.
func ParseLine(s string) (Line, bool) {
	s = strings.TrimRight(unlink(s), "\r` ")
	for _, lv := range levels {
		i := strings.Index(s, " NCCL "+lv)
		if i < 0 {
			continue
		}
		rest := s[i+len(" NCCL "+lv):]
		if rest != "" && rest[0] != ' ' {
			continue
		}
		l, ok := parsePrefix(s[:i])
		if !ok {
			return Line{}, false
		}
		l.Level, l.Message = lv, strings.TrimSpace(rest)
		return l, true
	}
	return Line{}, false
}

// parsePrefix reads "HOST:PID:TID [DEV]" and an optional "FILE:LINE" from
// the end of head.
func parsePrefix(head string) (Line, bool) {
	f := strings.Fields(head)
	if len(f) < 2 {
		return Line{}, false
	}
	var l Line
	if t := f[len(f)-1]; len(t) > 2 && t[0] == '(' && t[len(t)-1] == ')' {
		f = f[:len(f)-1] // NCCL 2.30.7: "FILE:LINE (FUNCTION)"
		if len(f) < 2 {
			return Line{}, false
		}
	}
	last := f[len(f)-1]
	if !isDev(last) {
		l.Source = last
		f = f[:len(f)-1]
		if len(f) < 2 {
			return Line{}, false
		}
		last = f[len(f)-1]
	}
	if !isDev(last) {
		return Line{}, false
	}
	l.CUDADev, _ = strconv.Atoi(last[1 : len(last)-1])
	// HOST:PID:TID, with whatever a launcher glued in front of it before
	// a colon ("[1,12]<stdout>:host:815:864").
	parts := strings.Split(f[len(f)-2], ":")
	n := len(parts)
	switch {
	case n >= 3 && isNum(parts[n-1]) && isNum(parts[n-2]):
		l.Host = strings.TrimLeft(parts[n-3], "`'\">")
		l.PID, _ = strconv.Atoi(parts[n-2])
		l.TID, _ = strconv.Atoi(parts[n-1])
	case n >= 2:
		l.Host = strings.TrimLeft(parts[n-2], "`'\">") // redacted: host:XXXXXX
		l.PID, _ = strconv.Atoi(parts[n-1])
	default:
		return Line{}, false
	}
	return l, l.Host != ""
}

func isDev(s string) bool {
	return len(s) >= 3 && s[0] == '[' && s[len(s)-1] == ']' && isNum(s[1:len(s)-1])
}

func isNum(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// mdLink matches a Markdown autolink a rendered web page adds to a pasted
// log ("[net_ib.cc:101](http://net_ib.cc:101/)"): a log copied from an
// issue tracker keeps its text.
var mdLink = lazyre.New(`\[([^\]\s]+)\]\(https?://[^)\s]*\)`)

func unlink(s string) string {
	if !strings.Contains(s, "](http") {
		return s
	}
	return mdLink().ReplaceAllString(s, "$1")
}
