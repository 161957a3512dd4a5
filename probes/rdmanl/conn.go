package rdmanl

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"

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
// pid ignored).
type Replay struct {
	mu   sync.Mutex
	ex   []Exchange
	used []bool
}

// NewReplay plays back ex.
func NewReplay(ex []Exchange) *Replay {
	return &Replay{ex: ex, used: make([]bool, len(ex))}
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
