package flight

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/rdmatop/rdmatop/probes/bundle"
)

// benchTick is a real tick of the Soft-RoCE lab (testdata/lab/pipeline:
// its sysfs files, ethtool, rtnetlink and RDMA netlink answers) with its
// QP dump grown to 10,000 QPs by repeating its real replies: the size of
// a busy host's tick.
func benchTick(b *testing.B) *bundle.Tick {
	f, err := os.Open("../testdata/lab/pipeline/incident.pcapng.gz")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rd, err := bundle.Open(f)
	if err != nil {
		b.Fatal(err)
	}
	t, err := rd.Next()
	if err != nil {
		b.Fatal(err)
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
	return t
}

// BenchmarkWriteTick: keeping one tick of a host with 10,000 QPs (JSON,
// deflated), no incident open.
func BenchmarkWriteTick(b *testing.B) {
	t := benchTick(b)
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
