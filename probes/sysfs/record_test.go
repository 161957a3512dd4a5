package sysfs

import (
	"encoding/json"
	"io/fs"
	"reflect"
	"testing"

	"github.com/rdmatop/rdmatop/probes/fsrec"
)

type everything struct {
	Devs    []Device
	Netdevs []Netdev
	Links   []Link
	Sets    []CounterSet
	ECN     ECN
}

func readEverything(t *testing.T, fsys fs.FS) everything {
	t.Helper()
	var e everything
	var err error
	if e.Devs, err = Discover(fsys); err != nil {
		t.Fatal(err)
	}
	names, _ := Netdevs(fsys)
	for _, n := range names {
		nd, err := ReadNetdev(fsys, n)
		if err != nil {
			t.Fatal(err)
		}
		e.Netdevs = append(e.Netdevs, nd)
	}
	e.Links = LinksFrom(e.Devs, e.Netdevs)
	if e.Sets, err = ReadAllCounters(fsys, e.Devs); err != nil {
		t.Fatal(err)
	}
	if e.ECN, err = ReadECN(fsys, "eth0"); err != nil {
		t.Fatal(err)
	}
	return e
}

// What the probes read through an fsrec.Recorder, replayed from the
// recorded tree (after a JSON round trip), parses to the same result: a
// recorded bundle replays through this package unchanged.
func TestRecordReplay(t *testing.T) {
	rec := fsrec.NewRecorder(fixture("mlx5-roce-cx6dx-t1"))
	live := readEverything(t, rec)
	js, err := json.Marshal(rec.Take())
	if err != nil {
		t.Fatal(err)
	}
	var tree fsrec.Tree
	if err := json.Unmarshal(js, &tree); err != nil {
		t.Fatal(err)
	}
	replayed := readEverything(t, tree)
	if !reflect.DeepEqual(live, replayed) {
		a, _ := json.Marshal(live)
		b, _ := json.Marshal(replayed)
		t.Errorf("replay differs\nlive   %s\nreplay %s", a, b)
	}
	if len(live.Sets) != 2 || live.Devs[0].PCI != "0000:3b:00.0" {
		t.Errorf("live read %+v", live.Devs)
	}
}
