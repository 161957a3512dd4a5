package jsonindent

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

type inner struct {
	N  int8    `json:"n"`
	U  uint16  `json:"u,omitempty"`
	F  float64 `json:"f"`
	On bool    `json:"on"`
}

type outer struct {
	Name    string   `json:"name"`
	Skip    string   `json:"-"`
	Plain   int64    // no tag: its Go name
	Ptr     *inner   `json:"ptr"`
	Opt     *uint32  `json:"opt,omitempty"`
	List    []inner  `json:"list"`
	Empty   []inner  `json:"empty"`
	Nested  inner    `json:"nested"`
	Strings []string `json:"strings,omitempty"`
	hidden  int
}

// Every kind the encoder writes, set and zero, as encoding/json writes it.
func TestAppendMatchesEncodingJSON(t *testing.T) {
	opt := uint32(7)
	e := For[outer]()
	for _, v := range []outer{
		{},
		{Name: "a<b>&\"c\"\n\u2028\xff", Skip: "x", Plain: -5, Ptr: &inner{N: -1, U: 3, F: 1e-7, On: true}, Opt: &opt,
			List: []inner{{F: 1e21}, {N: 2, F: 0.1 + 0.2}}, Empty: []inner{}, Nested: inner{F: -0.5},
			Strings: []string{"x", ""}, hidden: 1},
	} {
		for _, pi := range [][2]string{{"", ""}, {"    ", "  "}} {
			want, err := json.MarshalIndent(v, pi[0], pi[1])
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Append(nil, pi[0], pi[1], &v); string(got) != string(want) {
				t.Errorf("prefix %q indent %q:\n got %s\nwant %s", pi[0], pi[1], got, want)
			}
		}
	}
	// encoding/json refuses NaN; the encoder writes null.
	if got := For[inner]().Append(nil, "", " ", &inner{F: math.NaN()}); string(got) != "{\n \"n\": 0,\n \"f\": null,\n \"on\": false\n}" {
		t.Errorf("NaN: %q", got)
	}
}

// A kind the encoder does not write is refused when the encoder is made,
// not when a value is written.
func TestUnknownKindPanicsAtStart(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a map field was accepted")
		}
	}()
	For[struct {
		M map[string]int `json:"m"`
	}]()
}

// hexID marshals as text, as a QPN does.
type hexID uint32

func (h hexID) AppendText(b []byte) []byte {
	return strconv.AppendUint(append(b, "0x"...), uint64(h), 16)
}
func (h hexID) MarshalText() ([]byte, error) { return h.AppendText(nil), nil }

type withText struct {
	ID  hexID  `json:"id"`
	Opt hexID  `json:"opt,omitempty"`
	Ptr *hexID `json:"ptr"`
	N   uint32 `json:"n"`
}

// A type given as UintText is written as encoding/json writes its
// MarshalText, a string, and only that type: other unsigned fields stay
// numbers.
func TestUintTextMatchesMarshalText(t *testing.T) {
	e := For[withText](UintText(hexID.AppendText))
	p := hexID(0xabc)
	for _, v := range []withText{{}, {ID: 0x3f, Opt: 1, Ptr: &p, N: 7}, {ID: math.MaxUint32}} {
		want, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Append(nil, "", "  ", &v); string(got) != string(want) {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}
}
