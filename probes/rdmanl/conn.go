package rdmanl

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes"
)

// Conn is the OS boundary: it sends one request (as built by the
// *Request functions, seq 0) and returns the raw receive buffers up to and
// including the NLMSG_DONE or the acknowledgement. Kernel errors travel
// inside the buffers; err is for failures below netlink (no RDMA
// netlink in this kernel, socket errors, timeouts).
type Conn interface {
	Execute(req []byte) (replies [][]byte, err error)
}

// ContextConn is a Conn whose requests can be abandoned: ExecuteContext
// returns, with an error wrapping ctx.Err(), as soon as ctx ends. The
// Linux socket, Recorder and Replay implement it.
type ContextConn interface {
	Conn
	ExecuteContext(ctx context.Context, req []byte) (replies [][]byte, err error)
}

// execute runs req on c, through ExecuteContext where c has it. A Conn
// without it is not started once ctx has ended.
func execute(ctx context.Context, c Conn, req []byte) ([][]byte, error) {
	if cc, ok := c.(ContextConn); ok {
		return cc.ExecuteContext(ctx, req)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rdma netlink: %w", err)
	}
	return c.Execute(req)
}

// Exchange is one request and what came back: the unit a recorder stores
// per tick and Replay plays back. Request has seq and pid 0.
type Exchange struct {
	Request []byte   `json:"request"`
	Replies [][]byte `json:"replies,omitempty"`
	// Status is set when Execute itself failed: its state (not_supported,
	// permission_denied, timeout, failed) and text.
	Status *probes.Status `json:"status,omitempty"`
}

// Recorder is a Conn that passes requests to Conn and keeps every
// exchange until Take.
type Recorder struct {
	Conn Conn
	mu   sync.Mutex
	ex   []Exchange
}

var _ ContextConn = (*Recorder)(nil)

// Execute forwards to the wrapped Conn and records the exchange.
func (r *Recorder) Execute(req []byte) ([][]byte, error) {
	return r.ExecuteContext(context.Background(), req)
}

// ExecuteContext forwards to the wrapped Conn, with ctx where it takes
// one, and records the exchange.
func (r *Recorder) ExecuteContext(ctx context.Context, req []byte) ([][]byte, error) {
	replies, err := execute(ctx, r.Conn, req)
	ex := Exchange{Request: SetSeq(req, 0)}
	for _, b := range replies {
		ex.Replies = append(ex.Replies, append([]byte(nil), b...))
	}
	if err != nil {
		st := probes.StatusOf("rdma netlink", err)
		ex.Status = &st
	}
	r.mu.Lock()
	r.ex = append(r.ex, ex)
	r.mu.Unlock()
	return replies, err
}

// Take returns the exchanges recorded since the last Take.
func (r *Recorder) Take() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	ex := r.ex
	r.ex = nil
	return ex
}

// Replay is a Conn that answers from recorded exchanges: each request gets
// the replies of the first unused exchange with the same bytes (seq and
// pid ignored). A Client over it decodes the replies in the recording
// host's byte order.
type Replay struct {
	mu    sync.Mutex
	ex    []Exchange
	used  []bool
	order nlmsg.Order
}

// orderOf is the byte order of what c answers: a Replay's is the
// recording host's, a Recorder's its Conn's, every other Conn's this
// host's (its kernel's).
func orderOf(c Conn) nlmsg.Order {
	switch c := c.(type) {
	case *Replay:
		return c.order
	case *Recorder:
		return orderOf(c.Conn)
	}
	return nlmsg.Native
}

// NewReplay plays back ex, recorded on a host of this one's byte order.
func NewReplay(ex []Exchange) *Replay {
	return &Replay{ex: ex, used: make([]bool, len(ex))}
}

// NewReplayFrom plays back ex, recorded on a host whose byte order is
// named byteOrder ("little" or "big", as a recording's header says). Its
// requests are rewritten in this host's order, to match the ones a Client
// here builds: rdmatop's requests carry u32 attributes only (request.go).
func NewReplayFrom(ex []Exchange, byteOrder string) (*Replay, error) {
	o, err := nlmsg.OrderNamed(byteOrder)
	if err != nil {
		return nil, err
	}
	r := &Replay{ex: slices.Clone(ex), used: make([]bool, len(ex)), order: o}
	if o == nlmsg.Native {
		return r, nil
	}
	for i := range r.ex {
		req, err := nativeRequest(o, r.ex[i].Request)
		if err != nil {
			return nil, fmt.Errorf("rdma netlink replay: recorded request %d: %w", i, err)
		}
		r.ex[i].Request = req
	}
	return r, nil
}

// nativeRequest is req, written in byte order o, rebuilt in this host's.
func nativeRequest(o nlmsg.Order, req []byte) ([]byte, error) {
	msgs, err := o.Split(req)
	if err != nil {
		return nil, err
	}
	if len(msgs) != 1 {
		return nil, fmt.Errorf("%d messages, want one", len(msgs))
	}
	m := msgs[0]
	as, err := m.Attrs(0)
	if err != nil {
		return nil, err
	}
	b := nlmsg.NewRequest(m.Type, m.Flags, nil)
	for _, a := range as {
		v, err := a.U32()
		if err != nil || len(a.Data) != 4 {
			return nil, fmt.Errorf("attribute %d is not a u32 (%d bytes)", a.Type, len(a.Data))
		}
		b.U32(a.Type, v)
	}
	return SetSeq(b.Bytes(), m.Seq), nil
}

// ErrNotRecorded: Replay has no exchange for the request.
var ErrNotRecorded = errors.New("rdma netlink: request not in the recording")

var _ ContextConn = (*Replay)(nil)

// ExecuteContext is Execute, not started once ctx has ended.
func (r *Replay) ExecuteContext(ctx context.Context, req []byte) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rdma netlink replay: %w", err)
	}
	return r.Execute(req)
}

// Execute returns the recorded replies, or the recorded failure.
func (r *Replay) Execute(req []byte) ([][]byte, error) {
	want := SetSeq(req, 0)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, ex := range r.ex {
		if r.used[i] || !bytes.Equal(SetSeq(ex.Request, 0), want) {
			continue
		}
		r.used[i] = true
		if ex.Status != nil && ex.Status.State != probes.StateOK {
			return nil, statusError(*ex.Status)
		}
		out := make([][]byte, len(ex.Replies))
		for j, b := range ex.Replies {
			out[j] = append([]byte(nil), b...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w (type %#04x, %d bytes)", ErrNotRecorded, msgType(req), len(req))
}

func msgType(req []byte) uint16 {
	if len(req) < 6 {
		return 0
	}
	return binary.NativeEndian.Uint16(req[4:])
}

// statusError turns a recorded status back into an error of the same class.
func statusError(s probes.Status) error {
	switch s.State {
	case probes.StateNotSupported:
		return fmt.Errorf("%w (recorded: %s)", probes.ErrNotSupported, s.Detail)
	case probes.StatePermissionDenied:
		return &probes.PermissionError{What: "CAP_NET_ADMIN", Err: errors.New("recorded: " + s.Detail)}
	case probes.StateTimeout:
		return fmt.Errorf("recorded: %s: %w", s.Detail, os.ErrDeadlineExceeded)
	}
	return errors.New("recorded: " + s.Detail)
}
