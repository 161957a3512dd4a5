package twopoint

import (
	"fmt"
	"strconv"
	"strings"
)

// verdict names the ways where the path lost packets, with how many of
// how many flows, then the ways that lost nothing and the copies: what
// a comparison says first, the same in every front end.
func (r *Result) verdict() string {
	var parts []string
	for _, s := range r.Segments {
		bad := s.Lost + s.Corrupted
		if bad == 0 {
			continue
		}
		p := fmt.Sprintf("lost between the capture at %s and the capture at %s: %s packets of %s, %s of %s sent",
			s.Upstream, s.Downstream, Count(bad), Plural(r.flowsWith(s.Upstream, func(f Fate) bool { return f.Lost+f.Corrupted > 0 }), "flow"),
			pct(bad, s.Sent), Count(s.Sent))
		if s.Corrupted > 0 {
			p += fmt.Sprintf(" (%s of them corrupted)", Count(s.Corrupted))
		}
		parts = append(parts, p)
	}
	for _, s := range r.Segments {
		if s.Lost+s.Corrupted == 0 {
			parts = append(parts, fmt.Sprintf("nothing lost from %s to %s (%s packets)", s.Upstream, s.Downstream, Count(s.Sent)))
		}
		if s.Duplicated > 0 {
			parts = append(parts, fmt.Sprintf("%s packets copied on the way from %s to %s", Count(s.Duplicated), s.Upstream, s.Downstream))
		}
	}
	return strings.Join(parts, "; ")
}

// Damage reports whether the path between the points lost, corrupted or
// copied packets.
func (r *Result) Damage() bool {
	for _, s := range r.Segments {
		if s.Lost+s.Corrupted+s.Duplicated > 0 {
			return true
		}
	}
	return false
}

// flowsWith counts the flows from upstream whose fate matches.
func (r *Result) flowsWith(upstream string, match func(Fate) bool) int {
	n := 0
	for _, f := range r.Flows {
		if f.Upstream == upstream && match(f.Fate) {
			n++
		}
	}
	return n
}

// Count writes n with thousands separators, as the verdict does.
func Count(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Plural writes n of what, with an s past one.
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return Count(uint64(n)) + " " + what + "s"
}

// pct writes part of whole as a percentage a person reads: two
// significant digits below 10 %, whole percents above.
func pct(part, whole uint64) string {
	if whole == 0 {
		return "0 %"
	}
	p := 100 * float64(part) / float64(whole)
	if p >= 10 {
		return fmt.Sprintf("%.0f %%", p)
	}
	return strconv.FormatFloat(p, 'g', 2, 64) + " %"
}
