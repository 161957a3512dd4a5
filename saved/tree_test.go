package saved

import "testing"

// Two saved sysfs trees of one host (the mlx5 fixture at t0 and t1, see
// testdata/sysfs/MANIFEST.md) are two readings: read by the host probes,
// as --root reads a tree, with deltas between them.
func TestSysfsTrees(t *testing.T) {
	res := load(t, "../testdata/sysfs/mlx5-roce-cx6dx-t0", "../testdata/sysfs/mlx5-roce-cx6dx-t1")
	if len(res.Snapshots) != 2 {
		t.Fatalf("%d snapshots, want 2", len(res.Snapshots))
	}
	for _, in := range res.Inputs {
		if in.Kind != KindSysfsTree || len(in.Read) != 2 {
			t.Errorf("input %+v", in)
		}
	}
	p := portOf(t, last(res), "mlx5_0", 1, "")
	if p.Netdev != "eth0" || p.State != "ACTIVE" {
		t.Errorf("mlx5_0/1 %+v", p)
	}
	c := counter(p, "port_xmit_data")
	if c == nil || c.Delta == nil || *c.Delta == 0 || c.Rate != nil {
		t.Errorf("port_xmit_data %+v: want a delta and no rate (the trees carry no time)", c)
	}
}
