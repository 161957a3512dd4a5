package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/fsrec"
)

func sample(i int) *Tick {
	mtu := "9000\n"
	return &Tick{
		Time:   time.Date(2026, 11, 29, 3, 0, i, 0, time.UTC),
		Files:  fsrec.Tree{"sys/class/net/eth0/mtu": {Data: &mtu}},
		Raw:    map[string]json.RawMessage{"ethtool/eth0": json.RawMessage(`{"rx_prio3_pause":12}`)},
		Status: []probes.Status{{Source: "sysfs", State: probes.StateOK}},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, gz := range []bool{false, true} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Header{Tool: "test", Interval: "1s", Host: Host{Hostname: "h", Kernel: "6.1"}}, gz)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := w.WriteTick(sample(i)); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		r, err := NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if r.Header.Format != Format || r.Header.Version != Version1 || r.Header.Host.Hostname != "h" {
			t.Errorf("header %+v", r.Header)
		}
		for i := range 3 {
			tk, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tk, sample(i)) {
				t.Errorf("tick %d: %+v", i, tk)
			}
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("end: %v", err)
		}
	}
}

// A recording killed while writing a tick loses that tick only.
func TestCutLastTick(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{}, false)
	w.WriteTick(sample(0))
	w.WriteTick(sample(1))
	cut := buf.Bytes()[:buf.Len()-20]
	r, err := NewReader(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF || !r.Truncated {
		t.Errorf("cut tick: %v, truncated %v", err, r.Truncated)
	}
}

func TestNotABundle(t *testing.T) {
	for _, in := range []string{"", "hello\n", `{"format":"other"}` + "\n"} {
		if _, err := NewReader(bytes.NewReader([]byte(in))); !errors.Is(err, ErrNotBundle) {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, err := NewReader(bytes.NewReader([]byte(`{"format":"rdmatop-bundle","version":99}` + "\n"))); err == nil {
		t.Error("future version accepted")
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{}, false)
	w.WriteTick(sample(0))
	buf.WriteString("{garbage\n")
	w.WriteTick(sample(1))
	r, _ := NewReader(&buf)
	r.Next()
	if _, err := r.Next(); err == nil || err == io.EOF {
		t.Errorf("damaged middle line: %v", err)
	}
	if !IsBundle([]byte(`{"format":"rdmatop-bundle","version":1}`)) || IsBundle([]byte("\xd4\xc3\xb2\xa1")) {
		t.Error("IsBundle")
	}
}

// Open reads the version 1 recordings already in the repository; their
// records are ticks only.
func TestOpenV1LabRecording(t *testing.T) {
	f, err := os.Open(labBundleV1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Open(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Version != Version1 || r.Header.Format != Format {
		t.Errorf("header %+v", r.Header)
	}
	n := 0
	var last time.Time
	for {
		rec, err := r.ReadRecord()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Packet != nil || rec.Tick == nil || !rec.Tick.Time.After(last) || len(rec.Tick.Files) == 0 {
			t.Fatalf("record %d: %+v", n+1, rec)
		}
		last = rec.Tick.Time
		n++
	}
	if n != 11 || r.Truncated { // 12 lines: the header and 11 ticks
		t.Errorf("%d ticks, truncated %v", n, r.Truncated)
	}
}
