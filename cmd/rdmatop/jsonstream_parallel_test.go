package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// TestElemsOfSameBytes: encoding an array on several goroutines writes
// exactly what one elem call per element writes, at chunk boundaries,
// after elements already written, and for none.
func TestElemsOfSameBytes(t *testing.T) {
	flows := make([]capture.FlowSummary, 3*elemChunk+7)
	for i := range flows {
		flows[i] = capture.FlowSummary{ID: i + 1, Src: fmt.Sprintf("10.0.%d.%d", i/256, i%256), Dst: "10.1.0.1",
			DestQP: roce.QPN(i), Packets: uint64(i * 3), Troubled: i%7 == 0}
	}
	for _, n := range []int{0, 1, elemChunk - 1, elemChunk, elemChunk + 1, 2 * elemChunk, len(flows)} {
		for _, before := range []int{0, 2} {
			var one, many bytes.Buffer
			a, b := newJSONStream(&one), newJSONStream(&many)
			a.openArray("flows")
			b.openArray("flows")
			for i := range before {
				a.elem(&flows[i])
				b.elem(&flows[i])
			}
			for i := range n {
				a.elem(&flows[i])
			}
			b.elemsOf(n, func(i int) any { return &flows[i] })
			for _, s := range []*jsonStream{a, b} {
				s.closeArray()
				if err := s.rest(struct {
					N int `json:"n"`
				}{n}); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(one.Bytes(), many.Bytes()) {
				t.Errorf("n=%d after %d: elemsOf wrote %d bytes, elem %d; they differ", n, before, many.Len(), one.Len())
			}
			if b.elems != before+n {
				t.Errorf("n=%d after %d: %d elements counted", n, before, b.elems)
			}
		}
	}
}
