package rules

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/rdmatop/rdmatop/capture"
)

// A flow-scope variant's `on` list names what must show on a flow (or
// its peer) for its condition to be evaluated there: a number that is not
// zero, or a field with a value. The engine reads these once per flow and
// frame into a bit mask per flow (flowIndex), so that a variant passes
// over the calm flows of a capture with one AND each, without running
// anything.

// flowPred is one entry of an on list, resolved against FlowSummary.
type flowPred struct {
	text  string // as written: naks.rnr, peer.psn_gaps, encap=rocev1
	peer  bool   // of the flow's peer
	path  []int  // field index path in capture.FlowSummary
	kind  reflect.Kind
	value string // for field=value: the value
	isEq  bool
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
		name, p.value, p.isEq = strings.Cut(name, "=")
		t := flowType
		var f reflect.StructField
		for i, part := range strings.Split(name, ".") {
			if t.Kind() != reflect.Struct {
				return nil, fmt.Errorf("%q: %s is not an object", text, strings.Join(strings.Split(name, ".")[:i], "."))
			}
			var ok bool
			if f, ok = fieldByTag(t, part); !ok {
				return nil, fmt.Errorf("%q: flow has no %s", text, part)
			}
			p.path = append(p.path, f.Index...)
			t = f.Type
		}
		p.kind = t.Kind()
		switch {
		case p.isEq && p.kind != reflect.String:
			return nil, fmt.Errorf("%q: field=value tests a text field, %s is %s", text, name, t)
		case !p.isEq && !numeric(p.kind) && p.kind != reflect.Bool:
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

// holds reports whether p shows on the flow v (a FlowSummary value).
func (p *flowPred) holds(v reflect.Value) bool {
	f := v.FieldByIndex(p.path)
	switch {
	case p.isEq:
		return f.String() == p.value
	case p.kind == reflect.Bool:
		return f.Bool()
	case f.CanInt():
		return f.Int() != 0
	case f.CanUint():
		return f.Uint() != 0
	}
	return f.Float() != 0
}

// flowIndex is the engine's index of the on tests: every distinct test of
// its pack has a bit, and each variant with an on list the bits of its
// tests on the flow and on its peer.
type flowIndex struct {
	preds []flowPred // distinct by field and value, peer or not
	bits  map[*Variant]onBits
	flows []capture.FlowSummary // this frame's flows
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

// index computes the masks of flows for frame, once.
func (x *flowIndex) index(flows []capture.FlowSummary, frame uint64) {
	if x.frame == frame && len(x.masks) == len(flows) {
		return
	}
	x.frame, x.flows = frame, flows
	if cap(x.masks) < len(flows) {
		x.masks = make([]uint64, len(flows))
	}
	x.masks = x.masks[:len(flows)]
	for i := range flows {
		v := reflect.ValueOf(&flows[i]).Elem()
		var m uint64
		for j := range x.preds {
			if x.preds[j].holds(v) {
				m |= 1 << j
			}
		}
		x.masks[i] = m
	}
}

// release lets go of the frame's flows; the masks stay for reuse.
func (x *flowIndex) release() { x.flows = nil }

// skip reports whether v's on list rules its condition out on flow i
// (whose peer is at peer, -1 for none).
func (x *flowIndex) skip(v *Variant, i int, peer int32) bool {
	if len(v.on) == 0 {
		return false
	}
	b, ok := x.bits[v]
	if !ok {
		return !x.shows(v, i, peer)
	}
	if x.masks[i]&b.flow != 0 {
		return false
	}
	return peer < 0 || x.masks[peer]&b.peer == 0
}

// shows checks v's on list on flow i and its peer test by test: for a
// variant the masks do not cover.
func (x *flowIndex) shows(v *Variant, i int, peer int32) bool {
	for j := range v.on {
		p := &v.on[j]
		switch {
		case !p.peer && p.holds(reflect.ValueOf(&x.flows[i]).Elem()):
			return true
		case p.peer && peer >= 0 && p.holds(reflect.ValueOf(&x.flows[peer]).Elem()):
			return true
		}
	}
	return false
}
