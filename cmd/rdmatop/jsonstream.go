package main

import (
	"bufio"
	"bytes"
	"io"

	gojson "github.com/goccy/go-json"
)

// jsonStream writes one JSON object whose large arrays are written element
// by element as a run produces them (constant memory whatever the
// recording's size), then the rest of its fields from a value. Indented
// like encoding/json's two-space indent. The first write error sticks and
// is returned by rest.
type jsonStream struct {
	w       *bufio.Writer
	err     error
	fields  int
	inArray bool
	elems   int
	enc     *elemEncoder
	scratch []byte // reused by elem
}

// elemEncoder writes an array's elements as json.MarshalIndent(v, "    ",
// "  ") does, through goccy/go-json: the same bytes as encoding/json
// (jsonstream_equiv_test.go checks them field by field with random values
// and a fuzz target) in a quarter of its time. The flow table is most of
// a large replay's output: 65,536 flows are 96 MB of JSON. One encoder
// per goroutine. The encoder writes each value once, whole, into the
// caller's buffer (appendWriter): through a buffer of its own, every byte
// was copied once more.
type elemEncoder struct {
	out appendWriter
	enc *gojson.Encoder
}

// appendWriter appends what is written to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

func newElemEncoder() *elemEncoder {
	e := &elemEncoder{}
	e.enc = gojson.NewEncoder(&e.out)
	e.enc.SetIndent("    ", "  ")
	return e
}

// appendTo appends v's JSON to dst.
func (e *elemEncoder) appendTo(dst []byte, v any) ([]byte, error) {
	n := len(dst)
	e.out.b = dst
	err := e.enc.Encode(v)
	dst, e.out.b = e.out.b, nil
	if err != nil {
		return dst[:n], err
	}
	return dst[:len(dst)-1], nil // Encode ends a value with a newline
}

func newJSONStream(w io.Writer) *jsonStream {
	s := &jsonStream{w: bufio.NewWriter(w), enc: newElemEncoder()}
	s.write([]byte("{"))
	return s
}

func (s *jsonStream) write(b []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
}

func (s *jsonStream) marshal(v any, prefix string) []byte {
	b, err := gojson.MarshalIndent(v, prefix, "  ")
	if err != nil && s.err == nil {
		s.err = err
	}
	return b
}

func (s *jsonStream) key(k string) {
	if s.fields > 0 {
		s.write([]byte(","))
	}
	s.fields++
	s.write([]byte("\n  " + string(s.marshal(k, "")) + ": "))
}

// field writes one field.
func (s *jsonStream) field(k string, v any) {
	s.key(k)
	s.write(s.marshal(v, "  "))
}

// openArray starts a field holding an array; elem adds to it.
func (s *jsonStream) openArray(k string) {
	s.key(k)
	s.write([]byte("["))
	s.inArray, s.elems = true, 0
}

func (s *jsonStream) elem(v any) {
	if s.elems > 0 {
		s.write([]byte(","))
	}
	s.elems++
	s.write([]byte("\n    "))
	var err error
	if s.scratch, err = s.enc.appendTo(s.scratch[:0], v); err != nil && s.err == nil {
		s.err = err
	}
	s.write(s.scratch)
	if s.elems%64 == 0 && s.err == nil {
		s.err = s.w.Flush()
	}
}

func (s *jsonStream) closeArray() {
	if s.elems > 0 {
		s.write([]byte("\n  "))
	}
	s.write([]byte("]"))
	s.inArray = false
}

// rest writes v's fields (v marshals to an object) and ends the document.
func (s *jsonStream) rest(v any) error {
	b := s.marshal(v, "")
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && b[0] == '{' {
		inner := bytes.TrimSpace(b[1 : len(b)-1])
		if len(inner) > 0 {
			if s.fields > 0 {
				s.write([]byte(","))
			}
			s.write([]byte("\n  "))
			s.write(inner)
		}
	}
	s.write([]byte("\n}\n"))
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}
