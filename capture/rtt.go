package capture

import "math/bits"

// rttHist is a log-linear histogram of durations in nanoseconds: 16 linear
// sub-buckets per power of two, so a percentile is within 1/16 (6.25 %) of
// the true value; min and max are exact. Fixed size, allocated only for
// flows that have round trips.
type rttHist struct {
	counts   [rttBuckets]uint32
	n        uint64
	min, max int64
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
	h.counts[rttBucket(ns)]++
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
	for i, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			return min(max(rttBucketUpper(i), h.min), h.max)
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
	for i, c := range o.counts {
		h.counts[i] += c
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
