package wiretruth

import (
	"cmp"
	"fmt"
	"slices"
)

// Analyze compares two captures of the same traffic taken on either side
// of an impairment. Which side is upstream is decided per sender, from
// the packets both captures hold: a sender's packets are seen first on
// its own side.
func Analyze(nameA string, a []Packet, nameB string, b []Packet) (*Truth, error) {
	t := &Truth{Captures: []CaptureInfo{{Name: nameA, Packets: len(a)}, {Name: nameB, Packets: len(b)}}}
	senders := map[string]bool{}
	for _, p := range a {
		senders[p.Src.String()] = true
	}
	for _, p := range b {
		senders[p.Src.String()] = true
	}
	names := make([]string, 0, len(senders))
	for s := range senders {
		names = append(names, s)
	}
	slices.Sort(names)
	// A sender with no packet in both captures is a corrupted source
	// address (or traffic only one side saw): its packets are strays,
	// offered to every direction downstream of where they were captured
	// as corrupted copies of a lost packet.
	var dirs []*direction
	var upNames, downNames []string
	stray := map[string][]int{nameA: nil, nameB: nil}
	for _, s := range names {
		ia, ib := indicesOf(a, s), indicesOf(b, s)
		aFirst, ok := seenFirst(a, ia, b, ib)
		if !ok {
			stray[nameA] = append(stray[nameA], ia...)
			stray[nameB] = append(stray[nameB], ib...)
			continue
		}
		d := &direction{up: a, down: b, upIdx: ia, downIdx: ib}
		upName, downName := nameA, nameB
		if !aFirst {
			d = &direction{up: b, down: a, upIdx: ib, downIdx: ia}
			upName, downName = nameB, nameA
		}
		dirs = append(dirs, d)
		upNames, downNames = append(upNames, upName), append(downNames, downName)
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("the two captures share no packet: are they of the same traffic?")
	}
	// The path MTU: a MIDDLE packet's payload (READ re-issues need it).
	pmtu := 0
	for _, pk := range [][]Packet{a, b} {
		for i := range pk {
			pmtu = max(pmtu, pk[i].MiddlePayload)
		}
	}
	for i, d := range dirs {
		d.downIdx = append(d.downIdx, stray[downNames[i]]...)
		slices.SortFunc(d.downIdx, func(x, y int) int { return cmp.Compare(d.down[x].TS, d.down[y].TS) })
		d.match()
	}
	claimed := map[string]map[int]bool{nameA: {}, nameB: {}}
	for i, d := range dirs {
		for pos, f := range d.downFate {
			if f == Corrupted {
				claimed[downNames[i]][d.downIdx[pos]] = true
			}
		}
	}
	for i, d := range dirs {
		t.addFlows(d, upNames[i], downNames[i], pmtu)
		for pos, f := range d.downFate {
			if f == Orphan && !claimed[downNames[i]][d.downIdx[pos]] {
				c := &t.Captures[slices.IndexFunc(t.Captures, func(c CaptureInfo) bool { return c.Name == downNames[i] })]
				c.Unmatched++
				claimed[downNames[i]][d.downIdx[pos]] = true // count a stray once
			}
		}
	}
	return t, nil
}

func indicesOf(pk []Packet, src string) []int {
	var out []int
	for i := range pk {
		if pk[i].Src.String() == src {
			out = append(out, i)
		}
	}
	return out
}

// seenFirst says whether a sender's packets reach capture a before b: the
// median time difference of packets both hold once.
func seenFirst(a []Packet, ia []int, b []Packet, ib []int) (aFirst, ok bool) {
	first := make(map[uint64]int64, len(ia))
	for _, i := range ia {
		if _, dup := first[a[i].Key]; !dup {
			first[a[i].Key] = a[i].TS
		}
	}
	var diffs []int64
	seen := map[uint64]bool{}
	for _, i := range ib {
		k := b[i].Key
		if ta, in := first[k]; in && !seen[k] {
			seen[k] = true
			diffs = append(diffs, b[i].TS-ta)
		}
	}
	if len(diffs) == 0 {
		return false, false
	}
	slices.Sort(diffs)
	return diffs[len(diffs)/2] >= 0, true
}
