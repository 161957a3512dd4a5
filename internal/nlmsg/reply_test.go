package nlmsg

import (
	"errors"
	"syscall"
	"testing"
)

// negErrno is how the kernel writes an errno: negated.
func negErrno(e int32) uint32 { return uint32(-e) }

func msgOf(typ, flags uint16, payload []byte) []byte {
	return cat(put32(uint32(16+len(payload))), put16(typ), put16(flags), put32(1), put32(0), payload)
}

// nlerr is NLMSG_ERROR with errno and the extended ACK's text (capped:
// the request's header only).
func nlerr(errno int32, text string) []byte {
	p := cat(put32(negErrno(errno)), make([]byte, 16))
	flags := uint16(FlagCapped)
	if text != "" {
		a := append([]byte(text), 0)
		p = cat(p, put16(uint16(4+len(a))), put16(ErrAttrMsg), a, make([]byte, Align(len(a))-len(a)))
		flags |= FlagAckTLVs
	}
	return msgOf(TypeError, flags, p)
}

// ReadReply ends a reply where Execute does, and turns each way the kernel
// ends one into its error.
func TestReadReply(t *testing.T) {
	const link = 16
	any := func(typ uint16) bool { return typ == link }
	done := msgOf(TypeDone, FlagMulti, put32(0))
	a, b := msgOf(link, FlagMulti, []byte{1, 0, 0, 0}), msgOf(link, FlagMulti, []byte{2, 0, 0, 0})
	for _, c := range []struct {
		name  string
		bufs  [][]byte
		flags uint16
		n     int
		err   error
	}{
		{"a dump over two buffers", [][]byte{cat(a, b), done}, FlagDump, 2, nil},
		{"a get, acknowledged", [][]byte{msgOf(link, 0, nil), nlerr(0, "")}, FlagAck, 1, nil},
		{"a get without an ACK ends at its answer", [][]byte{msgOf(link, 0, nil)}, 0, 1, nil},
		{"a dump with no end", [][]byte{cat(a, b)}, FlagDump, 0, ErrIncomplete},
		{"nothing", nil, FlagAck, 0, ErrIncomplete},
		{"interrupted", [][]byte{cat(a, msgOf(link, FlagMulti|FlagDumpIntr, nil)), done}, FlagDump, 0, ErrDumpInterrupted},
		{"overrun", [][]byte{msgOf(TypeOverrun, 0, nil)}, FlagDump, 0, ErrOverrun},
		{"refused", [][]byte{nlerr(19, "")}, FlagAck, 0, syscall.ENODEV},
		{"a failed dump", [][]byte{a, msgOf(TypeDone, FlagMulti, put32(negErrno(22)))}, FlagDump, 0, syscall.EINVAL},
	} {
		ms, err := ReadReply(c.bufs, c.flags, any)
		if len(ms) != c.n || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: %d messages, %v; want %d, %v", c.name, len(ms), err, c.n, c.err)
		}
	}
	_, err := ReadReply([][]byte{nlerr(22, "bad attribute")}, FlagAck, any)
	var ke *KernelError
	if !errors.As(err, &ke) || ke.Errno != syscall.EINVAL || ke.Msg != "bad attribute" || err.Error() != "invalid argument: bad attribute" {
		t.Errorf("extended ACK: %v", err)
	}
}
