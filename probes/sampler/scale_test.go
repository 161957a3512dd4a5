package sampler

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/rtnl"
)

// A canonical counter carries its canonical unit: on a port with the
// legacy PMA set (32-bit, saturating data counters; the fixture tree
// without its extended unicast/multicast files), tx_bytes is 4 ×
// port_xmit_data, its delta and rate are worked out in words at 32 bits
// and then scaled: a counter that saturates at 2^32-1 words reads as
// saturated (not as a reset of a value above 2^32), one cleared to a
// small value as a reset. ethtool and rtnetlink counters are not scaled.
func TestWordCountersCarryBytes(t *testing.T) {
	root := t.TempDir()
	copyTree(t, fixtures+"sysfs/mlx5-roce-cx6dx-t0", root)
	pma := filepath.Join(root, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0/ports/1/counters")
	for _, f := range []string{"unicast_rcv_packets", "unicast_xmit_packets", "multicast_rcv_packets", "multicast_xmit_packets"} {
		if err := os.Remove(filepath.Join(pma, f)); err != nil {
			t.Fatal(err)
		}
	}
	const max32 = 1<<32 - 1
	write := func(xmit, rcv uint64) {
		t.Helper()
		for f, v := range map[string]uint64{"port_xmit_data": xmit, "port_rcv_data": rcv, "port_xmit_packets": 10, "port_rcv_packets": 10} {
			if err := os.WriteFile(filepath.Join(pma, f), []byte(fmt.Sprintln(v)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	links := &rtnl.Fake{All: []rtnl.Link{{Name: "eth0", Index: 2, MTU: 9000, Stats: &rtnl.Stats64{RxBytes: 1001, TxBytes: 2002, RxPackets: 3}}}}
	eth := ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt")
	s := New(Sources{FS: os.DirFS(root), Ethtool: eth, Links: links}, Options{Device: "mlx5_0"})
	t0 := time.Unix(1_800_000_000, 0)

	write(max32-1000, 5000)
	s.Sample(context.Background(), t0)
	write(max32, 5250) // xmit saturates: +1000 words at least
	snap := s.Sample(context.Background(), t0.Add(10*time.Second))
	p := findPort(snap, "mlx5_0", 1)
	tx, rx := counter(t, p, "tx_bytes"), counter(t, p, "rx_bytes")
	if tx.Value != 4*max32 || tx.NativeValue == nil || *tx.NativeValue != max32 || tx.Unit != "bytes" ||
		tx.Note != probes.NoteSaturated || tx.Delta == nil || *tx.Delta != 4000 || *tx.Rate != 400 {
		t.Errorf("saturated tx_bytes: %+v", tx)
	}
	if rx.Value != 4*5250 || *rx.NativeValue != 5250 || rx.Note != probes.NoteNone || *rx.Delta != 1000 || *rx.Rate != 100 {
		t.Errorf("rx_bytes: %+v", rx)
	}
	if r := p.Traffic.RxBytesPerSec; r == nil || *r != 100 {
		t.Errorf("traffic %+v: want the counter's rate, not 4× it", p.Traffic)
	}
	// In JSON: the value in bytes, the reading in words.
	b, _ := json.Marshal(rx)
	if !strings.Contains(string(b), `"value":21000,"native_value":5250,`) || !strings.Contains(string(b), `"unit":"bytes"`) {
		t.Errorf("json %s", b)
	}

	write(7, 5300) // the PMA counters were cleared
	snap = s.Sample(context.Background(), t0.Add(20*time.Second))
	tx = counter(t, findPort(snap, "mlx5_0", 1), "tx_bytes")
	if tx.Value != 28 || tx.Note != probes.NoteReset || tx.Delta != nil || tx.Rate != nil {
		t.Errorf("cleared tx_bytes: %+v", tx)
	}

	stats, _ := eth.Stats("eth0")
	for _, c := range findPort(snap, "mlx5_0", 1).Counters {
		switch c.Source {
		case "ethtool":
			if c.NativeValue != nil || c.Value != stats[c.Native] {
				t.Errorf("ethtool %s scaled: %+v (ethtool says %d)", c.Native, c, stats[c.Native])
			}
		case "rtnl":
			if c.NativeValue != nil || c.Native == "rx_bytes" && (c.Value != 1001 || c.Unit != "bytes") {
				t.Errorf("rtnl %s scaled: %+v", c.Native, c)
			}
		case "counters":
			if c.Unit == "4-byte words" {
				t.Errorf("%s still in words: %+v", c.Name, c)
			}
		}
	}
}
