package demo

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/fsrec"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// TestRegenerateTree rebuilds testdata/mlx5-roce-cx6dx.json, the sysfs tree
// the demo embeds: what the sampler reads of the repository's mlx5 fixture
// (testdata/sysfs/mlx5-roce-cx6dx-t0), recorded through fsrec over a few
// samples. Run with DEMO_REGEN=1; otherwise skipped.
func TestRegenerateTree(t *testing.T) {
	if os.Getenv("DEMO_REGEN") == "" {
		t.Skip("set DEMO_REGEN=1 to rebuild " + treeFile)
	}
	rec := fsrec.NewRecorder(os.DirFS("../testdata/sysfs/mlx5-roce-cx6dx-t0"))
	eth, err := parseEthtool()
	if err != nil {
		t.Fatal(err)
	}
	s := sampler.New(sampler.Sources{FS: rec, Ethtool: &ethtool.Fake{Ifaces: map[string]ethtool.FakeIface{
		"eth0": {Driver: "mlx5_core", Stats: eth}, "eth1": {Driver: "mlx5_core", Stats: eth}}}}, sampler.Options{})
	tree := fsrec.Tree{}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		s.Sample(context.Background(), t0.Add(time.Duration(i)*time.Second))
		for k, v := range rec.Take() {
			if old, ok := tree[k]; ok && old.Errno == 0 && v.Errno != 0 {
				continue
			}
			tree[k] = v
		}
	}
	b, err := json.MarshalIndent(tree, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/"+treeFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d paths", len(tree))
}
