package capture

import (
	"math/bits"
	"slices"
)

// rttHist is a log-linear histogram of durations in nanoseconds: 16 linear
// sub-buckets per power of two, so a percentile is within 1/16 (6.25 %) of
// the true value; min and max are exact. Sparse: only the buckets that
// hold samples are kept, in bucket order, so a flow with a handful of
// round trips costs a few bytes, not the 3.8 KB of every bucket (a flow's
// RTTs fall in a few dozen buckets at most). Allocated only for flows
// that have round trips.
type rttHist struct {
	bins     []rttBin
	n        uint64
	min, max int64
}

// rttBin is one non-empty bucket.
type rttBin struct {
	bucket uint16
	count  uint32
}

const (
	rttSubBits = 4
	rttSub     = 1 << rttSubBits
	rttBuckets = (64 - rttSubBits) * rttSub
)

func rttBucket(ns int64) int {
	v := uint64(ns)
	if v < rttSub {
		return int(v)
	}
	exp := bits.Len64(v) - 1 - rttSubBits // >= 0
	sub := int(v>>uint(exp)) & (rttSub - 1)
	return (exp+1)*rttSub + sub
}

// rttBucketUpper is the largest value that falls in bucket i.
func rttBucketUpper(i int) int64 {
	if i < rttSub {
		return int64(i)
	}
	exp := i/rttSub - 1
	sub := i % rttSub
	return int64((uint64(rttSub+sub+1) << uint(exp)) - 1)
}

func (h *rttHist) add(ns int64) {
	if ns < 0 {
		return
	}
	if h.n == 0 || ns < h.min {
		h.min = ns
	}
	if ns > h.max {
		h.max = ns
	}
	h.n++
	h.addBucket(rttBucket(ns), 1)
}

// addBucket adds c samples to bucket b, keeping bins in bucket order.
func (h *rttHist) addBucket(b int, c uint32) {
	i, found := slices.BinarySearchFunc(h.bins, b, func(x rttBin, b int) int { return int(x.bucket) - b })
	if found {
		h.bins[i].count += c
		return
	}
	h.bins = slices.Insert(h.bins, i, rttBin{bucket: uint16(b), count: c})
}

// quantile returns the q-quantile (0 < q <= 1), clamped to [min, max].
func (h *rttHist) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for _, b := range h.bins {
		seen += uint64(b.count)
		if seen >= rank {
			return min(max(rttBucketUpper(int(b.bucket)), h.min), h.max)
		}
	}
	return h.max
}

func (h *rttHist) merge(o *rttHist) {
	if o == nil || o.n == 0 {
		return
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	for _, b := range o.bins {
		h.addBucket(int(b.bucket), b.count)
	}
}

func (h *rttHist) summary() RTT {
	if h == nil || h.n == 0 {
		return RTT{}
	}
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	return RTT{Samples: h.n, Min: us(h.min), P50: us(h.quantile(0.5)), P99: us(h.quantile(0.99)),
		P999: us(h.quantile(0.999)), Max: us(h.max)}
}
