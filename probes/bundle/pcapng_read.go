package bundle

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// BlockError reports a damaged block of a version 2 bundle: which block,
// where it starts, and what is wrong with it.
type BlockError struct {
	Block  int    // 1-based number of the block in the file
	Offset int64  // byte offset of the block (of the decompressed stream when Gzip)
	Type   uint32 // pcapng block type, 0 when its header could not be read
	Kind   byte   // KindHeader or KindTick for rdmatop custom blocks, else 0
	Gzip   bool   // the file is gzip-compressed
	Err    error
}

func (e *BlockError) Error() string {
	where := fmt.Sprintf("byte offset %d", e.Offset)
	if e.Gzip {
		where += " of the decompressed stream"
	}
	return fmt.Sprintf("bundle: block %d (%s) at %s: %v", e.Block, blockName(e.Type, e.Kind), where, e.Err)
}

func (e *BlockError) Unwrap() error { return e.Err }

func blockName(typ uint32, kind byte) string {
	switch typ {
	case blockSHB:
		return "section header block"
	case blockIDB:
		return "interface description block"
	case blockPB:
		return "obsolete packet block"
	case blockSPB:
		return "simple packet block"
	case blockNRB:
		return "name resolution block"
	case blockISB:
		return "interface statistics block"
	case blockEPB:
		return "enhanced packet block"
	case blockCustom, blockCustomNoCopy:
		switch kind {
		case KindHeader:
			return "rdmatop header custom block"
		case KindTick:
			return "rdmatop tick custom block"
		}
		return "custom block"
	}
	return fmt.Sprintf("block type 0x%08x", typ)
}

// errCut means the stream ended inside a block.
var errCut = errors.New("the file ends inside a block")

func isEOF(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }

// ngIface is what a reader keeps of an Interface Description Block.
type ngIface struct {
	link     layers.LinkType
	snap     uint32 // SnapLen: 0 when the interface sets none (no limit)
	tsresol  uint8  // if_tsresol: 10^-n, or 2^-n with the high bit set
	tsoffset int64  // if_tsoffset, seconds
}

// ngReader reads the blocks of a version 2 bundle.
type ngReader struct {
	r      *bufio.Reader
	gz     bool
	off    int64 // byte offset of the next block
	blocks int   // blocks read so far
	order  binary.ByteOrder
	ifaces []ngIface
	err    error // sticky
	cur    struct {
		typ  uint32
		off  int64
		n    int
		kind byte
	}
}

// fail returns a BlockError for the current block.
func (n *ngReader) fail(format string, args ...any) error {
	return &BlockError{Block: n.cur.n, Offset: n.cur.off, Type: n.cur.typ, Kind: n.cur.kind, Gzip: n.gz, Err: fmt.Errorf(format, args...)}
}

// readErr classifies a read error inside the current block.
func (n *ngReader) readErr(err error) error {
	if isEOF(err) {
		return errCut
	}
	return n.fail("reading: %w", err)
}

// readN reads size bytes. Large sizes are read into a buffer that grows
// as the bytes arrive, so a damaged length field costs memory only for
// the bytes that are really there.
func (n *ngReader) readN(size int) ([]byte, error) {
	if size <= 256<<10 {
		b := make([]byte, size)
		_, err := io.ReadFull(n.r, b)
		return b, err
	}
	var buf bytes.Buffer
	_, err := io.CopyN(&buf, n.r, int64(size))
	return buf.Bytes(), err
}

// readBlock reads the next block: its type and body (without the length
// fields). It returns io.EOF at a clean end between blocks, errCut when
// the stream ends inside a block, and a BlockError for a damaged frame.
func (n *ngReader) readBlock() (uint32, []byte, error) {
	n.cur.off, n.cur.n, n.cur.typ, n.cur.kind = n.off, n.blocks+1, 0, 0
	var h [12]byte
	if k, err := io.ReadFull(n.r, h[:8]); err != nil {
		if k == 0 && isEOF(err) {
			return 0, nil, io.EOF
		}
		return 0, nil, n.readErr(err)
	}
	var prefix []byte                        // body bytes read with the header
	typ := binary.LittleEndian.Uint32(h[:4]) // the SHB type reads the same in both orders
	minLen := uint32(12)
	if typ == blockSHB {
		n.cur.typ = typ
		if _, err := io.ReadFull(n.r, h[8:12]); err != nil {
			return 0, nil, n.readErr(err)
		}
		switch uint32(byteOrderMagic) {
		case binary.LittleEndian.Uint32(h[8:]):
			n.order = binary.LittleEndian
		case binary.BigEndian.Uint32(h[8:]):
			n.order = binary.BigEndian
		default:
			return 0, nil, n.fail("byte-order magic 0x%08x is not 0x1a2b3c4d in either byte order", binary.LittleEndian.Uint32(h[8:]))
		}
		prefix = h[8:12]
		minLen = 28
	} else {
		if n.order == nil {
			return 0, nil, n.fail("the file does not start with a section header block")
		}
		typ = n.order.Uint32(h[:4])
		n.cur.typ = typ
	}
	total := n.order.Uint32(h[4:8])
	switch {
	case total < minLen:
		return 0, nil, n.fail("block length %d is below the minimum of %d", total, minLen)
	case total%4 != 0:
		return 0, nil, n.fail("block length %d is not a multiple of 4", total)
	case int64(total) > int64(maxBlock):
		return 0, nil, n.fail("block length %d exceeds the %d-byte limit (damaged length field?)", total, maxBlock)
	}
	rest, err := n.readN(int(total) - 8 - len(prefix))
	if err != nil {
		return 0, nil, n.readErr(err)
	}
	if trail := n.order.Uint32(rest[len(rest)-4:]); trail != total {
		return 0, nil, n.fail("trailing block length %d does not match the leading %d", trail, total)
	}
	body := rest[:len(rest)-4]
	if prefix != nil {
		body = append(append(make([]byte, 0, len(prefix)+len(body)), prefix...), body...)
	}
	n.off += int64(total)
	n.blocks++
	return typ, body, nil
}

// next returns the next packet or tick; after an error, the same error.
func (n *ngReader) next() (Record, error) {
	if n.err != nil {
		return Record{}, n.err
	}
	rec, err := n.nextRecord()
	if err != nil && err != io.EOF && !errors.Is(err, errCut) {
		n.err = err
	}
	return rec, err
}

func (n *ngReader) nextRecord() (Record, error) {
	for {
		typ, body, err := n.readBlock()
		if err != nil {
			return Record{}, err
		}
		rec, hdr, err := n.handle(typ, body)
		if err != nil {
			return Record{}, err
		}
		if hdr != nil {
			return Record{}, n.fail("a second bundle header (concatenated bundles are not supported)")
		}
		if rec.Tick != nil || rec.Packet != nil {
			return rec, nil
		}
	}
}

// openPcapng reads the blocks before the bundle header and the header.
func openPcapng(br *bufio.Reader, gz bool) (*Reader, error) {
	n := &ngReader{r: br, gz: gz}
	for {
		typ, body, err := n.readBlock()
		switch {
		case err == io.EOF:
			return nil, fmt.Errorf("%w: a pcapng file without an rdmatop bundle header (a plain capture: replay it as one)", ErrNotBundle)
		case errors.Is(err, errCut):
			where := fmt.Sprintf("byte offset %d", n.cur.off)
			if gz {
				where += " of the decompressed stream"
			}
			return nil, fmt.Errorf("bundle: the file ends inside block %d at %s, before the bundle header was read (cut file): %w", n.cur.n, where, io.ErrUnexpectedEOF)
		case err != nil:
			return nil, err
		}
		switch typ {
		case blockEPB, blockSPB, blockPB:
			return nil, fmt.Errorf("%w: a pcapng capture (a packet at byte offset %d comes before any rdmatop bundle header)", ErrNotBundle, n.cur.off)
		}
		rec, hdr, err := n.handle(typ, body)
		if err != nil {
			return nil, err
		}
		if rec.Tick != nil {
			return nil, n.fail("a tick before the bundle header")
		}
		if hdr != nil {
			return &Reader{Header: *hdr, ng: n}, nil
		}
	}
}

// handle interprets one block: a packet or a tick as a Record, the
// bundle header as a Header, nothing for blocks that only set state or
// that rdmatop does not use (they are skipped).
func (n *ngReader) handle(typ uint32, body []byte) (Record, *Header, error) {
	switch typ {
	case blockSHB:
		if major := n.order.Uint16(body[4:]); major != 1 {
			return Record{}, nil, n.fail("pcapng major version %d (only version 1 exists)", major)
		}
		n.ifaces = n.ifaces[:0] // a new section declares its own interfaces
	case blockIDB:
		return Record{}, nil, n.iface(body)
	case blockEPB:
		return n.packet(body)
	case blockPB, blockSPB:
		return Record{}, nil, n.fail("rdmatop reads packets from enhanced packet blocks only")
	case blockCustom, blockCustomNoCopy:
		return n.custom(body)
	}
	return Record{}, nil, nil
}

// iface reads an interface description block.
func (n *ngReader) iface(body []byte) error {
	o := n.order
	if len(body) < 8 {
		return n.fail("body of %d bytes, shorter than the 8 fixed bytes", len(body))
	}
	ifc := ngIface{link: layers.LinkType(o.Uint16(body)), snap: o.Uint32(body[4:]), tsresol: 6}
	err := parseOptions(body[8:], o, func(code uint16, val []byte) error {
		switch code {
		case optTsResol:
			if len(val) != 1 {
				return fmt.Errorf("if_tsresol option of %d bytes, want 1", len(val))
			}
			ifc.tsresol = val[0]
		case optTsOffset:
			if len(val) != 8 {
				return fmt.Errorf("if_tsoffset option of %d bytes, want 8", len(val))
			}
			ifc.tsoffset = int64(o.Uint64(val))
		}
		return nil
	})
	if err != nil {
		return n.fail("%v", err)
	}
	n.ifaces = append(n.ifaces, ifc)
	return nil
}

// packet reads an enhanced packet block.
func (n *ngReader) packet(body []byte) (Record, *Header, error) {
	o := n.order
	if len(body) < 20 {
		return Record{}, nil, n.fail("body of %d bytes, shorter than the 20 fixed bytes", len(body))
	}
	id := o.Uint32(body)
	if uint64(id) >= uint64(len(n.ifaces)) {
		return Record{}, nil, n.fail("packet on interface %d, but the section declares %d interface(s)", id, len(n.ifaces))
	}
	capLen, origLen := o.Uint32(body[12:]), o.Uint32(body[16:])
	if uint64(capLen) > uint64(len(body)-20) {
		return Record{}, nil, n.fail("captured length %d exceeds the %d bytes of data in the block", capLen, len(body)-20)
	}
	ifc := n.ifaces[id]
	ts := uint64(o.Uint32(body[4:]))<<32 | uint64(o.Uint32(body[8:]))
	data := body[20 : 20+capLen : 20+capLen]
	return Record{Packet: &Packet{
		CI: gopacket.CaptureInfo{Timestamp: ifc.time(ts), CaptureLength: int(capLen),
			Length: int(origLen), InterfaceIndex: int(id)},
		Data: data, Link: ifc.link,
	}}, nil, nil
}

// custom reads a custom block: rdmatop's header or tick, skipping other
// tools' blocks and kinds this version does not know.
func (n *ngReader) custom(body []byte) (Record, *Header, error) {
	kind, ok := rdmatopKind(body, n.order)
	if !ok {
		return Record{}, nil, nil // another tool's block
	}
	n.cur.kind = kind
	// The JSON is padded with NULs to 32 bits; JSON text holds none.
	js := bytes.TrimRight(body[customHead:], "\x00")
	switch kind {
	case KindHeader:
		var h Header
		if err := json.Unmarshal(js, &h); err != nil {
			return Record{}, nil, n.fail("header JSON: %v", err)
		}
		switch {
		case h.Format != Format:
			return Record{}, nil, n.fail("header names format %q, not %q", h.Format, Format)
		case h.Version == Version1:
			return Record{}, nil, n.fail("the header claims version 1, but version 1 bundles are JSON Lines (damaged or hand-made file?)")
		case h.Version != Version2:
			return Record{}, nil, versionError(h.Version)
		}
		return Record{}, &h, nil
	case KindTick:
		t := new(Tick)
		if err := json.Unmarshal(js, t); err != nil {
			return Record{}, nil, n.fail("tick JSON: %v", err)
		}
		return Record{Tick: t}, nil, nil
	}
	// Other kinds are skipped: a kind that must not be ignored comes
	// with a new version.
	return Record{}, nil, nil
}

// parseOptions calls fn for each option of a pcapng option list, up to
// opt_endofopt or the end of b.
func parseOptions(b []byte, o binary.ByteOrder, fn func(code uint16, val []byte) error) error {
	for len(b) >= 4 {
		code, l := o.Uint16(b), int(o.Uint16(b[2:]))
		b = b[4:]
		if code == optEnd {
			return nil
		}
		if l > len(b) {
			return fmt.Errorf("option %d claims %d bytes, %d left in the block", code, l, len(b))
		}
		if err := fn(code, b[:l]); err != nil {
			return err
		}
		b = b[min(len(b), l+(4-l%4)%4):]
	}
	return nil
}

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// time converts a timestamp in the interface's resolution.
func (ifc *ngIface) time(ts uint64) time.Time {
	var sec, nsec uint64
	if exp := uint(ifc.tsresol); exp&0x80 == 0 {
		switch {
		case exp <= 9:
			sec, nsec = ts/pow10[exp], ts%pow10[exp]*pow10[9-exp]
		case exp <= 19:
			sec, nsec = ts/pow10[exp], ts%pow10[exp]/pow10[exp-9]
		case exp-9 <= 19: // under a second whatever ts is
			nsec = ts / pow10[exp-9]
		}
	} else {
		exp &= 0x7f
		frac := ts
		if exp < 64 {
			sec, frac = ts>>exp, ts&(1<<exp-1)
		}
		hi, lo := bits.Mul64(frac, 1e9) // frac/2^exp seconds in ns: (frac*1e9)>>exp
		if exp < 64 {
			nsec = lo>>exp | hi<<(64-exp)
		} else {
			nsec = hi >> (exp - 64)
		}
	}
	return time.Unix(int64(sec)+ifc.tsoffset, int64(nsec)).UTC()
}
