package rules

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/rdmatop/rdmatop/capture"
)

// A flow-scope variant's `on` list names what must show on a flow (or
// its peer) for its condition to be evaluated there: a number that is not
// zero, a field with a value, or a field whose value differs from the
// peer's. The engine reads these once per flow and frame into a bit mask
// per flow (flowIndex), so that a variant passes over the calm flows of a
// capture with one AND each, without running anything.

// flowPred is one entry of an on list, resolved against FlowSummary.
type flowPred struct {
	text    string // as written: naks.rnr, peer.psn_gaps, encap=rocev1, dscp!=peer.dscp
	peer    bool   // of the flow's peer
	field   flowField
	value   string // for field=value: the value
	isEq    bool
	differs bool // field!=peer.field: the flow's and its peer's differ
}

var flowType = reflect.TypeFor[capture.FlowSummary]()

// flowPreds resolves an on list by the names conditions use (expr tags).
func flowPreds(on []string) ([]flowPred, error) {
	var out []flowPred
	for _, text := range on {
		p := flowPred{text: text}
		name := strings.TrimSpace(text)
		if rest, ok := strings.CutPrefix(name, "peer."); ok {
			p.peer, name = true, rest
		}
		var other string
		if name, other, p.differs = strings.Cut(name, "!="); p.differs {
			if p.peer || other != "peer."+name {
				return nil, fmt.Errorf("%q: != compares a field with the peer's same field (dscp!=peer.dscp)", text)
			}
		} else {
			name, p.value, p.isEq = strings.Cut(name, "=")
		}
		t := flowType
		var off uintptr
		for i, part := range strings.Split(name, ".") {
			if t.Kind() != reflect.Struct {
				return nil, fmt.Errorf("%q: %s is not an object", text, strings.Join(strings.Split(name, ".")[:i], "."))
			}
			f, ok := fieldByTag(t, part)
			if !ok {
				return nil, fmt.Errorf("%q: flow has no %s", text, part)
			}
			off += f.Offset
			t = f.Type
		}
		p.field = newFlowField(off, t)
		kind := t.Kind()
		if p.differs && kind == reflect.Pointer {
			kind = t.Elem().Kind() // a value or none: pcp
		}
		switch {
		case p.differs && !numeric(kind) && kind != reflect.Bool && kind != reflect.String:
			return nil, fmt.Errorf("%q: %s is %s: != compares numbers, text or flags", text, name, t)
		case p.differs:
		case p.isEq && kind != reflect.String:
			return nil, fmt.Errorf("%q: field=value tests a text field, %s is %s", text, name, t)
		case !p.isEq && !numeric(kind) && kind != reflect.Bool:
			return nil, fmt.Errorf("%q: %s is %s, not a number (write field=value for text)", text, name, t)
		}
		out = append(out, p)
	}
	return out, nil
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		if f.IsExported() && f.Tag.Get("expr") == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func numeric(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// holds reports whether p shows on flow fs whose peer is peer (nil for
// none).
func (p *flowPred) holds(fs, peer *capture.FlowSummary) bool {
	switch {
	case p.differs:
		return peer != nil && !p.field.same(fs, peer)
	case p.isEq:
		return p.field.text(fs) == p.value
	}
	return p.field.nonzero(fs)
}

// flowIndex is the engine's index of the on tests: every distinct test of
// its pack has a bit, and each variant with an on list the bits of its
// tests on the flow and on its peer.
type flowIndex struct {
	preds []flowPred // distinct by field and value, peer or not
	bits  map[*Variant]onBits
	flows []capture.FlowSummary // this frame's flows
	peers []int32               // and the index of each one's peer (-1: none)
	masks []uint64              // the tests each of flows shows
	frame uint64                // the frame masks are of
}

type onBits struct{ flow, peer uint64 }

// newFlowIndex gives each distinct test of p's on lists a bit. An on
// list is a handful of a flow's numbers; should a pack name more than 64
// distinct tests, the variants past them are checked test by test
// (skip), not through the mask: slower, the same meaning.
func newFlowIndex(p *Pack) *flowIndex {
	x := &flowIndex{bits: map[*Variant]onBits{}}
	bit := map[string]int{}
	for _, r := range p.Rules {
		for _, v := range r.variants() {
			if len(v.on) == 0 {
				continue
			}
			var b onBits
			indexed := true
			for _, pr := range v.on {
				key := strings.TrimPrefix(strings.TrimSpace(pr.text), "peer.")
				i, ok := bit[key]
				if !ok {
					if len(x.preds) == 64 {
						indexed = false
						break
					}
					i = len(x.preds)
					bit[key] = i
					q := pr
					q.peer = false
					x.preds = append(x.preds, q)
				}
				if pr.peer {
					b.peer |= 1 << i
				} else {
					b.flow |= 1 << i
				}
			}
			if indexed {
				x.bits[v] = b
			}
		}
	}
	return x
}

// index computes the masks of flows for frame, once; peers[i] is the
// index of flow i's peer, -1 for none.
func (x *flowIndex) index(flows []capture.FlowSummary, peers []int32, frame uint64) {
	if x.frame == frame && len(x.masks) == len(flows) {
		return
	}
	x.frame, x.flows, x.peers = frame, flows, peers
	if cap(x.masks) < len(flows) {
		x.masks = make([]uint64, len(flows))
	}
	x.masks = x.masks[:len(flows)]
	for i := range flows {
		fs, peer := &flows[i], x.flow(peers[i])
		var m uint64
		for j := range x.preds {
			if x.preds[j].holds(fs, peer) {
				m |= 1 << j
			}
		}
		x.masks[i] = m
	}
}

// flow is flow i of the frame; nil for i < 0 (no flow).
func (x *flowIndex) flow(i int32) *capture.FlowSummary {
	if i < 0 {
		return nil
	}
	return &x.flows[i]
}

// release lets go of the frame's flows; the masks stay for reuse.
func (x *flowIndex) release() { x.flows, x.peers = nil, nil }

// onCheck is a variant's on list as the index checks it: looked up once
// per variant and frame, then one AND per flow.
type onCheck struct {
	v      *Variant
	bits   onBits
	masked bool // its tests have bits; else they are checked one by one
}

// check returns how v's on list is checked.
func (x *flowIndex) check(v *Variant) onCheck {
	b, ok := x.bits[v]
	return onCheck{v: v, bits: b, masked: ok}
}

// skip reports whether c's on list rules its condition out on flow i
// (whose peer is at peer, -1 for none).
func (x *flowIndex) skip(c *onCheck, i int, peer int32) bool {
	switch {
	case len(c.v.on) == 0:
		return false
	case !c.masked:
		return !x.shows(c.v, i, peer)
	case x.masks[i]&c.bits.flow != 0:
		return false
	}
	return peer < 0 || x.masks[peer]&c.bits.peer == 0
}

// shows checks v's on list on flow i and its peer test by test: for a
// variant the masks do not cover.
func (x *flowIndex) shows(v *Variant, i int, peer int32) bool {
	for j := range v.on {
		p := &v.on[j]
		switch {
		case !p.peer && p.holds(x.flow(int32(i)), x.flow(peer)):
			return true
		case p.peer && peer >= 0 && p.holds(x.flow(peer), nil):
			return true
		}
	}
	return false
}
