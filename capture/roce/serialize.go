package roce

import "github.com/gopacket/gopacket"

// SerializeTo methods let each header be written on its own with gopacket's
// serialization (prepended to the buffer, as gopacket layers do); Packet's
// SerializeTo writes them all in the order the opcode requires.

func prepend(b gopacket.SerializeBuffer, n int, encode func([]byte)) error {
	buf, err := b.PrependBytes(n)
	if err != nil {
		return err
	}
	encode(buf)
	return nil
}

// SerializeTo prepends the BTH.
func (h *BTH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, BTHLen, h.Encode)
}

// SerializeTo prepends the RDETH.
func (h *RDETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, RDETHLen, h.Encode)
}

// SerializeTo prepends the DETH.
func (h *DETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, DETHLen, h.Encode)
}

// SerializeTo prepends the XRCETH.
func (h *XRCETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, XRCETHLen, h.Encode)
}

// SerializeTo prepends the FETH.
func (h *FETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, FETHLen, h.Encode)
}

// SerializeTo prepends the RETH.
func (h *RETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, RETHLen, h.Encode)
}

// SerializeTo prepends the AtomicETH.
func (h *AtomicETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, AtomicETHLen, h.Encode)
}

// SerializeTo prepends the AETH.
func (h *AETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, AETHLen, h.Encode)
}

// SerializeTo prepends the AtomicAckETH.
func (h *AtomicAckETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, AtomicAckETHLen, h.Encode)
}

// SerializeTo prepends the ImmDt.
func (h *ImmDt) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, ImmDtLen, h.Encode)
}

// SerializeTo prepends the IETH.
func (h *IETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	return prepend(b, IETHLen, h.Encode)
}
