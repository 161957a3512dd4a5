//go:build linux

package gputcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes/internal/nlsock"
)

// dump returns the TCP sockets of the network namespace nsFile names (a
// process's ns/net; "" for this thread's own) that want keeps, by inode.
// The others are passed over at their inode, undecoded.
func dump(ctx context.Context, nsFile string, timeout time.Duration, want func(inode uint32) bool) (map[uint32]tcpSock, error) {
	conn, err := openIn(nsFile, timeout)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	out := map[uint32]tcpSock{}
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		msgs, err := dumpFamily(ctx, conn, family)
		if errors.Is(err, nlmsg.ErrDumpInterrupted) {
			msgs, err = dumpFamily(ctx, conn, family) // sockets came and went: once more
		}
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if ino, ok := sockInode(m); !ok || !want(ino) {
				continue
			}
			s, err := decodeSock(m)
			if err != nil {
				return nil, err
			}
			if s.inode != 0 {
				out[s.inode] = s
			}
		}
	}
	return out, nil
}

func dumpFamily(ctx context.Context, conn *nlsock.Conn, family uint8) ([][]byte, error) {
	req := dumpRequest(family)
	bufs, err := conn.Execute(ctx, req.Bytes())
	if err != nil {
		return nil, err
	}
	return nlmsg.ReadReply(bufs, req.Flags(), func(t uint16) bool { return t == sockDiagByFamily })
}

// openIn opens a socket diagnostics socket in the network namespace
// nsFile names: a socket belongs to the namespace it was made in. A
// goroutine of its own, locked to its thread, enters the namespace for
// the socket() call and leaves; should it fail to leave, it ends still
// locked and the runtime retires the thread with it, so nothing else
// ever runs in a foreign namespace.
func openIn(nsFile string, timeout time.Duration) (*nlsock.Conn, error) {
	if nsFile == "" {
		return nlsock.Open(unix.NETLINK_SOCK_DIAG, timeout)
	}
	type opened struct {
		conn *nlsock.Conn
		err  error
	}
	ch := make(chan opened, 1)
	go func() {
		runtime.LockOSThread()
		conn, back, err := openThere(nsFile, timeout)
		if back {
			runtime.UnlockOSThread()
		}
		ch <- opened{conn, err}
	}()
	o := <-ch
	return o.conn, o.err
}

// openThere is openIn's locked thread: back is false when it could not
// return to its own namespace.
func openThere(nsFile string, timeout time.Duration) (conn *nlsock.Conn, back bool, err error) {
	target, err := os.Open(nsFile)
	if err != nil {
		return nil, true, err
	}
	defer target.Close()
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		return nil, true, err
	}
	defer self.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, true, fmt.Errorf("entering %s: %w", nsFile, err)
	}
	conn, err = nlsock.Open(unix.NETLINK_SOCK_DIAG, timeout)
	if serr := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); serr != nil {
		if conn != nil {
			conn.Close()
		}
		return nil, false, fmt.Errorf("leaving %s: %w", nsFile, serr)
	}
	return conn, true, err
}

// selfNetNS names this process's network namespace ("net:[…]").
func selfNetNS() string {
	s, _ := os.Readlink("/proc/self/ns/net")
	return s
}
