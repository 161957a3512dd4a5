package capture

import (
	"reflect"
	"testing"
)

// lastPointerEnd is where the last pointer-holding word of a value of type
// t ends (0: none), found through its fields.
func lastPointerEnd(t reflect.Type) uintptr {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return t.Size()
	case reflect.String, reflect.Slice:
		return 8 // the data pointer is the first word
	case reflect.Interface:
		return t.Size()
	case reflect.Array:
		if t.Len() == 0 {
			return 0
		}
		if end := lastPointerEnd(t.Elem()); end > 0 {
			return uintptr(t.Len()-1)*t.Elem().Size() + end
		}
	case reflect.Struct:
		var last uintptr
		for i := range t.NumField() {
			f := t.Field(i)
			if end := lastPointerEnd(f.Type); end > 0 {
				last = f.Offset + end
			}
		}
		return last
	}
	return 0
}

// A flow's pointers come first (see Flow): the collector scans a flow and
// a reset for reuse bars writes only up to its last pointer. A pointer
// field added after the counters would make the collector scan all of
// every flow again.
func TestFlowPointersFirst(t *testing.T) {
	size := reflect.TypeFor[Flow]().Size()
	end := lastPointerEnd(reflect.TypeFor[Flow]())
	t.Logf("a Flow is %d bytes, its pointers end at byte %d", size, end)
	if end > 160 {
		t.Errorf("a Flow's pointers end at byte %d of %d: keep every pointer in the first fields", end, size)
	}
}
