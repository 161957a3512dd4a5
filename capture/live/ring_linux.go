//go:build linux

package live

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gopacket/gopacket"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// ring is one AF_PACKET socket with its TPACKET_V3 receive ring, opened
// and read with golang.org/x/sys/unix: rdmatop owns the socket, so that it
// can give it its filter before any frame arrives, join a fanout group
// with a BPF program and read the group's id, none of which gopacket's
// afpacket lets a caller do. The only unsafe code is the block status word
// the kernel and the reader hand each other (ring_status_linux.go).
//
// Not safe for concurrent use; Source serialises it.
type ring struct {
	fd        int
	mem       []byte // blocks × blockSize, mapped from the kernel
	blockSize int
	blocks    int
	poll      int // poll timeout in ms

	cur     int  // the block being read
	pkts    int  // packets left in it
	at      int  // offset of the next packet in mem
	holding bool // the reader has block cur

	vlanBuf  []byte // a frame with the tag the kernel took out put back
	restored uint64 // frames whose tag was put back
	total    Stats
}

// TPACKET_V3 layout (include/uapi/linux/if_packet.h).
const (
	// struct tpacket_block_desc: version, offset_to_priv, then struct
	// tpacket_hdr_v1 (block_status, num_pkts, offset_to_first_pkt, ...).
	blockNumPkts  = 12
	blockFirstPkt = 16
	// struct tpacket3_hdr.
	pktNextOffset = 0
	pktSec        = 4
	pktNsec       = 8
	pktSnaplen    = 12
	pktLen        = 16
	pktStatus     = 20
	pktMac        = 24
	pktVLANTCI    = 32
	pktVLANTPID   = 36
	pktHdrMin     = 40

	statusVLANValid     = 1 << 4 // TP_STATUS_VLAN_VALID
	statusVLANTPIDValid = 1 << 6 // TP_STATUS_VLAN_TPID_VALID
)

// openRing opens a packet socket on ifindex with filter attached, a ring
// of blocks × blockSize bytes, and binds it. The socket is created with
// protocol 0, which receives nothing, and bound to ETH_P_ALL only after
// the filter is on: no frame reaches the ring unfiltered.
func openRing(ifindex int, filter []bpf.RawInstruction, blockSize, frameSize, blocks int, blockTimeout, poll time.Duration) (*ring, error) {
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("packet socket: %w", err)
	}
	r := &ring{fd: fd, blockSize: blockSize, blocks: blocks, poll: int(poll / time.Millisecond)}
	fail := func(what string, err error) (*ring, error) {
		r.close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := attachFilter(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, filter); err != nil {
		return fail("attach filter", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_VERSION, unix.TPACKET_V3); err != nil {
		return fail("TPACKET_V3", err)
	}
	req := unix.TpacketReq3{
		Block_size: uint32(blockSize), Block_nr: uint32(blocks),
		Frame_size: uint32(frameSize), Frame_nr: uint32(blockSize / frameSize * blocks),
		Retire_blk_tov: uint32(blockTimeout / time.Millisecond),
	}
	if err := unix.SetsockoptTpacketReq3(fd, unix.SOL_PACKET, unix.PACKET_RX_RING, &req); err != nil {
		return fail("PACKET_RX_RING", err)
	}
	r.mem, err = unix.Mmap(fd, 0, blockSize*blocks, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fail("map the ring", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifindex}); err != nil {
		return fail("bind", err)
	}
	return r, nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// attachFilter sets a classic BPF program as socket option opt.
func attachFilter(fd, level, opt int, prog []bpf.RawInstruction) error {
	if len(prog) == 0 {
		return errors.New("empty BPF program")
	}
	ins := make([]unix.SockFilter, len(prog))
	for i, p := range prog {
		ins[i] = unix.SockFilter{Code: p.Op, Jt: p.Jt, Jf: p.Jf, K: p.K}
	}
	return unix.SetsockoptSockFprog(fd, level, opt, &unix.SockFprog{Len: uint16(len(ins)), Filter: &ins[0]})
}

// next returns the next frame: its bytes live in the ring (or in vlanBuf)
// until the next call. errRingTimeout when none came within the poll
// timeout.
func (r *ring) next() ([]byte, gopacket.CaptureInfo, error) {
	for r.pkts == 0 {
		if r.holding {
			releaseBlock(r.mem, r.cur*r.blockSize)
			r.holding = false
			r.cur = (r.cur + 1) % r.blocks
		}
		off := r.cur * r.blockSize
		if !blockReady(r.mem, off) {
			if err := r.wait(); err != nil {
				return nil, gopacket.CaptureInfo{}, err
			}
			if !blockReady(r.mem, off) {
				return nil, gopacket.CaptureInfo{}, errRingTimeout
			}
		}
		b := r.mem[off : off+r.blockSize]
		r.holding = true
		r.pkts = int(binary.NativeEndian.Uint32(b[blockNumPkts:]))
		r.at = off + int(binary.NativeEndian.Uint32(b[blockFirstPkt:]))
	}
	end := (r.cur + 1) * r.blockSize
	if r.at < r.cur*r.blockSize || r.at+pktHdrMin > end {
		return nil, gopacket.CaptureInfo{}, fmt.Errorf("packet ring: frame header at %d outside its block", r.at)
	}
	h := r.mem[r.at:end]
	ne := binary.NativeEndian
	snap, wire := int(ne.Uint32(h[pktSnaplen:])), int(ne.Uint32(h[pktLen:]))
	mac, status := int(ne.Uint16(h[pktMac:])), ne.Uint32(h[pktStatus:])
	if mac+snap > len(h) {
		return nil, gopacket.CaptureInfo{}, fmt.Errorf("packet ring: frame of %d bytes at %d runs past its block", snap, mac)
	}
	data := h[mac : mac+snap]
	ci := gopacket.CaptureInfo{
		Timestamp:     time.Unix(int64(ne.Uint32(h[pktSec:])), int64(ne.Uint32(h[pktNsec:]))),
		CaptureLength: snap, Length: wire,
	}
	if status&statusVLANValid != 0 && len(data) >= 12 {
		// The kernel took the outer tag out of the frame (VLAN offload):
		// put it back, so that the frame is what was on the wire.
		tpid := uint16(0x8100)
		if status&statusVLANTPIDValid != 0 {
			tpid = ne.Uint16(h[pktVLANTPID:])
		}
		r.vlanBuf = append(r.vlanBuf[:0], data[:12]...)
		r.vlanBuf = binary.BigEndian.AppendUint16(r.vlanBuf, tpid)
		r.vlanBuf = binary.BigEndian.AppendUint16(r.vlanBuf, uint16(ne.Uint32(h[pktVLANTCI:])))
		r.vlanBuf = append(r.vlanBuf, data[12:]...)
		data = r.vlanBuf
		r.restored++
		ci.CaptureLength += 4
		ci.Length += 4
	}
	r.pkts--
	r.at += int(ne.Uint32(h[pktNextOffset:]))
	return data, ci, nil
}

var errRingTimeout = errors.New("packet ring: no frame within the poll timeout")

// wait polls the socket for the next block, at most the poll timeout. A
// socket error the kernel raised (POLLERR) is read and cleared with
// SO_ERROR and returned: left pending, it would make every later poll
// return at once, and a reader calling again would spin. The one an
// AF_PACKET socket gets is ENETDOWN, when its interface goes down or away
// (packet_notifier in net/packet/af_packet.c).
func (r *ring) wait() error {
	fds := []unix.PollFd{{Fd: int32(r.fd), Events: unix.POLLIN | unix.POLLERR}}
	for {
		_, err := unix.Poll(fds, r.poll)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("poll: %w", err)
		}
		switch ev := fds[0].Revents; {
		case ev&unix.POLLNVAL != 0:
			return errors.New("poll: the socket is closed")
		case ev&unix.POLLERR != 0:
			return r.sockError()
		}
		return nil
	}
}

// sockError reads and clears the socket's pending error (nil if none).
func (r *ring) sockError() error {
	v, err := unix.GetsockoptInt(r.fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return fmt.Errorf("SO_ERROR: %w", err)
	}
	if v == 0 {
		return nil
	}
	return unix.Errno(v)
}

// linkFlags returns the interface flags (IFF_*) of ifindex, asked of the
// kernel through the capture's own socket (SIOCGIFNAME, then
// SIOCGIFFLAGS: two ioctls, no dump of every link). ENODEV: no interface
// has that index any more.
func (r *ring) linkFlags(ifindex int) (uint32, error) {
	ifr, err := unix.NewIfreq("")
	if err != nil {
		return 0, err
	}
	ifr.SetUint32(uint32(ifindex))
	if err := unix.IoctlIfreq(r.fd, unix.SIOCGIFNAME, ifr); err != nil {
		return 0, fmt.Errorf("SIOCGIFNAME: %w", err)
	}
	if err := unix.IoctlIfreq(r.fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return 0, fmt.Errorf("SIOCGIFFLAGS %s: %w", ifr.Name(), err)
	}
	return uint32(ifr.Uint16()), nil
}

// stats adds the kernel's counters, which it resets on each read, to the
// totals and returns them.
func (r *ring) stats() (Stats, error) {
	s, err := unix.GetsockoptTpacketStatsV3(r.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS)
	if err != nil {
		return Stats{}, err
	}
	r.total.Packets += uint64(s.Packets)
	r.total.Drops += uint64(s.Drops)
	r.total.QueueFreezes += uint64(s.Freeze_q_cnt)
	return r.total, nil
}

// setPromiscuous joins the interface's promiscuous membership; it ends
// with the socket.
func (r *ring) setPromiscuous(ifindex int) error {
	return unix.SetsockoptPacketMreq(r.fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP,
		&unix.PacketMreq{Ifindex: int32(ifindex), Type: unix.PACKET_MR_PROMISC})
}

// joinFanout joins fanout group id with mode (PACKET_FANOUT_* and flags).
func (r *ring) joinFanout(id uint16, mode int) error {
	return unix.SetsockoptInt(r.fd, unix.SOL_PACKET, unix.PACKET_FANOUT, int(id)|mode<<16)
}

// fanoutID is the id of the group the socket joined (the kernel's choice
// with PACKET_FANOUT_FLAG_UNIQUEID).
func (r *ring) fanoutID() (uint16, error) {
	v, err := unix.GetsockoptInt(r.fd, unix.SOL_PACKET, unix.PACKET_FANOUT)
	return uint16(v), err
}

// close unmaps the ring and closes the socket.
func (r *ring) close() {
	if r.mem != nil {
		unix.Munmap(r.mem) //nolint:errcheck // nothing to do about it
		r.mem = nil
	}
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}
