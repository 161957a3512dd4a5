package rules

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rdmatop/rdmatop/capture"
)

// onLeaf is a field an on test can name: its name as conditions write it
// and its place in FlowSummary.
type onLeaf struct {
	name string
	path []int
	t    reflect.Type
}

// onLeaves lists every field of t (and of the structs in it) with an expr
// name.
func onLeaves(t reflect.Type, prefix string, path []int) []onLeaf {
	var out []onLeaf
	for f := range t.Fields() {
		tag := f.Tag.Get("expr")
		if !f.IsExported() || tag == "" {
			continue
		}
		p := append(append([]int{}, path...), f.Index...)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, onLeaves(f.Type, prefix+tag+".", p)...)
			continue
		}
		out = append(out, onLeaf{prefix + tag, p, f.Type})
	}
	return out
}

// Every on test reads its field as reflection reads it: for each field of
// FlowSummary an on test can name, of every type, with values chosen to
// meet the edges (zero, negative zero, the largest, nil and not), the
// test at the field's offset says what the field's reflect.Value says.
func TestOnTestsReadTheirFields(t *testing.T) {
	leaves := onLeaves(flowType, "", nil)
	var tests []string
	var refs []func(a, b reflect.Value) bool
	for _, l := range leaves {
		kind := l.t.Kind()
		elem := l.t
		if kind == reflect.Pointer {
			elem = l.t.Elem()
		}
		switch {
		case kind == reflect.String:
			tests = append(tests, l.name+"=rocev1")
			refs = append(refs, func(a, _ reflect.Value) bool { return a.FieldByIndex(l.path).String() == "rocev1" })
		case kind == reflect.Bool || numeric(kind):
			tests = append(tests, l.name)
			refs = append(refs, func(a, _ reflect.Value) bool { return nonzeroByReflect(a.FieldByIndex(l.path)) })
		}
		if elem.Kind() == reflect.String || elem.Kind() == reflect.Bool || numeric(elem.Kind()) {
			tests = append(tests, l.name+"!=peer."+l.name)
			refs = append(refs, func(a, b reflect.Value) bool { return !sameByReflect(a.FieldByIndex(l.path), b.FieldByIndex(l.path)) })
		}
	}
	preds, err := flowPreds(tests)
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) < 80 {
		t.Fatalf("%d on tests from %d fields: the walk missed fields", len(preds), len(leaves))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		a, b := randomFlow(r, leaves), randomFlow(r, leaves)
		va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
		for i := range preds {
			if got, want := preds[i].holds(a, b), refs[i](va, vb); got != want {
				t.Fatalf("%s: %v on flows %+v / %+v; reflection says %v", tests[i], got, *a, *b, want)
			}
		}
	}
	t.Logf("%d on tests over %d fields", len(preds), len(leaves))
}

// nonzeroByReflect: a number that is not zero (-0 is zero), a true flag.
func nonzeroByReflect(f reflect.Value) bool {
	switch {
	case f.Kind() == reflect.Bool:
		return f.Bool()
	case f.CanInt():
		return f.Int() != 0
	case f.CanUint():
		return f.Uint() != 0
	}
	return f.Float() != 0
}

func sameByReflect(a, b reflect.Value) bool {
	if a.Kind() == reflect.Pointer {
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		a, b = a.Elem(), b.Elem()
	}
	return a.Equal(b)
}

// randomFlow sets each leaf to one of a few values that meet the edges.
func randomFlow(r *rand.Rand, leaves []onLeaf) *capture.FlowSummary {
	fs := new(capture.FlowSummary)
	v := reflect.ValueOf(fs).Elem()
	for _, l := range leaves {
		f := v.FieldByIndex(l.path)
		t := l.t
		if t.Kind() == reflect.Pointer {
			if r.IntN(3) == 0 {
				continue // nil
			}
			f.Set(reflect.New(t.Elem()))
			f, t = f.Elem(), t.Elem()
		}
		pick := r.IntN(4)
		switch {
		case t.Kind() == reflect.Bool:
			f.SetBool(pick%2 == 1)
		case f.CanInt():
			f.SetInt([]int64{0, 1, -1, math.MaxInt8}[pick])
		case f.CanUint():
			f.SetUint([]uint64{0, 1, 2, 255}[pick])
		case f.CanFloat():
			f.SetFloat([]float64{0, math.Copysign(0, -1), 0.5, math.MaxFloat32}[pick])
		case t.Kind() == reflect.String:
			f.SetString([]string{"", "rocev1", "rocev2", "10.0.0.1"}[pick])
		}
	}
	return fs
}
