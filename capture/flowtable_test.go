package capture

import (
	"math/rand/v2"
	"testing"
)

// The flow table agrees with a Go map through growth and heavy turnover:
// random insertions and deletions (backward shifts across the wrap of
// the slot array included), every key looked up after each step of a
// small table, and all of them at the end.
func TestFlowTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tab := newFlowTable()
	ref := map[flowKey]*Flow{}
	var keys []flowKey
	key := func(i int) flowKey {
		var k flowKey
		k.src[15], k.src[14] = byte(i), byte(i>>8)
		k.dst[15] = byte(i % 7)
		k.qp = uint32(i % 5)
		return k
	}
	check := func(step int) {
		if tab.len() != len(ref) {
			t.Fatalf("step %d: table holds %d, map %d", step, tab.len(), len(ref))
		}
		for i := range 3000 {
			k := key(i)
			if got, want := tab.get(&k, tab.hash(&k)), ref[k]; got != want {
				t.Fatalf("step %d: key %d: table %p, map %p", step, i, got, want)
			}
		}
	}
	for step := range 20000 {
		i := rng.IntN(3000)
		k := key(i)
		if f, ok := ref[k]; ok && rng.IntN(3) > 0 {
			tab.del(f)
			delete(ref, k)
		} else if !ok {
			f := &Flow{key: k, id: i}
			tab.put(f, tab.hash(&k))
			ref[k] = f
			keys = append(keys, k)
		}
		if step < 2000 || step%997 == 0 {
			check(step)
		}
	}
	check(-1)
	seen := 0
	tab.each(func(f *Flow) {
		if ref[f.key] != f {
			t.Errorf("each: flow %d not in the map", f.id)
		}
		seen++
	})
	if seen != len(ref) {
		t.Errorf("each saw %d flows, the map has %d", seen, len(ref))
	}
	if len(keys) == 0 {
		t.Fatal("nothing inserted")
	}
}

// Deleting a flow not in the table leaves it unchanged.
func TestFlowTableDelAbsent(t *testing.T) {
	tab := newFlowTable()
	in := &Flow{key: flowKey{qp: 1}}
	tab.put(in, tab.hash(&in.key))
	tab.del(&Flow{key: flowKey{qp: 2}})
	if tab.len() != 1 || tab.get(&in.key, tab.hash(&in.key)) != in {
		t.Fatalf("table lost its flow deleting another: len %d", tab.len())
	}
}
