//go:build linux

package rtnl

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/safchain/ethtool"
	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/internal/nlsock"
)

// socketTimeout bounds one netlink exchange when the caller's context
// does not, so that a wedged kernel cannot hold a goroutine for long.
const socketTimeout = 5 * time.Second

// Kernel reads links over one NETLINK_ROUTE socket (RTM_GETLINK, requests
// built with internal/nlmsg) and their speed over one
// ethtool socket (ETHTOOL_GSET, github.com/safchain/ethtool); neither
// needs privileges. Both sockets belong to the network namespace of the
// thread that called Open. The read methods are safe for concurrent use;
// Close must not race with them. LinkContext's wait for the kernel ends
// when its context does.
type Kernel struct {
	sock *nlsock.Conn
	eth  *ethtool.Ethtool
}

var (
	_ OS        = (*Kernel)(nil)
	_ ContextOS = (*Kernel)(nil)
)

// Open opens the netlink and ethtool sockets.
func Open() (*Kernel, error) {
	s, err := nlsock.Open(unix.NETLINK_ROUTE, socketTimeout)
	if err != nil {
		return nil, fmt.Errorf("rtnl: open netlink socket: %w", mapErrno(err))
	}
	eth, err := ethtool.NewEthtool()
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("rtnl: open ethtool socket: %w", mapErrno(err))
	}
	return &Kernel{sock: s, eth: eth}, nil
}

// Close releases both sockets. It is safe to call more than once.
func (k *Kernel) Close() error {
	if k.sock != nil {
		k.sock.Close()
		k.sock = nil
	}
	if k.eth != nil {
		k.eth.Close()
		k.eth = nil
	}
	return nil
}

// Link is RTM_GETLINK by name (IFLA_IFNAME, or IFLA_ALT_IFNAME for names
// of 16 bytes and more), plus the speed when the link is up.
func (k *Kernel) Link(name string) (Link, error) { return k.LinkContext(context.Background(), name) }

// LinkContext is Link, abandoned when ctx ends.
func (k *Kernel) LinkContext(ctx context.Context, name string) (Link, error) {
	if err := checkName(name); err != nil {
		return Link{}, err
	}
	attr := unix.IFLA_IFNAME
	if len(name) > unix.IFNAMSIZ-1 {
		attr = unix.IFLA_ALT_IFNAME
	}
	req := k.request(0, 0).String(uint16(attr), name)
	return k.one(ctx, req, fmt.Sprintf("rtnl link %s", name))
}

// Links is an RTM_GETLINK dump, retried when a concurrent change
// interrupts it.
func (k *Kernel) Links() ([]Link, error) {
	if k.sock == nil {
		return nil, errClosed
	}
	var err error
	for range 3 {
		var msgs [][]byte
		msgs, err = k.execute(context.Background(), k.request(0, nlmsg.FlagDump), unix.RTM_NEWLINK)
		if errors.Is(err, nlmsg.ErrDumpInterrupted) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("rtnl link dump: %w", mapErrno(err))
		}
		links := make([]Link, 0, len(msgs))
		for _, m := range msgs {
			l, err := DecodeLink(m)
			if err != nil {
				return nil, err
			}
			if err := k.addSpeed(&l); err != nil && !errors.Is(err, ErrNoDevice) {
				return nil, err
			}
			links = append(links, l)
		}
		return links, nil
	}
	return nil, fmt.Errorf("rtnl link dump: interrupted three times by concurrent changes: %w", err)
}

var errClosed = errors.New("rtnl: use of closed Kernel")

// request starts RTM_GETLINK: struct ifinfomsg (family AF_UNSPEC, the
// ifindex or 0), attributes to follow.
func (k *Kernel) request(index int, flags uint16) *nlmsg.Request {
	ifinfo := make([]byte, unix.SizeofIfInfomsg)
	binary.NativeEndian.PutUint32(ifinfo[4:], uint32(int32(index))) // ifi_index
	return nlmsg.NewRequest(unix.RTM_GETLINK, flags, ifinfo)
}

// execute sends req and returns the payloads of the answers of type
// resType. The kernel's error comes back wrapping its syscall.Errno; a
// dump that a concurrent change interrupted returns
// nlmsg.ErrDumpInterrupted.
func (k *Kernel) execute(ctx context.Context, req *nlmsg.Request, resType uint16) ([][]byte, error) {
	if k.sock == nil {
		return nil, errClosed
	}
	bufs, err := k.sock.Execute(ctx, req.Bytes())
	if err != nil {
		return nil, err
	}
	return nlmsg.ReadReply(bufs, req.Flags(), func(t uint16) bool { return t == resType })
}

// one executes a request for a single link.
func (k *Kernel) one(ctx context.Context, req *nlmsg.Request, what string) (Link, error) {
	if k.sock == nil {
		return Link{}, errClosed
	}
	msgs, err := k.execute(ctx, req, unix.RTM_NEWLINK)
	if err != nil {
		return Link{}, fmt.Errorf("%s: %w", what, mapErrno(err))
	}
	if len(msgs) != 1 {
		return Link{}, fmt.Errorf("%s: %d answers, want 1", what, len(msgs))
	}
	l, err := DecodeLink(msgs[0])
	if err != nil {
		return Link{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := k.addSpeed(&l); err != nil {
		return Link{}, fmt.Errorf("%s: %w", what, err)
	}
	return l, nil
}

// addSpeed asks ethtool for the speed of a link that is up. Only a
// vanished link is an error: a driver without link settings (lo, dummy)
// or any other refusal leaves the speed absent.
func (k *Kernel) addSpeed(l *Link) error {
	if !l.Up() || k.eth == nil || len(l.Name) > unix.IFNAMSIZ-1 {
		return nil
	}
	var cmd ethtool.EthtoolCmd
	mbps, err := k.eth.CmdGet(&cmd, l.Name)
	if err != nil {
		if errors.Is(mapErrno(err), ErrNoDevice) {
			return fmt.Errorf("speed of %s: %w", l.Name, ErrNoDevice)
		}
		return nil
	}
	l.SpeedMbps = linkSpeed(l, mbps, true)
	return nil
}

// mapErrno turns an errno into the errors callers classify.
func mapErrno(err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	switch errno {
	case syscall.ENODEV:
		return fmt.Errorf("%w (%v)", ErrNoDevice, errno)
	case syscall.EPERM, syscall.EACCES:
		return &probes.PermissionError{What: "rtnetlink access", Err: err}
	}
	return err
}
