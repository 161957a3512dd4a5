package rules

import (
	"reflect"
	"unsafe"

	"github.com/rdmatop/rdmatop/capture"
)

// flowField reads one number, flag or text of a FlowSummary at the offset
// its on test resolved once. The on tests run on every flow of every
// frame (65,536 flows of a replay's last frame, twice); read through
// reflect.Value they were most of a large frame's rule evaluation
// (BenchmarkEvaluatePackFlows). Only what flowPreds lets an on test name
// is read: a field of FlowSummary or of a struct in it (never through a
// pointer), of a numeric, bool or string type, or, for a != test, a
// pointer to a number.
type flowField struct {
	off   uintptr // from the start of the FlowSummary
	class valueClass
	size  uintptr // of the value, for valueBits
	ptr   bool    // the field points at the value (nil: none)
}

type valueClass uint8

const (
	valueBits    valueClass = iota // bool, integers: compared bit for bit
	valueFloat32                   // floats: as numbers (-0 is 0)
	valueFloat64
	valueString
)

// newFlowField describes the field at off of type t.
func newFlowField(off uintptr, t reflect.Type) flowField {
	f := flowField{off: off}
	if t.Kind() == reflect.Pointer {
		f.ptr, t = true, t.Elem()
	}
	f.size = t.Size()
	switch t.Kind() {
	case reflect.Float32:
		f.class = valueFloat32
	case reflect.Float64:
		f.class = valueFloat64
	case reflect.String:
		f.class = valueString
	}
	return f
}

// at returns where fs's value is: nil for a pointer field that is nil.
func (f *flowField) at(fs *capture.FlowSummary) unsafe.Pointer {
	p := unsafe.Add(unsafe.Pointer(fs), f.off)
	if f.ptr {
		p = *(*unsafe.Pointer)(p)
	}
	return p
}

// nonzero reports whether fs's value is not zero (a nil pointer's is).
func (f *flowField) nonzero(fs *capture.FlowSummary) bool {
	p := f.at(fs)
	switch {
	case p == nil:
		return false
	case f.class == valueFloat32:
		return *(*float32)(p) != 0
	case f.class == valueFloat64:
		return *(*float64)(p) != 0
	case f.class == valueString:
		return *(*string)(p) != ""
	}
	return bitsAt(p, f.size) != 0
}

// same reports whether a's and b's values are equal; pointers by what
// they point at (two nils are the same).
func (f *flowField) same(a, b *capture.FlowSummary) bool {
	pa, pb := f.at(a), f.at(b)
	switch {
	case pa == nil || pb == nil:
		return pa == pb
	case f.class == valueFloat32:
		return *(*float32)(pa) == *(*float32)(pb)
	case f.class == valueFloat64:
		return *(*float64)(pa) == *(*float64)(pb)
	case f.class == valueString:
		return *(*string)(pa) == *(*string)(pb)
	}
	return bitsAt(pa, f.size) == bitsAt(pb, f.size)
}

// text returns fs's string value (the field is a string).
func (f *flowField) text(fs *capture.FlowSummary) string { return *(*string)(f.at(fs)) }

// bitsAt reads a bool or an integer of size bytes.
func bitsAt(p unsafe.Pointer, size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}
