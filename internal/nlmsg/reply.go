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

// Reply walks once the receive buffers that answer one request sent with
// flags reqFlags, in byte order o, and returns the messages whose type
// want accepts, in order (they point into bufs). The reply ends, as
// Conn.Execute reads it, at NLMSG_DONE or at
// the NLMSG_ERROR acknowledgement, or, for a request that asked for
// neither an ACK nor a dump, at its first message outside a multipart
// answer. A non-zero errno in NLMSG_ERROR or NLMSG_DONE is a *KernelError;
// a dump the kernel marked interrupted is ErrDumpInterrupted; an overrun
// is ErrOverrun; buffers that stop before the end are ErrIncomplete.
func (o Order) Reply(bufs [][]byte, reqFlags uint16, want func(typ uint16) bool) ([]Message, error) {
	needEnd := reqFlags&(FlagAck|FlagDump) != 0
	var out []Message
	intr := false
	for _, buf := range bufs {
		msgs, err := o.Split(buf)
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
				out = append(out, m)
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
// ReadReply is Native.Reply's payloads: the answer of this host's kernel.
func ReadReply(bufs [][]byte, reqFlags uint16, want func(typ uint16) bool) ([][]byte, error) {
	msgs, err := Native.Reply(bufs, reqFlags, want)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = m.Payload
	}
	return out, nil
}

func ended(out []Message, end Message, intr bool) ([]Message, error) {
	if e := end.Errno(); e != 0 {
		return nil, &KernelError{Errno: e, Msg: end.ExtAck()}
	}
	if intr {
		return nil, ErrDumpInterrupted
	}
	return out, nil
}
