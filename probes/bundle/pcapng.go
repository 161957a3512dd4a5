package bundle

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// PEN is the IANA Private Enterprise Number in rdmatop's pcapng custom
// blocks. rdmatop has no number of its own: 32473 is the number IANA
// reserves for documentation and examples (RFC 5612), so other software
// may use it too. Readers therefore recognise an rdmatop block by PEN and
// Magic together, never by the PEN alone.
const PEN = 32473

// Magic starts the payload of every rdmatop custom block, after the PEN;
// one kind byte (KindHeader, KindTick) follows it, then JSON.
const Magic = "rdmatop-bundle\x00"

// Kinds of rdmatop custom blocks: the byte after Magic.
const (
	KindHeader = 'H' // the bundle Header, first rdmatop block of the file
	KindTick   = 'T' // one Tick
)

// MaxBlockLen bounds every pcapng block rdmatop writes or reads (64 MiB):
// a tick or packet that would make a larger block is refused by the
// writer, and a reader reports a larger block length as damage instead
// of allocating it. Ticks recorded on real hosts are well under 1 MiB;
// Wireshark 4.0 itself refuses blocks over about 128 MiB.
const MaxBlockLen = 64 << 20

// maxBlock is MaxBlockLen; tests lower it.
var maxBlock = MaxBlockLen

// DefaultSnapLen is the snap length of a PcapngWriter whose options give
// none: 262144 bytes, what tcpdump and Wireshark use.
const DefaultSnapLen = 262144

// pcapng block types and option codes (draft-ietf-opsawg-pcapng).
const (
	blockSHB          = 0x0A0D0D0A
	blockIDB          = 0x00000001
	blockPB           = 0x00000002 // obsolete Packet Block
	blockSPB          = 0x00000003
	blockNRB          = 0x00000004
	blockISB          = 0x00000005
	blockEPB          = 0x00000006
	blockCustom       = 0x00000BAD // custom block, may be copied
	blockCustomNoCopy = 0x40000BAD // custom block, must not be copied
	byteOrderMagic    = 0x1A2B3C4D

	optEnd      = 0
	optIfName   = 2
	optTsResol  = 9
	optTsOffset = 14
)

// ErrBlockTooLarge is wrapped by PcapngWriter errors for a tick or packet
// that would need a block over MaxBlockLen; nothing was written.
var ErrBlockTooLarge = errors.New("record too large for one pcapng block")

// PcapngOptions describe the capture of a version 2 bundle.
type PcapngOptions struct {
	// Gzip compresses the whole file (Wireshark reads gzip'd pcapng).
	Gzip bool
	// LinkType of the packets; 0 (layers.LinkTypeNull) means Ethernet,
	// so BSD loopback captures cannot be recorded.
	LinkType layers.LinkType
	// SnapLen is the capture's snap length; 0 means DefaultSnapLen.
	// Longer packets are cut to it (their original length is kept).
	SnapLen uint32
	// Iface is the capture interface's name (the if_name option), if any.
	Iface string
}

// PcapngWriter writes a version 2 bundle: a pcapng file holding one
// interface, the bundle header, the captured packets and the host ticks
// in the order they are written.
//
// It is safe for concurrent use: one goroutine may write packets while
// another writes ticks; each block is written whole. Packets are
// buffered; WriteTick (and Flush) push everything written so far to the
// underlying writer, through gzip's flush when compressing, so a recorder
// killed after WriteTick returns has lost nothing up to that tick.
//
// After an error from the underlying writer the file may end in a partial
// block, and every later call returns that error.
type PcapngWriter struct {
	mu     sync.Mutex
	out    countWriter
	gz     *gzip.Writer
	bw     *bufio.Writer
	snap   uint32
	err    error // sticky: the stream is broken
	closed bool
	hdr    [8]byte
	epb    [20]byte // an enhanced packet block's fixed fields
	pad    [4]byte
}

// countWriter counts the bytes handed to w.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// epbOverhead is an Enhanced Packet Block without its packet data.
const epbOverhead = 12 + 20

// NewPcapngWriter writes the start of a version 2 bundle to w: the
// Section Header Block, the Interface Description Block of the capture
// and h in an rdmatop header block (Format and Version are set here), and
// flushes them.
func NewPcapngWriter(w io.Writer, h Header, opt PcapngOptions) (*PcapngWriter, error) {
	h.Format, h.Version = Format, Version2
	if h.Host.ByteOrder == "" {
		h.Host.ByteOrder = nlmsg.NativeName()
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("bundle: header: %w", err)
	}
	if opt.LinkType == layers.LinkTypeNull {
		opt.LinkType = layers.LinkTypeEthernet
	}
	if opt.SnapLen == 0 {
		opt.SnapLen = DefaultSnapLen
	}
	if int64(opt.SnapLen) > int64(maxBlock-epbOverhead-3) {
		return nil, fmt.Errorf("bundle: snap length %d: packets that long would not fit the %d-byte block limit", opt.SnapLen, maxBlock)
	}
	if len(opt.Iface) > 0xffff {
		return nil, fmt.Errorf("bundle: interface name of %d bytes is too long for a pcapng option", len(opt.Iface))
	}
	pw := &PcapngWriter{snap: opt.SnapLen, out: countWriter{w: w}}
	var dst io.Writer = &pw.out
	if opt.Gzip {
		pw.gz = gzip.NewWriter(&pw.out)
		dst = pw.gz
	}
	pw.bw = bufio.NewWriterSize(dst, 64<<10)

	le := binary.LittleEndian
	shb := make([]byte, 16)
	le.PutUint32(shb[0:], byteOrderMagic)
	le.PutUint16(shb[4:], 1) // major
	le.PutUint16(shb[6:], 0) // minor
	le.PutUint64(shb[8:], math.MaxUint64)
	pw.block(blockSHB, shb)
	idb := make([]byte, 8, 64+len(opt.Iface))
	le.PutUint16(idb[0:], uint16(opt.LinkType))
	le.PutUint32(idb[4:], opt.SnapLen)
	if opt.Iface != "" {
		idb = appendOption(idb, optIfName, []byte(opt.Iface))
	}
	idb = appendOption(idb, optTsResol, []byte{9}) // nanoseconds
	idb = appendOption(idb, optEnd, nil)
	pw.block(blockIDB, idb)
	// The header comes after the interface: editcap and mergecap 4.0
	// refuse ("can't be written as a pcapng file") a file whose custom
	// block comes before the first interface.
	if err := pw.custom(KindHeader, hj); err != nil {
		return nil, err
	}
	if err := pw.flush(); err != nil {
		return nil, err
	}
	return pw, nil
}

// appendOption appends one pcapng option, padded to 32 bits.
func appendOption(b []byte, code uint16, val []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, code)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(val)))
	b = append(b, val...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// block writes one block whose body is the concatenation of parts,
// padded to 32 bits. The caller holds mu (or owns the writer alone).
func (w *PcapngWriter) block(typ uint32, parts ...[]byte) error {
	if w.err != nil {
		return w.err
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	pad := (4 - n%4) % 4
	total := 12 + n + pad
	if total > maxBlock {
		return fmt.Errorf("bundle: %w: a %d-byte block, over the %d-byte limit; not written", ErrBlockTooLarge, total, maxBlock)
	}
	le := binary.LittleEndian
	le.PutUint32(w.hdr[0:], typ)
	le.PutUint32(w.hdr[4:], uint32(total))
	w.bw.Write(w.hdr[:8])
	for _, p := range parts {
		w.bw.Write(p)
	}
	w.bw.Write(w.pad[:pad])
	le.PutUint32(w.hdr[0:], uint32(total))
	if _, err := w.bw.Write(w.hdr[:4]); err != nil {
		w.err = fmt.Errorf("bundle: writing: %w", err)
	}
	return w.err
}

// custom writes an rdmatop custom block of the given kind around payload.
func (w *PcapngWriter) custom(kind byte, payload []byte) error {
	var head [4 + len(Magic) + 1]byte
	binary.LittleEndian.PutUint32(head[0:], PEN)
	copy(head[4:], Magic)
	head[len(head)-1] = kind
	return w.block(blockCustom, head[:], payload)
}

// flush pushes buffered blocks through gzip to the underlying writer.
func (w *PcapngWriter) flush() error {
	if w.err != nil {
		return w.err
	}
	err := w.bw.Flush()
	if err == nil && w.gz != nil {
		err = w.gz.Flush()
	}
	if err != nil {
		w.err = fmt.Errorf("bundle: writing: %w", err)
	}
	return w.err
}

var (
	errClosed   = errors.New("bundle: write after Close")
	epoch       = time.Unix(0, 0)
	lastNanoSec = time.Unix(0, math.MaxInt64)
)

// WritePacket appends one captured packet (an Enhanced Packet Block on
// the bundle's one interface; ci.InterfaceIndex is ignored). The packet
// is buffered until the next WriteTick, Flush or Close. Data longer than
// the snap length is cut to it; the original length is the larger of
// ci.Length and len(data). Timestamps before 1970 or after 2262 cannot
// be stored in nanoseconds and are refused.
func (w *PcapngWriter) WritePacket(ci gopacket.CaptureInfo, data []byte) error {
	if ci.Timestamp.Before(epoch) || ci.Timestamp.After(lastNanoSec) {
		return fmt.Errorf("bundle: packet timestamp %s is outside 1970..2262", ci.Timestamp.Format(time.RFC3339Nano))
	}
	orig := max(ci.Length, len(data))
	if orig > math.MaxUint32 {
		return fmt.Errorf("bundle: %w: packet of %d bytes", ErrBlockTooLarge, orig)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errClosed
	}
	if len(data) > int(w.snap) {
		data = data[:w.snap]
	}
	ts := uint64(ci.Timestamp.UnixNano())
	h := w.epb[:]
	le := binary.LittleEndian
	le.PutUint32(h[0:], 0) // interface 0
	le.PutUint32(h[4:], uint32(ts>>32))
	le.PutUint32(h[8:], uint32(ts))
	le.PutUint32(h[12:], uint32(len(data)))
	le.PutUint32(h[16:], uint32(orig))
	return w.block(blockEPB, h, data)
}

// WriteTick appends one tick and flushes it, with every packet written
// before it, to the underlying writer. A tick whose JSON would need a
// block over MaxBlockLen is refused (ErrBlockTooLarge) and nothing is
// written; the writer stays usable.
func (w *PcapngWriter) WriteTick(t *Tick) error {
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("bundle: tick: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errClosed
	}
	if err := w.custom(KindTick, b); err != nil {
		return err
	}
	return w.flush()
}

// Flush pushes every packet and tick written so far to the underlying
// writer, as WriteTick does.
func (w *PcapngWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errClosed
	}
	return w.flush()
}

// Size is the number of bytes handed to the underlying writer so far
// (compressed bytes with Gzip). Packets written since the last WriteTick
// or Flush may still be buffered and are not counted yet.
func (w *PcapngWriter) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.n
}

// Close flushes what is buffered and ends the gzip stream; it does not
// close the underlying writer. Calling it again does nothing.
func (w *PcapngWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	w.closed = true
	if err := w.flush(); err != nil {
		return err
	}
	if w.gz != nil {
		if err := w.gz.Close(); err != nil {
			w.err = fmt.Errorf("bundle: writing: %w", err)
		}
	}
	return w.err
}
