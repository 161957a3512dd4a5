package capture

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Predecoder decodes frames ahead of their analysis, on the goroutine that
// reads them: a replay then reads and decodes (the ICRC is most of the
// decoding) on one core while the analysis tracks flows on another. It
// decodes as its analyzer would. Not safe for concurrent use; it shares
// nothing with its analyzer.
type Predecoder struct {
	decoders decoders
}

// Predecoded is one frame decoded by a Predecoder, for
// Analyzer.PacketDecoded.
type Predecoded struct {
	d        Decoded
	known    bool // a decoder exists for the frame's link type
	verified bool // its ICRC was checked (if it had one)
	roce     bool
	err      error
	link     layers.LinkType
}

// Predecoder returns a decoder for frames a to be analysed with
// PacketDecoded, or nil when a's decoding depends on its state: an
// analyzer that samples the ICRC chooses packet by packet.
func (a *Analyzer) Predecoder() *Predecoder {
	if a.icrcEvery > 1 || a.icrcSampled {
		return nil
	}
	return &Predecoder{decoders: decoders{verify: !a.cfg.icrcOff()}}
}

// Decode decodes one frame into out.
func (p *Predecoder) Decode(data []byte, ci gopacket.CaptureInfo, link layers.LinkType, out *Predecoded) {
	out.decode(p.decoders.get(link), data, max(ci.Length, len(data)), link)
}

// decode decodes data with dec (nil: a link type no decoder reads).
func (out *Predecoded) decode(dec *Decoder, data []byte, wire int, link layers.LinkType) {
	out.link, out.known = link, dec != nil
	if dec == nil {
		out.roce, out.err = false, nil
		return
	}
	out.verified = dec.VerifyICRC
	out.roce, out.err = dec.Decode(data, wire, &out.d)
}
