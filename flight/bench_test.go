package flight

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/fsrec"
)

// benchTick is a real tick of the Soft-RoCE lab (testdata/lab/pipeline:
// its sysfs files, ethtool, rtnetlink, DCB and RDMA netlink answers) with
// its QP dump grown to 10,000 QPs by repeating its real replies, and its
// one port grown to 16: each file of rxe0 and veth0 and each per-netdev
// answer repeated under 15 more names. A veth's ethtool has a few
// counters where an mlx5 port has about a thousand: the size of a busy
// host's tick, short of its NICs' counter lists. Tick 0 is a full
// discovery (every sysfs file the probes read: the sampler's every tenth
// tick), tick 1 a steady one (what changes).
func benchTick(b *testing.B, n int) *bundle.Tick {
	f, err := os.Open("../testdata/lab/pipeline/incident.pcapng.gz")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rd, err := bundle.Open(f)
	if err != nil {
		b.Fatal(err)
	}
	var t *bundle.Tick
	for range n + 1 {
		if t, err = rd.Next(); err != nil {
			b.Fatal(err)
		}
	}
	var nl []struct {
		Request string   `json:"request"`
		Replies []string `json:"replies"`
	}
	if err := json.Unmarshal(t.Raw["rdmanl"], &nl); err != nil {
		b.Fatal(err)
	}
	big := 0
	for i := range nl {
		if len(nl[i].Replies) > len(nl[big].Replies) {
			big = i
		}
	}
	qp := nl[big].Replies
	for len(nl[big].Replies) < 10000 {
		nl[big].Replies = append(nl[big].Replies, qp...)
	}
	t.Raw["rdmanl"], _ = json.Marshal(nl)
	grown := fsrec.Tree{}
	for path, e := range t.Files {
		grown[path] = e
		if !strings.Contains(path, "rxe0") && !strings.Contains(path, "veth0") {
			continue
		}
		for i := 1; i < 16; i++ {
			n := strconv.Itoa(i)
			grown[strings.NewReplacer("rxe0", "rxe"+n+"x", "veth0", "veth"+n+"x").Replace(path)] = e
		}
	}
	t.Files = grown
	for _, k := range []string{"ethtool", "rtnl", "dcb"} {
		var per map[string]json.RawMessage
		if err := json.Unmarshal(t.Raw[k], &per); err != nil {
			b.Fatal(k, err)
		}
		for i := 1; i < 16; i++ {
			per["veth"+strconv.Itoa(i)+"x"] = per["veth0"]
		}
		t.Raw[k], _ = json.Marshal(per)
	}
	return t
}

// BenchmarkWriteTick: keeping one steady tick of a host with 16 ports
// and 10,000 QPs (JSON, deflated), no incident open.
func BenchmarkWriteTick(b *testing.B) { benchWriteTick(b, benchTick(b, 1)) }

// BenchmarkWriteFullTick: the same for a full discovery, every tenth tick.
func BenchmarkWriteFullTick(b *testing.B) { benchWriteTick(b, benchTick(b, 0)) }

func benchWriteTick(b *testing.B, t *bundle.Tick) {
	r, _, _ := newTestRecorder(b, func(o *Options) { o.Keep = time.Hour })
	js, _ := json.Marshal(t)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	at := t0
	for b.Loop() {
		at = at.Add(time.Second)
		t.Time = at
		if err := r.WriteTick(t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.Stats().MemBytes)/float64(b.N), "kept-bytes/tick")
}

// BenchmarkWritePacket: keeping one 1,078-byte RoCE frame (a real one,
// RDMA WRITE of 1024 bytes) in a full 64 MiB ring, no incident open.
func BenchmarkWritePacket(b *testing.B) {
	frames := realFrames(b)
	d := frames[0]
	for _, f := range frames {
		if len(f) > len(d) {
			d = f
		}
	}
	r, _, _ := newTestRecorder(b, func(o *Options) { o.Keep, o.KeepPackets = time.Hour, DefaultKeepPackets })
	b.SetBytes(int64(len(d)))
	b.ReportAllocs()
	at := t0
	for b.Loop() {
		at = at.Add(time.Microsecond)
		if err := r.WritePacket(gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(d), Length: len(d)}, d); err != nil {
			b.Fatal(err)
		}
	}
}
