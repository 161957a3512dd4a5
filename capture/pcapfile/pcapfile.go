// Package pcapfile is a source of captured frames: a pcap or pcapng file,
// plain or gzip-compressed, read one record at a time in constant memory,
// with damage reported by record and byte offset. It knows nothing of
// RoCE; package capture analyses what it yields (capture.Source).
package pcapfile

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Format names a capture container.
type Format string

// Capture containers rdmatop reads.
const (
	FormatPcap   Format = "pcap"
	FormatPcapNG Format = "pcapng"
)

// Source reads a pcap or pcapng file, plain or gzip-compressed, one
// record at a time in constant memory.
type Source struct {
	Path       string
	Format     Format
	Compressed bool
	Snaplen    uint32

	f       *os.File
	pcap    *pcapgo.Reader
	ng      *pcapgo.NgReader
	link    layers.LinkType
	record  int   // records returned so far
	offset  int64 // pcap: byte offset of the next record (in the decompressed stream)
	ngLinks []layers.LinkType
}

// InputError reports damage in a capture file: which record, where.
type InputError struct {
	Path   string
	Record int   // 1-based record that could not be read
	Offset int64 // byte offset of that record, -1 when unknown (pcapng)
	Err    error
}

func (e *InputError) Error() string {
	where := fmt.Sprintf("record %d", e.Record)
	if e.Offset >= 0 {
		where += fmt.Sprintf(" at byte offset %d", e.Offset)
	}
	return fmt.Sprintf("%s: %s: %v", e.Path, where, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// ErrTruncated is wrapped when a file ends in the middle of a record.
var ErrTruncated = errors.New("file ends in the middle of a record (truncated capture?)")

// Open opens a capture file and reads its header.
func Open(path string) (*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	s, err := NewReader(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f = f
	return s, nil
}

// NewReader reads a capture from r; name is used in messages.
func NewReader(name string, r io.Reader) (*Source, error) {
	s := &Source{Path: name}
	if err := s.open(r); err != nil {
		return nil, err
	}
	return s, nil
}

const (
	magicPcapMicro   = 0xa1b2c3d4
	magicPcapNano    = 0xa1b23c4d
	magicPcapNGBlock = 0x0a0d0d0a
)

// Sniff names the container whose first bytes are head (at least four):
// pcap in either byte order, with microsecond or nanosecond times, or
// pcapng (its Section Header Block type reads the same in both orders);
// "" for anything else (gzip included: inflate first). The one place the
// magic numbers are known.
func Sniff(head []byte) Format {
	if len(head) < 4 {
		return ""
	}
	le := uint32(head[0]) | uint32(head[1])<<8 | uint32(head[2])<<16 | uint32(head[3])<<24
	be := uint32(head[3]) | uint32(head[2])<<8 | uint32(head[1])<<16 | uint32(head[0])<<24
	switch {
	case le == magicPcapMicro || le == magicPcapNano || be == magicPcapMicro || be == magicPcapNano:
		return FormatPcap
	case le == magicPcapNGBlock:
		return FormatPcapNG
	}
	return ""
}

func (s *Source) open(r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<20)
	head, err := br.Peek(4)
	if len(head) < 2 {
		if err == nil || err == io.EOF {
			return fmt.Errorf("%s: empty file: not a pcap or pcapng capture", s.Path)
		}
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	if head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%s: bad gzip stream: %w", s.Path, err)
		}
		s.Compressed = true
		br = bufio.NewReaderSize(gz, 1<<20)
		head, _ = br.Peek(4)
	}
	if len(head) < 4 {
		return fmt.Errorf("%s: only %d bytes: too short for a capture file header", s.Path, len(head))
	}
	switch s.Format = Sniff(head); s.Format {
	case FormatPcap:
		s.pcap, err = pcapgo.NewReader(br)
		if err != nil {
			return s.headerError(err)
		}
		s.Snaplen = s.pcap.Snaplen()
		s.link = s.pcap.LinkType()
		s.offset = 24
	case FormatPcapNG:
		s.ng, err = pcapgo.NewNgReader(br, pcapgo.NgReaderOptions{})
		if err != nil {
			return s.headerError(err)
		}
		s.link = s.ng.LinkType()
		s.offset = -1
		for i := range s.ng.NInterfaces() {
			ifc, _ := s.ng.Interface(i)
			s.ngLinks = append(s.ngLinks, ifc.LinkType)
			if i == 0 {
				s.Snaplen = ifc.SnapLength
			}
		}
	default:
		return fmt.Errorf("%s: not a pcap or pcapng capture: first bytes % x (pcap starts a1 b2 c3 d4 or d4 c3 b2 a1, pcapng 0a 0d 0d 0a)", s.Path, head)
	}
	return nil
}

func (s *Source) headerError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = fmt.Errorf("file header is cut short: %w", ErrTruncated)
	}
	return fmt.Errorf("%s: bad %s file header: %w", s.Path, s.Format, err)
}

// LinkType is the link type of the file (of its first interface for pcapng).
func (s *Source) LinkType() layers.LinkType { return s.link }

// Records returns the number of records read so far.
func (s *Source) Records() int { return s.record }

// ReadPacket returns the next record. At a clean end of file it returns
// io.EOF; damage returns an *InputError naming the record and offset.
func (s *Source) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	var data []byte
	var ci gopacket.CaptureInfo
	var err error
	link := s.link
	if s.pcap != nil {
		data, ci, err = s.pcap.ZeroCopyReadPacketData()
	} else {
		data, ci, err = s.ng.ZeroCopyReadPacketData()
		if err == nil && ci.InterfaceIndex >= 0 {
			// Interfaces can appear mid-file; ask again when needed.
			if ci.InterfaceIndex >= len(s.ngLinks) {
				s.ngLinks = s.ngLinks[:0]
				for i := range s.ng.NInterfaces() {
					ifc, _ := s.ng.Interface(i)
					s.ngLinks = append(s.ngLinks, ifc.LinkType)
				}
			}
			if ci.InterfaceIndex < len(s.ngLinks) {
				link = s.ngLinks[ci.InterfaceIndex]
			}
		}
	}
	if err != nil {
		if err == io.EOF {
			return nil, ci, link, io.EOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = ErrTruncated
		}
		return nil, ci, link, &InputError{Path: s.Path, Record: s.record + 1, Offset: s.offset, Err: err}
	}
	if s.pcap != nil && s.Snaplen > 0 && ci.CaptureLength > int(s.Snaplen) {
		// A record longer than the file allows: a corrupt record header,
		// or a writer that broke its own promise. Either way, stop here.
		return nil, ci, link, &InputError{Path: s.Path, Record: s.record + 1, Offset: s.offset,
			Err: fmt.Errorf("record length %d exceeds the file's snap length %d (corrupt record header?)", ci.CaptureLength, s.Snaplen)}
	}
	s.record++
	if s.offset >= 0 {
		s.offset += 16 + int64(ci.CaptureLength)
	}
	return data, ci, link, nil
}

// Close closes the file (a no-op for NewReader).
func (s *Source) Close() error {
	if s.f == nil {
		return nil
	}
	return s.f.Close()
}

// Progress returns how far into the file reading has got, in bytes of the
// file on disk (compressed bytes for a gzip file), and the file's size. It
// may be called from another goroutine while packets are read.
func (s *Source) Progress() (done, total int64) {
	if s.f == nil {
		return 0, 0
	}
	if st, err := s.f.Stat(); err == nil {
		total = st.Size()
	}
	done, _ = s.f.Seek(0, io.SeekCurrent)
	return done, total
}
