//go:build linux

package rtnl

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes/internal/nlsock"
)

// AddrWatch follows the kernel's announcements of IPv4 and IPv6 address
// changes (the RTNLGRP_IPV4_IFADDR and RTNLGRP_IPV6_IFADDR groups, as
// `ip monitor address` does), in a goroutine that Close stops. Joining
// the groups needs no capability.
type AddrWatch struct {
	pending
	f    *os.File
	now  func() time.Time
	done chan struct{}
}

var _ AddrSource = (*AddrWatch)(nil)

// WatchAddrs starts following address changes in the calling thread's
// network namespace; now, the caller's clock, stamps each.
func WatchAddrs(now func() time.Time) (*AddrWatch, error) {
	fd, err := nlsock.Socket(unix.NETLINK_ROUTE, 1<<(rtnlGroupIPv4Ifa-1)|1<<(rtnlGroupIPv6Ifa-1))
	if err != nil {
		return nil, fmt.Errorf("rtnetlink address monitor: %w", err)
	}
	w := &AddrWatch{f: os.NewFile(uintptr(fd), "rtnetlink-addr-monitor"), now: now, done: make(chan struct{})}
	go w.run()
	return w, nil
}

// Close stops the watcher and waits for its goroutine.
func (w *AddrWatch) Close() error {
	err := w.f.Close()
	<-w.done
	return err
}

func (w *AddrWatch) run() {
	defer close(w.done)
	rc, err := w.f.SyscallConn()
	if err != nil {
		return
	}
	for {
		var buf []byte
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			buf, rerr = nlsock.ReadDatagram(int(fd))
			return rerr != unix.EAGAIN
		})
		switch {
		case err != nil:
			return // closed
		case errors.Is(rerr, unix.ENOBUFS):
			// The socket overran: announcements were dropped. The
			// sampler rereads the tables; how many is not known.
			w.addLost(1)
			continue
		case rerr != nil:
			return
		}
		w.received(buf, w.now())
	}
}

// received decodes one datagram of announcements.
func (w *AddrWatch) received(buf []byte, at time.Time) {
	msgs, err := nlmsg.Split(buf)
	if err != nil {
		w.addLost(1)
		return
	}
	for _, m := range msgs {
		if m.Type != rtmNewAddr && m.Type != rtmDelAddr {
			continue
		}
		e, err := DecodeAddr(m.Type, m.Payload)
		if err != nil {
			w.addLost(1)
			continue
		}
		e.Time = at
		w.add(e)
	}
}
