package bundle

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// ErrNotBundle is returned for input that is not an rdmatop bundle.
var ErrNotBundle = errors.New("not an rdmatop bundle")

// Record is one entry of a bundle, in file order: exactly one of Tick and
// Packet is set.
type Record struct {
	Tick   *Tick
	Packet *Packet
}

// Packet is one captured packet of a version 2 bundle. Data is the
// record's own copy: it stays valid after later reads.
type Packet struct {
	CI   gopacket.CaptureInfo
	Data []byte
	Link layers.LinkType
}

// Reader reads a bundle of either version.
type Reader struct {
	// Header is the bundle's header; Header.Version says which version
	// the file is.
	Header Header
	// Truncated is set when the last record was cut (a recorder killed
	// while writing, or the file cut short): reading ended there with
	// io.EOF. CutAt says where, as a person reads it.
	Truncated bool
	CutAt     string

	// version 1
	s    *bufio.Scanner
	line int
	// version 2
	ng *ngReader
}

// Open reads the header of a bundle from r: version 1 (JSON Lines) or
// version 2 (pcapng), either of them plain or gzip-compressed (detected by
// magic). Input that is not a bundle (a pcap or pcapng capture, anything
// else) is refused with an error wrapping ErrNotBundle; a bundle of a
// version this package does not know, with an error naming the version.
func Open(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	gz := false
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("bundle: bad gzip stream: %w", err)
		}
		br = bufio.NewReaderSize(zr, 1<<16)
		gz = true
	}
	head, _ := br.Peek(4)
	switch pcapfile.Sniff(head) {
	case pcapfile.FormatPcapNG:
		return openPcapng(br, gz)
	case pcapfile.FormatPcap:
		return nil, fmt.Errorf("%w: a pcap capture (replay it as a capture)", ErrNotBundle)
	}
	return openJSONLines(br)
}

// SnapLen is the snap length of the recording's capture (a version 2
// bundle's first interface, as read so far): the length its packets were
// cut to. 0 when it is not known (version 1, no interface read yet) or the
// interface sets none (pcapng: no limit).
func (r *Reader) SnapLen() uint32 {
	if r.ng == nil || len(r.ng.ifaces) == 0 {
		return 0
	}
	return r.ng.ifaces[0].snap
}

// NewReader is Open; it reads both versions. Next returns the ticks only.
func NewReader(r io.Reader) (*Reader, error) { return Open(r) }

// ReadRecord returns the next record in file order, or io.EOF after the
// last. A version 1 bundle yields ticks only. A cut last record (a
// recording killed mid-write) ends the bundle with Truncated set; damage
// elsewhere is an error naming where it is: the line (version 1), or the
// block and its byte offset (version 2, a *BlockError).
func (r *Reader) ReadRecord() (Record, error) {
	if r.ng != nil {
		rec, err := r.ng.next()
		if errors.Is(err, errCut) {
			r.Truncated = true
			r.CutAt = fmt.Sprintf("block %d at byte offset %d", r.ng.cur.n, r.ng.cur.off)
			if r.ng.gz {
				r.CutAt += " of the decompressed stream"
			}
			return Record{}, io.EOF
		}
		return rec, err
	}
	t, err := r.nextLine()
	if err != nil {
		return Record{}, err
	}
	return Record{Tick: t}, nil
}

// Next returns the next tick, skipping packets, or io.EOF after the last.
// A cut last record ends the bundle with Truncated set; damage elsewhere
// is an error naming where it is.
func (r *Reader) Next() (*Tick, error) {
	for {
		rec, err := r.ReadRecord()
		if err != nil {
			return nil, err
		}
		if rec.Tick != nil {
			return rec.Tick, nil
		}
	}
}

// maxLine bounds a version 1 line, as MaxBlockLen bounds a version 2 block.
const maxLine = MaxBlockLen

func openJSONLines(br *bufio.Reader) (*Reader, error) {
	s := bufio.NewScanner(br)
	s.Buffer(make([]byte, 0, 1<<16), maxLine)
	rd := &Reader{s: s}
	if !s.Scan() {
		if err := s.Err(); err != nil {
			return nil, fmt.Errorf("%w: first line: %v", ErrNotBundle, err)
		}
		return nil, fmt.Errorf("%w: empty input", ErrNotBundle)
	}
	rd.line = 1
	if err := json.Unmarshal(s.Bytes(), &rd.Header); err != nil || rd.Header.Format != Format {
		return nil, fmt.Errorf("%w: first line is not a bundle header", ErrNotBundle)
	}
	switch rd.Header.Version {
	case Version1:
	case Version2:
		return nil, fmt.Errorf("bundle: a JSON Lines header claims version 2, but version 2 bundles are pcapng files (damaged or hand-made file?)")
	default:
		return nil, versionError(rd.Header.Version)
	}
	return rd, nil
}

func versionError(v int) error {
	return fmt.Errorf("bundle version %d: this rdmatop reads versions %d and %d (a newer rdmatop wrote it?)", v, Version1, Version2)
}

// nextLine reads a version 1 tick line.
func (r *Reader) nextLine() (*Tick, error) {
	if !r.s.Scan() {
		if err := r.s.Err(); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("bundle line %d: %w", r.line+1, err)
		}
		return nil, io.EOF
	}
	r.line++
	var t Tick
	if err := json.Unmarshal(r.s.Bytes(), &t); err != nil {
		// Only the last line may be cut short.
		line := r.line
		if !r.s.Scan() {
			r.Truncated, r.CutAt = true, fmt.Sprintf("line %d", line)
			return nil, io.EOF
		}
		return nil, fmt.Errorf("bundle line %d: %w", line, err)
	}
	return &t, nil
}

// SniffLen is how many bytes of a file's start Sniff wants: enough for
// either version's header signature, even behind gzip or the larger
// section header and interface blocks of a file rewritten by editcap.
// A version 2 file written by rdmatop shows its signature within its
// first 100 bytes or so (more with a long interface name): 64 bytes are
// not enough.
const SniffLen = 4096

// Sniff reports whether head, the first bytes of a file (SniffLen of them,
// or the whole file when shorter), is the start of a bundle, and which
// container version it is: 1 (JSON Lines) or 2 (pcapng). head may be
// gzip-compressed: Sniff decompresses as much of it as it can. Sniff does
// not check the version written in the header: Open does, and refuses
// versions it does not know. A pcap or pcapng capture without an rdmatop
// header is not a bundle.
func Sniff(head []byte) (version int, ok bool) {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return 0, false
		}
		buf := make([]byte, SniffLen)
		n, _ := io.ReadFull(zr, buf)
		head = buf[:n]
	}
	if bytes.HasPrefix(bytes.TrimLeft(head, " \t"), []byte(`{"format":"`+Format+`"`)) {
		return Version1, true
	}
	if sniffPcapng(head) {
		return Version2, true
	}
	return 0, false
}

// IsBundle reports whether head (the first bytes of a file, plain or
// gzip-compressed) starts like a bundle of either version; see Sniff.
func IsBundle(head []byte) bool {
	_, ok := Sniff(head)
	return ok
}

// sniffPcapng walks the pcapng blocks in head: a bundle is a section
// whose first rdmatop block, before any packet, is the header.
func sniffPcapng(head []byte) bool {
	if len(head) < 12 || binary.LittleEndian.Uint32(head) != blockSHB {
		return false
	}
	var order binary.ByteOrder = binary.LittleEndian
	switch {
	case binary.LittleEndian.Uint32(head[8:]) == byteOrderMagic:
	case binary.BigEndian.Uint32(head[8:]) == byteOrderMagic:
		order = binary.BigEndian
	default:
		return false
	}
	for off := 0; off+8 <= len(head); {
		typ, n := order.Uint32(head[off:]), order.Uint32(head[off+4:])
		if n < 12 || n%4 != 0 {
			return false
		}
		switch typ {
		case blockSHB:
			if off != 0 {
				return false
			}
		case blockEPB, blockSPB, blockPB:
			return false
		case blockCustom, blockCustomNoCopy:
			if kind, ok := rdmatopKind(head[off+8:min(len(head), off+int(n))], order); ok {
				return kind == KindHeader
			}
		}
		off += int(n)
	}
	return false
}

// rdmatopKind returns the kind byte of an rdmatop custom block from the
// block's body (its leading bytes are enough), checking PEN and Magic.
func rdmatopKind(body []byte, order binary.ByteOrder) (byte, bool) {
	if len(body) < customHead || order.Uint32(body) != PEN || string(body[4:4+len(Magic)]) != Magic {
		return 0, false
	}
	return body[customHead-1], true
}

// customHead is the start of an rdmatop custom block's body: PEN, Magic,
// kind; the JSON follows.
const customHead = 4 + len(Magic) + 1
