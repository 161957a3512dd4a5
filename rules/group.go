package rules

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Root cause first. A rule declares which other rules' findings it
// explains (`explains:` in the pack). When a finding of such a rule and a
// finding it explains hold on related objects, the explained finding is
// linked to its cause (ExplainedBy) and listed right under it, and the
// cause ranks above the symptoms it explains.
//
// Related objects: a host finding relates to everything; two findings on
// devices to the same device (and port, when both name one); two flow
// findings to the same flow or the two directions of one connection; a
// flow and a device finding relate (a capture on a host shows that host's
// traffic). And a cause comes first: it was first seen no later than what
// it explains (GroupOptions.Slack).

// Ref names a finding: its rule and objects. Via, on a finding's
// ExplainedBy, is what it has in common with its cause.
type Ref struct {
	Rule    string            `json:"rule"`
	Objects map[string]string `json:"objects"`
	Via     string            `json:"via,omitempty"`
}

func refOf(f *Finding) Ref { return Ref{Rule: f.Rule, Objects: f.Objects} }

// RefKey names the finding of rule on objs for lookups: a finding's and
// the Ref that names it (ExplainedBy, Explains) are the same key.
func RefKey(rule string, objs map[string]string) string {
	ks := slices.Sorted(maps.Keys(objs))
	var b strings.Builder
	b.WriteString(rule)
	for _, k := range ks {
		b.WriteString("|" + k + "=" + objs[k])
	}
	return b.String()
}

// checkExplains refuses explains that name no rule, or that go round in a
// circle (a cause cannot be its own symptom).
func (p *Pack) checkExplains() error {
	var errs []error
	for _, r := range p.Rules {
		for _, id := range r.Explains {
			if p.Rule(id) == nil {
				errs = append(errs, fmt.Errorf("%s: rule %q explains %q, which is not a rule", r.Source, r.ID, id))
			}
			if id == r.ID {
				errs = append(errs, fmt.Errorf("%s: rule %q explains itself", r.Source, r.ID))
			}
		}
		for id, v := range r.ExplainsShare {
			if !slices.Contains(r.Explains, id) || !(v > 0) {
				errs = append(errs, fmt.Errorf("%s: rule %q: explains_share %q: %v must be above 0 for a rule it explains", r.Source, r.ID, id, v))
			}
		}
	}
	// A cycle: depth-first search over explains.
	state := map[string]int{} // 1 on the path, 2 done
	var visit func(id string, path []string) error
	visit = func(id string, path []string) error {
		switch state[id] {
		case 1:
			return fmt.Errorf("rules explain each other in a circle: %s", strings.Join(append(path, id), " -> "))
		case 2:
			return nil
		}
		state[id] = 1
		if r := p.Rule(id); r != nil {
			for _, e := range r.Explains {
				if err := visit(e, append(path, id)); err != nil {
					return err
				}
			}
		}
		state[id] = 2
		return nil
	}
	for _, r := range p.Rules {
		if err := visit(r.ID, nil); err != nil {
			errs = append(errs, err)
			break
		}
	}
	return errors.Join(errs...)
}

// GroupOptions say how Group orders.
type GroupOptions struct {
	// Live puts active findings before resolved ones (what holds now
	// first). Off, for a replay or a recording, findings that fired rank
	// by cause and severity whether or not they resolved before the end.
	Live bool
	// Peers maps a flow id to the flow of the other direction of its
	// connection (the capture's peer_id), for relating flow findings.
	Peers map[int]int
	// Slack is how much later than the finding it explains a cause may
	// have been first seen: one tick (a cause and its effect seen in the
	// same sample may be stamped a tick apart). Findings without a time
	// (saved outputs) are not compared.
	Slack time.Duration
	// CaptureStart is when the capture behind flow findings began: a
	// flow finding is not judged later than an effect seen before then
	// (the capture did not look; the cause may have held unseen).
	CaptureStart time.Time
	// Start is when the run began (its first evaluated frame). A finding
	// first seen then and still holding is standing: among findings of
	// equal weight it ranks after what happened during the run (the story
	// of an incident before an advisory that held all along). Zero: no
	// such distinction.
	Start time.Time
}

// Group links every finding to the finding that explains it (the most
// severe related cause) and orders them: causes first, each followed by
// what it explains. The input is in first-fired order; the result is a
// new slice.
func (p *Pack) Group(fs []Finding, o GroupOptions) []Finding {
	n := len(fs)
	out := make([]Finding, n)
	copy(out, fs)
	for i := range out {
		out[i].Explains, out[i].ExplainedBy = nil, nil
	}
	cause, via := p.causes(out, o)
	// Children of each finding, and the roots.
	kids := make([][]int, n)
	var roots []int
	for i := range out {
		if c := cause[i]; c >= 0 {
			kids[c] = append(kids[c], i)
			ref := refOf(&out[c])
			ref.Via = via[i]
			out[i].ExplainedBy = &ref
			out[c].Explains = append(out[c].Explains, refOf(&out[i]))
		} else {
			roots = append(roots, i)
		}
	}
	rk := ranker{out: out, kids: kids, o: o, size: make([]int, n), worst: make([]int, n)}
	rk.order(roots)
	res := make([]Finding, 0, n)
	var walk func(i int)
	walk = func(i int) {
		res = append(res, out[i])
		rk.order(kids[i])
		for _, k := range kids[i] {
			walk(k)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return res
}

// causes finds each finding's cause (-1: none) and how the two are
// related (via), among the findings of the rules that explain its rule:
// a frame may hold thousands of QP findings.
func (p *Pack) causes(out []Finding, o GroupOptions) (cause []int, via []string) {
	causesOf := map[string][]string{} // symptom rule → the rules that explain it
	share := map[[2]string]float64{}  // cause rule, symptom rule
	for _, r := range p.Rules {
		for e, v := range r.ExplainsShare {
			share[[2]string{r.ID, e}] = v
		}
		for _, e := range r.Explains {
			if !slices.Contains(causesOf[e], r.ID) {
				causesOf[e] = append(causesOf[e], r.ID)
			}
		}
	}
	byRule := map[string][]int{}
	for i := range out {
		byRule[out[i].Rule] = append(byRule[out[i].Rule], i)
	}
	cause = make([]int, len(out))
	via = make([]string, len(out))
	for i := range out {
		cause[i] = -1
		closest := unrelated
		for _, cr := range causesOf[out[i].Rule] {
			for _, j := range byRule[cr] {
				if i == j || !before(&out[j], &out[i], o) || tooSmall(&out[j], &out[i], share[[2]string{cr, out[i].Rule}]) {
					continue
				}
				v, how := relation(&out[j], &out[i], o.Peers)
				if how == unrelated {
					continue
				}
				// The cause on the closest object, then the better one.
				if cause[i] < 0 || how > closest || how == closest && betterCause(out, j, cause[i], i, o) {
					cause[i], via[i], closest = j, v, how
				}
			}
		}
	}
	return cause, via
}

// ranker orders findings that share a parent (or the roots): worst first,
// a cause with the worst of what it explains.
type ranker struct {
	out   []Finding
	kids  [][]int
	o     GroupOptions
	size  []int // descendants and itself, 0: not yet counted
	worst []int // worst severity rank below and at it, +1; 0: not yet
}

// count: a cause explaining more ranks higher among equals.
func (r *ranker) count(i int) int {
	if r.size[i] == 0 {
		r.size[i] = 1
		for _, k := range r.kids[i] {
			r.size[i] += r.count(k)
		}
	}
	return r.size[i]
}

// sev: a cause ranks with the worst of what it explains (a link flap
// that put QPs in ERR is as urgent as the QPs in ERR).
func (r *ranker) sev(i int) int {
	if r.worst[i] == 0 {
		r.worst[i] = r.out[i].Severity.Rank() + 1 // +1: 0 means not computed
		for _, k := range r.kids[i] {
			r.worst[i] = max(r.worst[i], r.sev(k))
		}
	}
	return r.worst[i]
}

// standing: first seen when the run began and holding since, once.
func (r *ranker) standing(f *Finding) bool {
	return !r.o.Start.IsZero() && !f.Resolved && f.Occurrences < 2 && !f.FirstSeen.After(r.o.Start)
}

func (r *ranker) order(ix []int) {
	out, o := r.out, r.o
	sort.SliceStable(ix, func(a, b int) bool {
		x, y := &out[ix[a]], &out[ix[b]]
		if o.Live && x.Resolved != y.Resolved {
			return !x.Resolved
		}
		if sx, sy := r.sev(ix[a]), r.sev(ix[b]); sx != sy {
			return sx > sy
		}
		if cx, cy := r.count(ix[a]), r.count(ix[b]); cx != cy {
			return cx > cy
		}
		return !r.standing(x) && r.standing(y)
	})
	r.byRule(ix)
}

// byRule puts the findings of one rule (and rank) together where the
// first of them ranked, the one that shows the most (Magnitude) first:
// three flows losing packets read as one problem, worst flow first, not
// as three interleaved by when they last fired.
func (r *ranker) byRule(ix []int) {
	type tier struct {
		rule     string
		sev      int
		resolved bool
	}
	groups := map[tier][]int{}
	var firsts []tier
	for _, i := range ix {
		k := tier{r.out[i].Rule, r.sev(i), r.o.Live && r.out[i].Resolved}
		if _, ok := groups[k]; !ok {
			firsts = append(firsts, k)
		}
		groups[k] = append(groups[k], i)
	}
	if len(firsts) == len(ix) {
		return
	}
	ix = ix[:0]
	for _, k := range firsts {
		g := groups[k]
		sort.SliceStable(g, func(a, b int) bool { return r.out[g[a]].Magnitude > r.out[g[b]].Magnitude })
		ix = append(ix, g...)
	}
}

// betterCause reports whether finding a is a better cause of symptom than
// b: active (live), then still holding when the symptom began, then more
// severe, then the one that began nearer before it, then the first found.
func betterCause(fs []Finding, a, b, symptom int, o GroupOptions) bool {
	x, y, s := &fs[a], &fs[b], &fs[symptom]
	if o.Live && x.Resolved != y.Resolved {
		return !x.Resolved
	}
	if hx, hy := heldAt(x, s, o.Slack), heldAt(y, s, o.Slack); hx != hy {
		return hx
	}
	if x.Severity.Rank() != y.Severity.Rank() {
		return x.Severity.Rank() > y.Severity.Rank()
	}
	if !x.FirstSeen.Equal(y.FirstSeen) && !x.FirstSeen.IsZero() && !y.FirstSeen.IsZero() {
		return x.FirstSeen.After(y.FirstSeen) // the nearer one before the symptom
	}
	return a < b
}

// heldAt reports whether cause c still held (within slack) when symptom s
// began: a link flap at the time a QP went to ERR explains it better than
// RNR NAKs that stopped a minute before. True without times.
func heldAt(c, s *Finding, slack time.Duration) bool {
	return c.LastSeen.IsZero() || s.FirstSeen.IsZero() || !c.LastSeen.Before(s.FirstSeen.Add(-slack))
}

// tooSmall reports whether cause c shows less than share of symptom s
// (Rule.ExplainsShare).
func tooSmall(c, s *Finding, share float64) bool {
	return share > 0 && c.Magnitude > 0 && s.Magnitude > 0 && c.Magnitude < share*s.Magnitude
}

// before reports whether cause c was first seen no later than o.Slack
// after symptom s: true when either has no time, and for a flow cause of
// a symptom seen before the capture began (unknown, not later).
func before(c, s *Finding, o GroupOptions) bool {
	if c.FirstSeen.IsZero() || s.FirstSeen.IsZero() {
		return true
	}
	if _, flow := c.Objects["flow"]; flow && !o.CaptureStart.IsZero() && s.FirstSeen.Before(o.CaptureStart) {
		return true
	}
	return !c.FirstSeen.After(s.FirstSeen.Add(o.Slack))
}

// closeness is how near a cause's object is to its symptom's: a cause on
// the same flow is a better explanation than one on the same port, and
// that than the host at large.
type closeness int

const (
	unrelated closeness = iota
	sameHost            // a host finding, or a flow and a device of its capture
	sameDevice
	samePort
	sameFlow // the flow or its connection
)

// relation reports whether cause c and symptom s concern the same things,
// how closely, and says which ("same port rxe0/1"): the host, a device
// (and port), a flow or connection.
func relation(c, s *Finding, peers map[int]int) (via string, how closeness) {
	cd, cDev := c.Objects["device"]
	sd, sDev := s.Objects["device"]
	cf, cFlow := c.Objects["flow"]
	sf, sFlow := s.Objects["flow"]
	switch {
	case !cDev && !cFlow:
		return "same host", sameHost // a host finding
	case cDev && sDev:
		if cd != sd {
			return "", unrelated
		}
		cp, cok := c.Objects["port"]
		sp, sok := s.Objects["port"]
		switch {
		case cok && sok && cp != sp:
			return "", unrelated
		case cok && sok:
			return "same port " + cd + "/" + cp, samePort
		}
		return "same device " + cd, sameDevice
	case cFlow && sFlow:
		if cf == sf {
			return "same flow " + cf, sameFlow
		}
		a, _ := strconv.Atoi(cf)
		b, _ := strconv.Atoi(sf)
		if peers[a] == b || peers[b] == a {
			return "same connection: flows " + cf + " and " + sf, sameFlow
		}
		return "", unrelated
	}
	return "same host: a capture on it", sameHost // a flow and a device
}
