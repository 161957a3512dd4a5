package monitor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/rules"
)

// A run given no pack compiles the built-in one while it reads, and
// evaluates with it exactly as a run given the pack does.
func TestPackCompiledWhileReading(t *testing.T) {
	p, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	findings := func(pack *rules.Pack) []string {
		tape, err := OpenCapture(lossy)
		if err != nil {
			t.Fatal(err)
		}
		r, err := New(Config{Tape: tape, Source: lossy, Interval: 100 * time.Millisecond, Pack: pack})
		if err != nil {
			t.Fatal(err)
		}
		if pack == nil && r.loading == nil {
			t.Fatal("no pack given, and none compiling")
		}
		var fired []string
		for f, err := range r.Frames(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			for _, fd := range f.Findings {
				fired = append(fired, fd.Rule)
			}
		}
		for _, fd := range r.Result().Findings {
			fired = append(fired, "result:"+fd.Rule)
		}
		return fired
	}
	given, compiled := findings(p), findings(nil)
	if len(given) == 0 {
		t.Fatal("the lossy capture fired nothing")
	}
	if len(given) != len(compiled) {
		t.Fatalf("given pack: %d findings, compiled while reading: %d", len(given), len(compiled))
	}
	for i := range given {
		if given[i] != compiled[i] {
			t.Errorf("finding %d: %s with the given pack, %s compiled while reading", i, given[i], compiled[i])
		}
	}
}

// A pack that fails to compile stops the run at its first Frame, with
// the error, and the Result says so.
func TestPackFailureStopsRun(t *testing.T) {
	tape, err := OpenCapture(lossy)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Tape: tape, Source: lossy, Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	<-r.loading.done
	bad := errors.New("rule x: bad condition")
	r.loading = loadPack(func() (*rules.Pack, error) { return nil, bad })
	frames := 0
	var got error
	for _, err := range r.Frames(context.Background()) {
		if err != nil {
			got = err
			break
		}
		frames++
	}
	if frames != 0 || !errors.Is(got, bad) {
		t.Errorf("%d frames, error %v; want none and %v", frames, got, bad)
	}
	if res := r.Result(); !errors.Is(res.Err, bad) {
		t.Errorf("Result error %v, want %v", res.Err, bad)
	}
}
