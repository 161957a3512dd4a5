package gputcp

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// The socket diagnostics ABI (include/uapi/linux/sock_diag.h, inet_diag.h,
// tcp.h).
const (
	sockDiagByFamily = 20 // SOCK_DIAG_BY_FAMILY
	inetDiagInfo     = 2  // INET_DIAG_INFO: struct tcp_info
	sizeofReqV2      = 56 // struct inet_diag_req_v2
	sizeofDiagMsg    = 72 // struct inet_diag_msg
	ipprotoTCP       = 6
	// tcp_info's bytes_acked and bytes_received (u64, host order): fixed
	// offsets since Linux 4.1 and 4.2 added them; a shorter tcp_info
	// (older kernel) lacks them.
	offBytesAcked    = 120
	offBytesReceived = 128
	// States asked for: all (TCP_ESTABLISHED 1 … TCP_CLOSING 11) but
	// TCP_LISTEN (10), which moves no data, and TCP_TIME_WAIT (6) and
	// TCP_NEW_SYN_RECV (12), mini-sockets without an inode or tcp_info.
	wantStates = 0xfff &^ (1<<10 | 1<<6 | 1<<12)
)

// tcpSock is what one socket's diagnostics say.
type tcpSock struct {
	inode    uint32
	peer     netip.AddrPort
	acked    uint64 // bytes the peer acknowledged
	received uint64 // bytes received in order
	hasBytes bool   // tcp_info held both counters
}

// dumpRequest asks for every TCP socket of family (AF_INET, AF_INET6)
// with its tcp_info.
func dumpRequest(family uint8) *nlmsg.Request {
	req := make([]byte, sizeofReqV2)
	req[0], req[1], req[2] = family, ipprotoTCP, 1<<(inetDiagInfo-1)
	binary.NativeEndian.PutUint32(req[4:], wantStates)
	return nlmsg.NewRequest(sockDiagByFamily, nlmsg.FlagDump, req)
}

// sockInode is the inode of an inet_diag_msg, ok false when it is too
// short to hold one.
func sockInode(b []byte) (uint32, bool) {
	if len(b) < sizeofDiagMsg {
		return 0, false
	}
	return binary.NativeEndian.Uint32(b[68:]), true
}

// decodeSock reads one inet_diag_msg and its attributes.
func decodeSock(b []byte) (tcpSock, error) {
	if len(b) < sizeofDiagMsg {
		return tcpSock{}, fmt.Errorf("sock_diag: message of %d bytes, shorter than inet_diag_msg", len(b))
	}
	var s tcpSock
	port := binary.BigEndian.Uint16(b[6:]) // id.idiag_dport, network order
	switch b[0] {
	case 2: // AF_INET
		s.peer = netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[24:28])), port)
	case 10: // AF_INET6
		s.peer = netip.AddrPortFrom(netip.AddrFrom16([16]byte(b[24:40])).Unmap(), port)
	}
	s.inode = binary.NativeEndian.Uint32(b[68:])
	as, err := nlmsg.Attrs(b[sizeofDiagMsg:])
	if err != nil {
		return s, fmt.Errorf("sock_diag: inode %d: %w", s.inode, err)
	}
	for _, a := range as {
		if a.Type == inetDiagInfo && len(a.Data) >= offBytesReceived+8 {
			s.acked = binary.NativeEndian.Uint64(a.Data[offBytesAcked:])
			s.received = binary.NativeEndian.Uint64(a.Data[offBytesReceived:])
			s.hasBytes = true
		}
	}
	return s, nil
}
