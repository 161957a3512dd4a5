package roce

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gopacket/gopacket"
)

// Serializing the headers one by one, in wire order, gives the bytes
// Packet.Encode gives.
func TestHeaderSerializeToMatchesEncode(t *testing.T) {
	p := Packet{
		BTH:   BTH{Opcode: 0x4b, PKey: 0xffff, DestQP: 0x123456, AckReq: true, PSN: 0xabcdef}, // RD RDMA_WRITE_ONLY_WITH_IMMEDIATE
		RDETH: RDETH{EEContext: 0x00aabb}, DETH: DETH{QKey: 0x11111111, SrcQP: 0x22},
		RETH: RETH{VA: 0x1122334455667788, RKey: 0x99, DMALength: 4}, ImmDt: ImmDt{Data: 0xdeadbeef},
		Payload: []byte{1, 2, 3, 4},
	}
	want := make([]byte, p.Len())
	p.Encode(want)
	buf := gopacket.NewSerializeBuffer()
	layers := []interface {
		SerializeTo(gopacket.SerializeBuffer, gopacket.SerializeOptions) error
	}{&p.BTH, &p.RDETH, &p.DETH, &p.RETH, &p.ImmDt}
	tail, _ := buf.AppendBytes(len(p.Payload) + ICRCLen)
	copy(tail, p.Payload)
	for i := len(layers) - 1; i >= 0; i-- {
		if err := layers[i].SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("header by header:\n% x\nEncode:\n% x", buf.Bytes(), want)
	}
	// And every other header round-trips through its own SerializeTo.
	type header interface {
		SerializeTo(gopacket.SerializeBuffer, gopacket.SerializeOptions) error
		Decode([]byte)
	}
	for _, h := range []header{&XRCETH{XRCSRQ: 7}, &FETH{Bits: 0x11}, &AtomicETH{VA: 1, RKey: 2, SwapAdd: 3, Compare: 4},
		&AETH{Syndrome: 0x60, MSN: 9}, &AtomicAckETH{OrigRemoteData: 5}, &IETH{RKey: 6}} {
		b := gopacket.NewSerializeBuffer()
		if err := h.SerializeTo(b, gopacket.SerializeOptions{}); err != nil {
			t.Fatal(err)
		}
		back := reflect.New(reflect.TypeOf(h).Elem()).Interface().(header)
		back.Decode(b.Bytes())
		if !reflect.DeepEqual(back, h) {
			t.Errorf("%T: serialized % x, decoded %+v", h, b.Bytes(), back)
		}
	}
}
