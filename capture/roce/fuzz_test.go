package roce

import (
	"bytes"
	"errors"
	"math/rand"
	"path/filepath"
	"reflect"
	"testing"
)

// fuzzSeeds returns transport parts (BTH to ICRC) of real frames, one per
// distinct opcode and length class found in the testdata captures, and of
// one random packet per defined opcode.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var seeds [][]byte
	seen := map[[2]int]bool{}
	for _, file := range []string{"oferby-proxy_roce.pcap", "pcapplusplus-pr1603_softroce-rdma-read-req.pcap",
		"rdma-ib-tutorial_pingpong_ud.pcap", "rdma-ib-tutorial_pingpong_uc.pcap", "rdma-ib-tutorial_rdma_atomic_bw.pcap",
		"scapy-roce-uts_cnp-connectx4lx.pcap", "rdma-ib-tutorial_rdma_read_bw.pcap", "rdma-ib-tutorial_rdma_cm.pcap",
		"rdma-ib-tutorial_nccl_tree2_node2.pcap", "../rxe/faults/rnr-recover/capture.pcap",
		"../rxe/faults/access/capture.pcap"} {
		_, frames := readCapture(tb, filepath.Join(pcapDir, file))
		for _, f := range frames {
			parts, ok := splitV2(f.data)
			if !ok || len(parts.ib) == 0 {
				continue
			}
			key := [2]int{int(parts.ib[0]), min(len(parts.ib), 100) / 50}
			if seen[key] {
				continue
			}
			seen[key] = true
			seeds = append(seeds, parts.ib)
		}
	}
	r := rand.New(rand.NewSource(99))
	for _, op := range validOpcodes() {
		p := randomPacket(r, op, r.Intn(64), uint8(r.Intn(4)))
		b := make([]byte, p.Len())
		p.Encode(b)
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzPacketDecode feeds arbitrary bytes and stated lengths to Decode. It
// must not panic; when it succeeds the result must be self-consistent, and
// encoding the decoded packet and decoding that again must give the same
// headers and payload.
func FuzzPacketDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, len(s))     // complete
		f.Add(s, len(s)+100) // cut by the snap length
		f.Add(s, -1)         // length unknown
		f.Add(s, len(s)-1)   // trailing byte (Ethernet padding)
		f.Add(s[:len(s)/2], len(s))
	}
	f.Fuzz(func(t *testing.T, data []byte, wireLen int) {
		var p Packet
		err := p.Decode(data, wireLen)
		if err != nil {
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTooShort) && !errors.Is(err, ErrPadding) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		wire := wireLen
		if wire < 0 {
			wire = len(data)
		}
		op := p.BTH.Opcode
		if p.Headers != op.Headers() || p.HeaderLen != BTHLen+ExtLen(op.Headers()) {
			t.Fatalf("headers %#x HeaderLen %d for %s", p.Headers, p.HeaderLen, op)
		}
		if p.PayloadLen < 0 || p.HeaderLen+p.PayloadLen+int(p.BTH.PadCount)+ICRCLen != wire {
			t.Fatalf("lengths: header %d payload %d pad %d, wire %d", p.HeaderLen, p.PayloadLen, p.BTH.PadCount, wire)
		}
		captured := min(len(data), wire)
		if p.Truncated != (captured < wire) || p.HasICRC == p.Truncated {
			t.Fatalf("Truncated %v HasICRC %v with %d of %d bytes", p.Truncated, p.HasICRC, captured, wire)
		}
		if !bytes.Equal(p.Payload, data[p.HeaderLen:min(captured, p.HeaderLen+p.PayloadLen)]) {
			t.Fatalf("payload is not the bytes after the headers")
		}
		if !bytes.Equal(p.Contents, data[:min(captured, wire-ICRCLen)]) {
			t.Fatalf("Contents %d bytes", len(p.Contents))
		}

		// Re-encode what was decoded and decode it again.
		b := make([]byte, p.Len())
		p.Encode(b)
		var q Packet
		if err := q.Decode(b, len(b)); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !reflect.DeepEqual(headerView(&q, q.Headers), headerView(&p, p.Headers)) || q.Headers != p.Headers {
			t.Fatalf("re-decoded headers differ:\n%+v\n%+v", headerView(&q, q.Headers), headerView(&p, p.Headers))
		}
		if !bytes.Equal(q.Payload, p.Payload) {
			t.Fatalf("re-decoded payload differs")
		}
		if !p.Truncated && q.PayloadLen != p.PayloadLen {
			t.Fatalf("re-decoded PayloadLen %d, was %d", q.PayloadLen, p.PayloadLen)
		}
		// The encoded headers are the decoded bytes, except reserved fields
		// (RDETH/XRCETH byte 0, DETH byte 4, the CNP's 16 bytes) that Encode zeroes.
		if ok := headersMatchExceptReserved(data[:p.HeaderLen], b[:p.HeaderLen], p.Headers); !ok {
			t.Fatalf("re-encoded headers differ:\n% x\n% x", data[:p.HeaderLen], b[:p.HeaderLen])
		}
	})
}

// headersMatchExceptReserved compares two header byte strings, skipping the
// reserved bytes Encode writes as zero.
func headersMatchExceptReserved(a, b []byte, flags uint16) bool {
	skip := map[int]bool{}
	off := BTHLen
	for _, e := range extOrder {
		if flags&e.flag == 0 {
			continue
		}
		switch e.flag {
		case HasRDETH, HasXRCETH:
			skip[off] = true
		case HasDETH:
			skip[off+4] = true
		}
		off += e.len
	}
	if flags&hasCNPResvd != 0 {
		for i := range CNPReservedLen {
			skip[off+i] = true
		}
	}
	for i := range a {
		if !skip[i] && a[i] != b[i] {
			return false
		}
	}
	return true
}
