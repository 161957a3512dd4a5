package roce

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// QPN is a 24-bit queue pair number. It prints and marshals as Wireshark
// and perftest show it, 0x and six hex digits, so that a flow's dest_qp
// and a finding's objects carry one value in one form; it unmarshals that
// form and a JSON number too (outputs of earlier versions).
type QPN uint32

func (q QPN) String() string { return string(q.AppendText(nil)) }

// AppendText appends the string form, 0x and six hex digits.
func (q QPN) AppendText(b []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '0', 'x')
	for shift := 20; shift >= 0; shift -= 4 {
		b = append(b, hex[uint32(q)>>shift&0xf])
	}
	return b
}

// MarshalText gives the string form (JSON writes it as a string).
func (q QPN) MarshalText() ([]byte, error) { return q.AppendText(nil), nil }

// UnmarshalJSON reads the string form (hex with 0x, or decimal) or a
// number.
func (q *QPN) UnmarshalJSON(b []byte) error {
	var n uint32
	if err := json.Unmarshal(b, &n); err == nil {
		*q = QPN(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("QPN: %s is neither a number nor a string", b)
	}
	v, err := strconv.ParseUint(s, 0, 24)
	if err != nil {
		return fmt.Errorf("QPN %q: %w", s, err)
	}
	*q = QPN(v)
	return nil
}
