//go:build linux

package gputcp

import (
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes/internal/nlsock"
)

// kernelMessages returns the inet_diag_msg of this process's TCP sockets
// (a loopback connection it opens), as the kernel writes them: the fuzz
// targets' seeds.
func kernelMessages(tb testing.TB) [][]byte {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	conn, err := nlsock.Open(unix.NETLINK_SOCK_DIAG, 5*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msgs, err := dumpFamily(ctx, conn, unix.AF_INET)
	if err != nil {
		tb.Fatal(err)
	}
	if len(msgs) == 0 {
		tb.Fatal("sock_diag dump of AF_INET: no socket, with a connection open")
	}
	return msgs
}

// FuzzDecodeSock: whatever bytes a dump hands over decode without a
// panic; a message shorter than inet_diag_msg is an error; the inode
// decoded is the one the dump filters on.
func FuzzDecodeSock(f *testing.F) {
	for _, m := range kernelMessages(f) {
		f.Add(m)
	}
	f.Add([]byte{})
	f.Add(make([]byte, sizeofDiagMsg))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeSock(b)
		ino, ok := sockInode(b)
		if ok != (len(b) >= sizeofDiagMsg) {
			t.Fatalf("sockInode ok=%v for %d bytes", ok, len(b))
		}
		if !ok && err == nil {
			t.Fatalf("%d bytes decoded without error", len(b))
		}
		if ok && s.inode != ino {
			t.Fatalf("decoded inode %d, sockInode %d", s.inode, ino)
		}
	})
}

// FuzzSockFields: a message made of given fields decodes to them: the
// peer (IPv4, or IPv6 with a v4-mapped address unmapped), the inode, and
// both byte counters when tcp_info is long enough to hold them.
func FuzzSockFields(f *testing.F) {
	for _, m := range kernelMessages(f) {
		var addr [16]byte
		copy(addr[:], m[24:40])
		f.Add(m[0], addr[:], binary.BigEndian.Uint16(m[6:]), binary.NativeEndian.Uint32(m[68:]), uint64(1), uint64(2), uint16(232))
	}
	f.Add(uint8(unix.AF_INET6), []byte(net.ParseIP("fe80::1").To16()), uint16(443), uint32(7), uint64(1)<<40, uint64(3), uint16(136))
	f.Add(uint8(unix.AF_INET6), []byte(net.ParseIP("10.0.0.1").To16()), uint16(4791), uint32(9), uint64(5), uint64(6), uint16(104))
	f.Fuzz(func(t *testing.T, family uint8, addr []byte, port uint16, inode uint32, acked, received uint64, infoLen uint16) {
		if len(addr) != 16 || (family != unix.AF_INET && family != unix.AF_INET6) {
			t.Skip()
		}
		msg := make([]byte, sizeofDiagMsg)
		msg[0] = family
		binary.BigEndian.PutUint16(msg[6:], port)
		copy(msg[24:40], addr)
		binary.NativeEndian.PutUint32(msg[68:], inode)
		info := make([]byte, infoLen%512)
		hasBytes := len(info) >= offBytesReceived+8
		if hasBytes {
			binary.NativeEndian.PutUint64(info[offBytesAcked:], acked)
			binary.NativeEndian.PutUint64(info[offBytesReceived:], received)
		}
		msg = nlmsg.AppendAttr(msg, inetDiagInfo, info)

		s, err := decodeSock(msg)
		if err != nil {
			t.Fatal(err)
		}
		want := netip.AddrFrom16([16]byte(addr)).Unmap()
		if family == unix.AF_INET {
			want = netip.AddrFrom4([4]byte(addr[:4]))
		}
		if s.peer != netip.AddrPortFrom(want, port) || s.inode != inode || s.hasBytes != hasBytes {
			t.Fatalf("decoded peer %v inode %d hasBytes %v; built %v:%d inode %d, tcp_info of %d bytes",
				s.peer, s.inode, s.hasBytes, want, port, inode, len(info))
		}
		if hasBytes && (s.acked != acked || s.received != received) {
			t.Fatalf("decoded acked %d received %d, built %d and %d", s.acked, s.received, acked, received)
		}
	})
}
