package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
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
	scratch []byte // reused by elem for appendJSONIndenters
}

// appendJSONIndenter is a value that writes its own JSON, byte for byte
// as json.MarshalIndent would, without reflection (capture.FlowSummary and
// capture.Anomaly: a flow table is tens of thousands of them).
type appendJSONIndenter interface {
	AppendJSONIndent(dst []byte, prefix, indent string) []byte
}

func newJSONStream(w io.Writer) *jsonStream {
	s := &jsonStream{w: bufio.NewWriter(w)}
	s.write([]byte("{"))
	return s
}

func (s *jsonStream) write(b []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
}

func (s *jsonStream) marshal(v any, prefix string) []byte {
	b, err := json.MarshalIndent(v, prefix, "  ")
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
	if a, ok := v.(appendJSONIndenter); ok {
		s.scratch = a.AppendJSONIndent(s.scratch[:0], "    ", "  ")
		s.write(s.scratch)
	} else {
		s.write(s.marshal(v, "    "))
	}
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
