package capture

import "github.com/gopacket/gopacket/layers"

// decoders holds one Decoder per link type, made on first use, and
// remembers the last one asked for: a capture has one link type (pcapng
// may have several interfaces), so the map is consulted only when the
// link type changes. Both the Analyzer and a Predecoder decode through
// one; a map lookup per packet was a hundredth of a replay's CPU.
type decoders struct {
	verify   bool // each decoder checks the ICRC
	m        map[layers.LinkType]*Decoder
	last     *Decoder // set, with lastLink, once m is made
	lastLink layers.LinkType
}

// get returns link's decoder, nil for a link type no decoder reads.
func (s *decoders) get(link layers.LinkType) *Decoder {
	if s.m != nil && link == s.lastLink {
		return s.last
	}
	d, ok := s.m[link]
	if !ok {
		d, _ = NewDecoder(link) // nil for an unsupported link type
		if d != nil {
			d.VerifyICRC = s.verify
		}
		if s.m == nil {
			s.m = map[layers.LinkType]*Decoder{}
		}
		s.m[link] = d
	}
	s.last, s.lastLink = d, link
	return d
}
