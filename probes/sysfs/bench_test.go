package sysfs

import "testing"

// One sample's sysfs share: state and every counter of both ports of the
// two-PF fixture, read from disk through os.DirFS, devices one after the
// other. (The target for a whole sample, ethtool included, is 2 ms.)
func BenchmarkSampleSequential(b *testing.B) {
	f := fixture("mlx5-roce-cx6dx-t0")
	devs, err := Discover(f)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, d := range devs {
			for _, p := range d.Ports {
				if _, err := ReadPortState(f, d.Name, p.Num); err != nil {
					b.Fatal(err)
				}
				s, err := ReadCounters(f, d.Name, p.Num, d.Driver)
				if err != nil {
					b.Fatal(err)
				}
				n += len(s.Counters)
			}
		}
		if n != 104 {
			b.Fatalf("%d counters", n)
		}
	}
}

// The same with ReadAllCounters, which reads devices concurrently.
func BenchmarkSample(b *testing.B) {
	f := fixture("mlx5-roce-cx6dx-t0")
	devs, err := Discover(f)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range devs {
			for _, p := range d.Ports {
				if _, err := ReadPortState(f, d.Name, p.Num); err != nil {
					b.Fatal(err)
				}
			}
		}
		sets, err := ReadAllCounters(f, devs)
		if err != nil || len(sets) != 2 {
			b.Fatal(len(sets), err)
		}
	}
}

// Counters only, one device after the other.
func BenchmarkReadCounters(b *testing.B) {
	f := fixture("mlx5-roce-cx6dx-t0")
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range []string{"mlx5_0", "mlx5_1"} {
			if _, err := ReadCounters(f, d, 1, "mlx5"); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// Full discovery (2 × 256 GID entries, netdev mapping): done at start and
// when the device list changes, not every sample.
func BenchmarkDiscoverAndLink(b *testing.B) {
	f := fixture("mlx5-roce-cx6dx-t0")
	b.ReportAllocs()
	for b.Loop() {
		devs, err := Discover(f)
		if err != nil {
			b.Fatal(err)
		}
		var nds []Netdev
		for _, n := range []string{"eth0", "eth1"} {
			nd, err := ReadNetdev(f, n)
			if err != nil {
				b.Fatal(err)
			}
			nds = append(nds, nd)
		}
		if len(LinksFrom(devs, nds)) != 2 {
			b.Fatal("links")
		}
	}
}
