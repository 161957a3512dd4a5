package dcb

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes"
)

// Querier sends one DCB GET command for one netdev and returns the reply's
// payload: struct dcbmsg and its attributes (what follows struct
// nlmsghdr). When the kernel answers with an error it returns that errno
// as a syscall.Errno (wrapped or not).
type Querier interface {
	Query(ifname string, cmd Command) ([]byte, error)
}

// ContextQuerier is a Querier whose queries can be abandoned: QueryContext
// returns, with an error wrapping ctx.Err(), as soon as ctx ends.
type ContextQuerier interface {
	Querier
	QueryContext(ctx context.Context, ifname string, cmd Command) ([]byte, error)
}

// query asks q, through QueryContext where q has it; a Querier without it
// is not asked once ctx has ended.
func query(ctx context.Context, q Querier, ifname string, cmd Command) ([]byte, error) {
	if cq, ok := q.(ContextQuerier); ok {
		return cq.QueryContext(ctx, ifname, cmd)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return q.Query(ifname, cmd)
}

// Reply is the raw outcome of one command: the reply payload, or the errno
// the kernel answered with.
type Reply struct {
	Cmd     Command `json:"cmd"`
	Payload []byte  `json:"payload,omitempty"`
	Errno   int     `json:"errno,omitempty"`
}

// Raw is everything one Read saw for one netdev, as recorded in a bundle.
type Raw struct {
	Ifname  string  `json:"ifname"`
	Replies []Reply `json:"replies"`
	// order is the byte order of the payloads: the host's that answered
	// them (a Recorded's for a replay).
	order nlmsg.Order
}

// ErrNoSuchInterface is wrapped when the netdev does not exist (ENODEV).
var ErrNoSuchInterface = errors.New("no such network interface")

// commands is what ReadContext asks, in order. IEEE_GET carries almost
// everything; GDCBX and GSTATE are cheap and fill DCBX mode and CEE state
// for drivers whose IEEE reply lacks them.
var commands = []Command{CmdIEEEGet, CmdGetDCBX, CmdGetState}

// ReadContext asks q for ifname's DCB configuration and returns the raw
// replies. Kernel errors are recorded as errnos, not returned: Decode
// interprets them, so a replay reproduces them. An error that is not a
// kernel errno (no netlink socket, a malformed netlink exchange) is
// returned. If the IEEE query fails the others are not sent (the kernel
// refuses them all for the same reasons: no such netdev, no DCB ops).
// It is abandoned when ctx ends: the error then wraps ctx.Err().
func ReadContext(ctx context.Context, q Querier, ifname string) (Raw, error) {
	raw := Raw{Ifname: ifname}
	if r, ok := q.(Recorded); ok {
		raw.order = r.order
	}
	for _, cmd := range commands {
		payload, err := query(ctx, q, ifname, cmd)
		var errno syscall.Errno
		switch {
		case err == nil:
			raw.Replies = append(raw.Replies, Reply{Cmd: cmd, Payload: payload})
		case errors.As(err, &errno):
			raw.Replies = append(raw.Replies, Reply{Cmd: cmd, Errno: int(errno)})
		default:
			return raw, fmt.Errorf("%s: DCB netlink %v: %w", ifname, cmd, err)
		}
		if cmd == CmdIEEEGet && err != nil {
			break
		}
	}
	return raw, nil
}

// Decode turns raw replies into a Config. The errors it returns are
// classified for probes.StatusOf: a netdev whose driver has no DCB ops
// (EOPNOTSUPP: veth, lo, most virtual devices) wraps probes.ErrNotSupported;
// a missing netdev wraps ErrNoSuchInterface; EPERM/EACCES is a
// *probes.PermissionError.
func Decode(raw Raw) (Config, error) {
	c := Config{Ifname: raw.Ifname}
	var ieee *Reply
	for i := range raw.Replies {
		if raw.Replies[i].Cmd == CmdIEEEGet {
			ieee = &raw.Replies[i]
			break
		}
	}
	if ieee == nil {
		return c, fmt.Errorf("%s: no DCB_CMD_IEEE_GET reply recorded", raw.Ifname)
	}
	if ieee.Errno != 0 {
		return c, errnoError(raw.Ifname, syscall.Errno(ieee.Errno))
	}
	c, err := parseIEEE(raw.order, ieee.Payload)
	if err != nil {
		return c, fmt.Errorf("%s: %w", raw.Ifname, err)
	}
	if c.Ifname == "" {
		c.Ifname = raw.Ifname
	}
	for _, r := range raw.Replies {
		if r.Errno != 0 {
			continue // driver lacks the op (EOPNOTSUPP, or EINVAL on old kernels): absent
		}
		switch r.Cmd {
		case CmdGetDCBX:
			if c.DCBX == nil {
				d, err := parseDCBXReply(raw.order, r.Payload)
				if err != nil {
					return c, fmt.Errorf("%s: %w", raw.Ifname, err)
				}
				c.DCBX = d
			}
		case CmdGetState:
			on, err := parseState(raw.order, r.Payload)
			if err != nil {
				return c, fmt.Errorf("%s: %w", raw.Ifname, err)
			}
			c.State = &on
		}
	}
	return c, nil
}

// ProbeContext reads and decodes in one step, returning the raw replies
// too; it is abandoned when ctx ends.
func ProbeContext(ctx context.Context, q Querier, ifname string) (Config, Raw, error) {
	raw, err := ReadContext(ctx, q, ifname)
	if err != nil {
		return Config{Ifname: ifname}, raw, err
	}
	c, err := Decode(raw)
	return c, raw, err
}

func errnoError(ifname string, errno syscall.Errno) error {
	switch errno {
	case syscall.EOPNOTSUPP:
		return fmt.Errorf("%s: driver has no DCB support (DCB netlink: %v): %w", ifname, errno, probes.ErrNotSupported)
	case syscall.ENODEV:
		return fmt.Errorf("%s: %w (DCB netlink: %v)", ifname, ErrNoSuchInterface, errno)
	case syscall.EPERM, syscall.EACCES:
		return fmt.Errorf("%s: DCB netlink: %w", ifname, &probes.PermissionError{What: "CAP_NET_ADMIN", Err: errno})
	}
	return fmt.Errorf("%s: DCB netlink %v: %w", ifname, CmdIEEEGet, errno)
}
