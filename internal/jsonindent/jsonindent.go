// Package jsonindent writes values of struct types as
// json.MarshalIndent writes them, byte for byte, without reflection per
// value beyond reading fields and without allocating beyond the output.
// It reads a type's fields and json tags once (For), the struct being the
// one list of its fields. It covers the kinds the capture summaries use:
// numbers, strings, booleans, pointers to them, structs, slices.
//
// It exists because replay --json writes one flow summary per flow, by
// the tens of thousands, and encoding/json (reflection per value and a
// re-scan of its own output for indenting) was five times slower.
package jsonindent

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Encoder writes values of type T.
type Encoder[T any] struct{ plan jsonPlan }

// An Option tells For how to write a type.
type Option struct {
	t    reflect.Type
	text func(dst []byte, v uint64) []byte
}

// UintText writes the unsigned integer type U as encoding/json writes a
// type whose MarshalText gives what appendText appends: a JSON string.
// The text must need no escaping (digits, letters, punctuation other than
// " \ < > &); U's MarshalText must agree with appendText.
// A method expression fits: UintText(QPN.AppendText).
func UintText[U ~uint8 | ~uint16 | ~uint32 | ~uint64](appendText func(v U, dst []byte) []byte) Option {
	return Option{t: reflect.TypeFor[U](), text: func(dst []byte, v uint64) []byte { return appendText(U(v), dst) }}
}

// For returns the encoder of T, a struct type. A field of a kind it does
// not write panics here, at start: teach it the kind.
func For[T any](opts ...Option) *Encoder[T] {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("jsonindent: %s is not a struct", t))
	}
	return &Encoder[T]{plan: jsonPlanOf(t, opts)}
}

// Append appends to dst the JSON of *v exactly as
// json.MarshalIndent(v, prefix, indent) writes it. Unlike encoding/json,
// which fails on them, a NaN or infinite float is written as null: a
// valid document is better than a failed run.
func (e *Encoder[T]) Append(dst []byte, prefix, indent string, v *T) []byte {
	return e.plan.append(dst, prefix, indent, reflect.ValueOf(v).Elem())
}

// jsonPlan is how to write one struct type: its members in order.
type jsonPlan []jsonMember

// jsonMember is one field as encoding/json writes it: its key, whether
// omitempty leaves it out when empty, and how to write its value.
type jsonMember struct {
	key       string
	index     int
	omitEmpty bool
	value     *jsonValue
}

// jsonValue is how to write a value of one type. It is a tree walked by
// a switch, not closures: the writer then stays on the caller's stack.
type jsonValue struct {
	kind reflect.Kind // of the value; Pointer and Slice have elem, Struct plan
	elem *jsonValue
	plan jsonPlan
	text func(dst []byte, v uint64) []byte // an unsigned type written as text (UintText)
}

// jsonPlanOf reads t's exported fields and json tags as encoding/json
// does for the types these summaries use: numbers, strings, booleans,
// pointers to them, structs, slices of structs. Any other kind panics at
// start: a field of a new kind must be taught here.
func jsonPlanOf(t reflect.Type, opts []Option) jsonPlan {
	var p jsonPlan
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, tagOpts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		p = append(p, jsonMember{key: name, index: i, omitEmpty: strings.Contains(","+tagOpts+",", ",omitempty,"),
			value: jsonValueOf(f.Type, opts)})
	}
	return p
}

func jsonValueOf(t reflect.Type, opts []Option) *jsonValue {
	j := &jsonValue{kind: t.Kind()}
	for _, o := range opts {
		if o.t == t {
			j.text = o.text
			return j
		}
	}
	switch k := t.Kind(); {
	case k == reflect.Pointer || k == reflect.Slice:
		j.elem = jsonValueOf(t.Elem(), opts)
	case k == reflect.Struct:
		j.plan = jsonPlanOf(t, opts)
	case k == reflect.Float64 || k == reflect.String || k == reflect.Bool:
	case reflect.Int <= k && k <= reflect.Uint64:
	default:
		panic(fmt.Sprintf("jsonindent: a %s field is not written by this encoder", t))
	}
	return j
}

// write writes v, a value of j's type.
func (j *jsonValue) write(w *jsonWriter, v reflect.Value) {
	if j.text != nil {
		w.b = append(w.b, '"')
		w.b = j.text(w.b, v.Uint())
		w.b = append(w.b, '"')
		return
	}
	switch j.kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.uint(v.Uint())
	case reflect.Float64:
		w.float(v.Float())
	case reflect.String:
		w.string(v.String())
	case reflect.Bool:
		w.bool(v.Bool())
	case reflect.Pointer:
		if v.IsNil() {
			w.b = append(w.b, "null"...)
			return
		}
		j.elem.write(w, v.Elem())
	case reflect.Struct:
		j.plan.write(w, v)
	case reflect.Slice:
		if v.IsNil() {
			w.b = append(w.b, "null"...)
			return
		}
		arr := w.open('[')
		for i := range v.Len() {
			w.elem()
			j.elem.write(w, v.Index(i))
		}
		w.close(']', arr)
	}
}

// append writes v (a struct of the plan's type) after dst.
func (p jsonPlan) append(dst []byte, prefix, indent string, v reflect.Value) []byte {
	w := jsonWriter{b: dst, prefix: prefix, indent: indent}
	p.write(&w, v)
	return w.b
}

// write writes v as a JSON object.
func (p jsonPlan) write(w *jsonWriter, v reflect.Value) {
	outer := w.open('{')
	for i := range p {
		m := &p[i]
		f := v.Field(m.index)
		if m.omitEmpty && f.IsZero() {
			continue // encoding/json's empty: 0, "", false, nil (no empty slice or map here)
		}
		w.key(m.key)
		m.value.write(w, f)
	}
	w.close('}', outer)
}

// jsonWriter appends indented JSON laid out as json.MarshalIndent lays it
// out: every member of a non-empty object or array on its own line, after
// prefix and one indent per level; `{}` and `[]` when empty; ": " after
// keys. It lives on the caller's stack.
type jsonWriter struct {
	b              []byte
	prefix, indent string
	depth          int
	n              int // members written so far in the innermost open object or array
}

// open starts an object or array; pass what it returns to close.
func (w *jsonWriter) open(c byte) (outer int) {
	w.b = append(w.b, c)
	w.depth++
	outer, w.n = w.n, 0
	return outer
}

func (w *jsonWriter) close(c byte, outer int) {
	w.depth--
	if w.n > 0 {
		w.newline()
	}
	w.b = append(w.b, c)
	w.n = outer
}

func (w *jsonWriter) newline() {
	w.b = append(w.b, '\n')
	w.b = append(w.b, w.prefix...)
	for range w.depth {
		w.b = append(w.b, w.indent...)
	}
}

// elem starts an array element.
func (w *jsonWriter) elem() {
	if w.n > 0 {
		w.b = append(w.b, ',')
	}
	w.n++
	w.newline()
}

// key starts an object member; k must need no escaping.
func (w *jsonWriter) key(k string) {
	w.elem()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':', ' ')
}

func (w *jsonWriter) int(v int64)   { w.b = strconv.AppendInt(w.b, v, 10) }
func (w *jsonWriter) uint(v uint64) { w.b = strconv.AppendUint(w.b, v, 10) }
func (w *jsonWriter) bool(v bool)   { w.b = strconv.AppendBool(w.b, v) }
func (w *jsonWriter) string(s string) {
	w.b = appendJSONString(w.b, s)
}

// float writes v as encoding/json writes a float64 (the shortest
// representation that round-trips, in exponent form only below 1e-6 or
// from 1e21), and NaN or infinities, which it refuses, as null.
func (w *jsonWriter) float(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		w.b = append(w.b, "null"...)
		return
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, v, format, -1, 64)
	if format == 'e' {
		// e-07 -> e-7, as encoding/json does.
		n := len(w.b)
		if n >= 4 && w.b[n-4] == 'e' && w.b[n-3] == '-' && w.b[n-2] == '0' {
			w.b[n-2] = w.b[n-1]
			w.b = w.b[:n-1]
		}
	}
}

// appendJSONString appends s quoted as encoding/json quotes a string by
// default: `"` and `\` escaped, \b \f \n \r \t by name, other control
// characters and the HTML-sensitive <, > and & as \u00XX, U+2028 and
// U+2029 as \u2028 and \u2029, and each byte of invalid UTF-8 as \ufffd.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
