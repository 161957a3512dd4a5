package rules_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/rules"
)

// eightNICs writes, in a temporary directory, the sysfs tree of a host
// of eight ConnectX-6 Dx NICs at step n of a run sampled a minute apart:
// the fixture's first function (mlx5_0 on eth0, 100 Gb/s RoCE) copied as
// mlx5_K on ethK at PCI 0000:(3b+K):00.0. Each busy port's RDMA byte and
// packet counters advance by what the fixture's did between its two
// samples (t0 to t1: 11.6 GB/s out, 9.6 GB/s in) times load(K), each
// step; an idle port's (load 0) stay at t0's.
func eightNICs(t *testing.T, n int, load func(k int) float64) string {
	t.Helper()
	t0, t1 := hrTree("mlx5-roce-cx6dx-t0"), hrTree("mlx5-roce-cx6dx-t1")
	const pf0 = "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"
	root := filepath.Join(t.TempDir(), "eight")
	for k := range 8 {
		dev := fmt.Sprintf("sys/devices/pci0000:3a/0000:3a:%02x.0/0000:%02x:00.0", k, 0x3b+k)
		ks := strconv.Itoa(k)
		rename := strings.NewReplacer("mlx5_0", "mlx5_"+ks, "eth0", "eth"+ks, "uverbs0", "uverbs"+ks)
		src := filepath.Join(t0, pf0)
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			to := filepath.Join(root, dev, rename.Replace(rel))
			switch {
			case d.IsDir():
				return os.MkdirAll(to, 0o755)
			case d.Type()&fs.ModeSymlink != 0: // net/eth0/device
				return os.Symlink("../../../"+filepath.Base(dev), to)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := rename.Replace(string(b))
			if strings.HasSuffix(rel, "/ifindex") {
				v, _ := strconv.Atoi(strings.TrimSpace(s))
				s = strconv.Itoa(v+k) + "\n"
			}
			return os.WriteFile(to, []byte(s), 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
		up := "../../" + strings.TrimPrefix(dev, "sys/")
		for link, target := range map[string]string{
			"sys/class/infiniband/mlx5_" + ks:        up + "/infiniband/mlx5_" + ks,
			"sys/class/net/eth" + ks:                 up + "/net/eth" + ks,
			"sys/class/infiniband_verbs/uverbs" + ks: up + "/infiniband_verbs/uverbs" + ks,
		} {
			if err := os.MkdirAll(filepath.Join(root, filepath.Dir(link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
				t.Fatal(err)
			}
		}
		if load(k) == 0 {
			continue
		}
		const counters = "sys/class/infiniband/mlx5_0/ports/1/counters/"
		for _, c := range []string{"port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets"} {
			v0, v1 := hrRead(t, t0, counters+c), hrRead(t, t1, counters+c)
			hrSet(t, root, strings.Replace(counters, "mlx5_0", "mlx5_"+ks, 1)+c, v0+uint64(float64(uint64(n)*(v1-v0))*load(k)))
		}
	}
	return root
}

// A host of eight NICs alike whose RDMA bytes all go through mlx5_0 for
// three minutes: the finding names mlx5_0, its share and use of its line
// rate, and the seven idle ports, once it has held two minutes (a
// one-shot check of two samples, at once). Spread over all eight, or
// over four, nothing is said; nor when the seven others each carry
// another workload's 50 MB/s (a quarter of a percent of mlx5_0's bytes,
// 0.4 % of their line rate): they are in use, not idle.
func TestRDMATrafficOnOneNIC(t *testing.T) {
	p := hrPack(t)
	run := func(busy func(int) float64, steps int, ignoreFor bool) *rules.Finding {
		var hosts []hrHost
		for n := range steps {
			hosts = append(hosts, hrHost{sysfs: eightNICs(t, n, busy)})
		}
		res, _ := hrRun(t, p, hrFrames(hrSample(hosts...)...), ignoreFor)
		for i := range res.Findings {
			if f := &res.Findings[i]; f.Rule == "rdma-traffic-on-one-nic" && !f.Resolved {
				return f
			}
		}
		return nil
	}
	one := func(k int) float64 { return b2f(k == 0) }
	if f := run(one, 3, false); f != nil {
		t.Errorf("fired after 1 minute of imbalance, before its 2: %s", f.Evidence)
	}
	f := run(one, 4, false)
	if f == nil {
		t.Fatal("no finding after 3 minutes with every RDMA byte on mlx5_0")
	}
	for _, want := range []string{
		"100 % of the RDMA bytes of this host's 8 ACTIVE ports alike went through mlx5_0/1 Ethernet 100 Gb/s (21.2 GB/s, 92.8 % of its line rate)",
		"7 sat idle, under 0.1 % of their line rate: mlx5_1/1 Ethernet 100 Gb/s",
	} {
		if !strings.Contains(f.Evidence, want) {
			t.Errorf("evidence %q lacks %q", f.Evidence, want)
		}
	}
	if f := run(one, 2, true); f == nil {
		t.Error("a one-shot check of two samples says nothing")
	}
	for name, busy := range map[string]func(int) float64{
		"all eight": func(int) float64 { return 1 },
		"four":      func(k int) float64 { return b2f(k%2 == 0) },
		"one, seven carrying another workload": func(k int) float64 {
			if k == 0 {
				return 1
			}
			return 0.0025
		},
	} {
		if f := run(busy, 4, false); f != nil {
			t.Errorf("%s busy: %s", name, f.Evidence)
		}
	}
}

// b2f is a whole load for true, none for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
