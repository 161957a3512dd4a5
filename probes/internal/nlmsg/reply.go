package nlmsg

import (
	"errors"
	"syscall"
)

// KernelError is the kernel's refusal of a request: the errno an
// NLMSG_ERROR or a dump's NLMSG_DONE carries, and the extended ACK's text
// where the kernel gave one. It unwraps to the errno.
type KernelError struct {
	Errno syscall.Errno
	Msg   string // NLMSGERR_ATTR_MSG, "" when absent
}

func (e *KernelError) Error() string {
	if e.Msg != "" {
		return e.Errno.Error() + ": " + e.Msg
	}
	return e.Errno.Error()
}

func (e *KernelError) Unwrap() error { return e.Errno }

var (
	// ErrDumpInterrupted: a change during the dump (NLM_F_DUMP_INTR) may
	// have left entries out or in twice; the caller dumps again.
	ErrDumpInterrupted = errors.New("netlink: dump interrupted by a concurrent change")
	// ErrOverrun: the socket's receive buffer overflowed (NLMSG_OVERRUN).
	ErrOverrun = errors.New("netlink: receive overrun")
	// ErrIncomplete: the replies stop before what ends them.
	ErrIncomplete = errors.New("netlink: reply ends before NLMSG_DONE or the acknowledgement")
)

// ReadReply walks once the receive buffers that answer one request sent
// with flags reqFlags, and returns the payloads of the messages whose type
// want accepts, in order (they point into bufs). The reply ends, as Conn.Execute reads it, at NLMSG_DONE or at
// the NLMSG_ERROR acknowledgement, or, for a request that asked for
// neither an ACK nor a dump, at its first message outside a multipart
// answer. A non-zero errno in NLMSG_ERROR or NLMSG_DONE is a *KernelError;
// a dump the kernel marked interrupted is ErrDumpInterrupted; an overrun
// is ErrOverrun; buffers that stop before the end are ErrIncomplete.
func ReadReply(bufs [][]byte, reqFlags uint16, want func(typ uint16) bool) ([][]byte, error) {
	needEnd := reqFlags&(FlagAck|FlagDump) != 0
	var out [][]byte
	intr := false
	for _, buf := range bufs {
		msgs, err := Split(buf)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			intr = intr || m.Flags&FlagDumpIntr != 0
			switch {
			case m.Type == TypeNoop:
				continue
			case m.Type == TypeOverrun:
				return nil, ErrOverrun
			case m.IsDone() || m.IsError():
				return ended(out, m, intr)
			case want(m.Type):
				out = append(out, m.Payload)
			}
			if !needEnd && m.Flags&FlagMulti == 0 {
				return ended(out, Message{}, intr)
			}
		}
	}
	return nil, ErrIncomplete
}

// ended is the reply's outcome at its last message end (an NLMSG_ERROR or
// NLMSG_DONE, or none).
func ended(out [][]byte, end Message, intr bool) ([][]byte, error) {
	if e := end.Errno(); e != 0 {
		return nil, &KernelError{Errno: e, Msg: end.ExtAck()}
	}
	if intr {
		return nil, ErrDumpInterrupted
	}
	return out, nil
}
