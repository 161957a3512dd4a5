package kmsg

import (
	"errors"
	"testing"
)

func TestSeqTracker(t *testing.T) {
	var s seqTracker
	for _, c := range []struct{ seq, lost uint64 }{{10, 0}, {11, 0}, {15, 3}, {15, 0}, {12, 0}, {16, 0}, {1000, 983}} {
		if got := s.next(c.seq); got != c.lost {
			t.Errorf("seq %d: lost %d, want %d", c.seq, got, c.lost)
		}
	}
}

func TestFake(t *testing.T) {
	f := &Fake{Batches: []Batch{{Raw: []string{"6,1,2,-;a"}}, {Lost: 3}}}
	var src Source = f
	b1, _ := src.Poll()
	b2, _ := src.Poll()
	b3, _ := src.Poll()
	if len(b1.Raw) != 1 || b2.Lost != 3 || len(b3.Raw) != 0 {
		t.Errorf("%+v %+v %+v", b1, b2, b3)
	}
	f.Err = errors.New("boom")
	if _, err := src.Poll(); err == nil {
		t.Error("no error")
	}
	_ = src.Close()
	if !f.Closed {
		t.Error("not closed")
	}
}
