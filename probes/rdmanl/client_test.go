package rdmanl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/internal/nlmsg/nlmsgtest"
	"github.com/rdmatop/rdmatop/probes"
)

// A Client over the recorded exchanges of `rdma link` and `rdma res show
// qp` (job C, QPs up) sends exactly rdma's requests, so Replay answers
// every one of them from the capture.
func fixtureReplay(t *testing.T, dirs ...string) *Replay {
	t.Helper()
	var ex []Exchange
	for _, d := range dirs {
		ex = append(ex, exchanges(t, d)...)
	}
	return NewReplay(ex)
}

// procFromJSON is a /proc holding the comm rdma printed for each PID.
func procFromJSON(objs []map[string]any) fstest.MapFS {
	proc := fstest.MapFS{}
	for _, o := range objs {
		if pid, ok := num(o, "pid"); ok {
			c, _ := str(o, "comm")
			proc[fmt.Sprintf("%d/comm", pid)] = &fstest.MapFile{Data: []byte(c + "\n")}
		}
	}
	return proc
}

func TestClientSample(t *testing.T) {
	want := rdmaJSON(t, "netlink", "res_show_qp", "rdma-output.json")
	c := &Client{
		Conn: fixtureReplay(t, "link", "res_show_qp"),
		Comm: CommFromProc(procFromJSON(want)),
	}
	s, err := c.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Devices) != 2 || len(s.Ports) != 2 || len(s.QPs) != 10 {
		t.Fatalf("sample: %d devices, %d ports, %d QPs", len(s.Devices), len(s.Ports), len(s.QPs))
	}
	for i, p := range s.Ports {
		checkPort(t, "sample", p, rdmaJSON(t, "netlink", "link", "rdma-output.json")[i])
	}
	// Sample's QPs come from the port-0 dumps; rdma printed the port-1
	// dumps a moment later (PSNs moved). Everything else, comm included,
	// matches.
	for i, q := range s.QPs {
		checkQP(t, "sample", q, want[i], false)
		if c, _ := str(want[i], "comm"); q.Owner() != c {
			t.Errorf("%s/%d: owner %q, rdma says %q", q.Dev, q.LQPN, q.Owner(), c)
		}
	}
	if s.QPs[0].Comm != "ib_send_bw" || s.QPs[0].PID != 212 {
		t.Errorf("first QP: %+v", s.QPs[0])
	}
}

// What a recorder stores per tick replays to the same sample, also after
// a JSON round trip (how a bundle keeps it).
func TestRecordReplay(t *testing.T) {
	rec := &Recorder{Conn: fixtureReplay(t, "link", "res_show_qp")}
	live, err := (&Client{Conn: rec}).Sample()
	if err != nil {
		t.Fatal(err)
	}
	ex := rec.Take()
	if len(ex) != 1+2+2 { // dev dump, 2 port gets, 2 QP dumps
		t.Fatalf("%d exchanges", len(ex))
	}
	if len(rec.Take()) != 0 {
		t.Fatal("Take did not reset")
	}
	b, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	var back []Exchange
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, err := (&Client{Conn: NewReplay(back)}).Sample()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(live)
	z, _ := json.Marshal(again)
	if string(a) != string(z) {
		t.Errorf("replay differs:\n%s\n%s", a, z)
	}
	// A request the recording lacks.
	if _, err := (&Client{Conn: NewReplay(back)}).PortStatsContext(context.Background(), 0, 1); !errors.Is(err, ErrNotRecorded) {
		t.Errorf("unrecorded: %v", err)
	}
}

type failConn struct{ err error }

func (f failConn) Execute([]byte) ([][]byte, error) { return nil, f.err }

// A host without RDMA netlink, recorded and replayed: still "not supported".
func TestRecordNotSupported(t *testing.T) {
	rec := &Recorder{Conn: failConn{fmt.Errorf("%w: the kernel has no RDMA netlink (ib_core not loaded)", probes.ErrNotSupported)}}
	if _, err := (&Client{Conn: rec}).Sample(); !errors.Is(err, probes.ErrNotSupported) {
		t.Fatalf("live: %v", err)
	}
	ex := rec.Take()
	if len(ex) != 1 || ex[0].Status == nil || ex[0].Status.State != probes.StateNotSupported {
		t.Fatalf("recorded: %+v", ex)
	}
	_, err := (&Client{Conn: NewReplay(ex)}).Sample()
	if !errors.Is(err, probes.ErrNotSupported) || !strings.Contains(err.Error(), "ib_core") {
		t.Errorf("replayed: %v", err)
	}
	if _, err := (&Client{}).Devices(); err == nil {
		t.Error("client without a Conn")
	}
}

// A device removed between the listing and its QP dump: the kernel ends
// the dump with -EINVAL in NLMSG_DONE. The other device's QPs are kept.
func TestSampleDeviceGone(t *testing.T) {
	ex := append(exchanges(t, "link"), exchanges(t, "res_show_qp")...)
	for i := range ex {
		if string(SetSeq(ex[i].Request, 0)) == string(QPDumpRequest(1, 0)) {
			ex[i].Replies = [][]byte{msg(nlmsg.TypeDone, nlmsg.FlagMulti, negErrno(22))}
		}
	}
	s, err := (&Client{Conn: NewReplay(ex)}).Sample()
	var ne *Error
	if !errors.As(err, &ne) || ne.Errno != EINVAL || !strings.Contains(err.Error(), "rxe1 qps") {
		t.Fatalf("error: %v", err)
	}
	if len(s.QPs) != 5 || s.QPs[0].Dev != "rxe0" || len(s.Ports) != 2 {
		t.Errorf("kept: %d QPs, %d ports", len(s.QPs), len(s.Ports))
	}
}

func TestClientSingle(t *testing.T) {
	c := &Client{Conn: fixtureReplay(t, "statistic_show", "link")}
	st, err := c.PortStatsContext(context.Background(), 1, 1)
	if err != nil || st.Dev != "rxe1" || st.Map()["duplicate_request"] != 170 {
		t.Errorf("stats: %+v %v", st, err)
	}
	p, err := c.Port(0, 1)
	if err != nil || p.Netdev != "veth0" || p.NetdevIndex != 3 {
		t.Errorf("port: %+v %v", p, err)
	}
	// Not in the capture: the PORT_GET dump and SYS_GET.
	if _, err := c.Ports(0); !errors.Is(err, ErrNotRecorded) {
		t.Errorf("ports: %v", err)
	}
	if _, err := c.Sys(); !errors.Is(err, ErrNotRecorded) {
		t.Errorf("sys: %v", err)
	}
}

func TestCommFromProc(t *testing.T) {
	f := CommFromProc(fstest.MapFS{"7/comm": {Data: []byte("ib_write_bw\n")}})
	if c, ok := f(7); !ok || c != "ib_write_bw" {
		t.Errorf("%q %v", c, ok)
	}
	if _, ok := f(8); ok {
		t.Error("missing pid found")
	}
}

// cancelAfter is a Conn without ExecuteContext that cancels its sample's
// context once it has answered n requests.
type cancelAfter struct {
	Conn
	n      int
	cancel func()
	calls  int
}

func (c *cancelAfter) Execute(req []byte) ([][]byte, error) {
	c.calls++
	if c.calls == c.n {
		c.cancel()
	}
	return c.Conn.Execute(req)
}

// A sample whose context ends stops sending: over a Conn that cannot
// abandon a request, no request starts after the cancellation, and what
// was read before is kept.
func TestClientSampleContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn := &cancelAfter{Conn: fixtureReplay(t, "link", "res_show_qp"), n: 2, cancel: cancel}
	s, err := (&Client{Conn: conn}).SampleContext(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if conn.calls != 2 || len(s.Devices) != 2 || len(s.Ports) != 1 {
		t.Errorf("%d requests after cancelling at the 2nd; sample %d devices %d ports", conn.calls, len(s.Devices), len(s.Ports))
	}
}

// Real Soft-RoCE answers (captured on x86: little-endian), converted to
// what a big-endian host (s390x) would have recorded, replay to the same
// sample through NewReplayFrom: requests matched, replies decoded in the
// recording's order. On either kind of host (make test-bigendian runs it
// under qemu-s390x).
func TestReplayRecordedOnTheOtherByteOrder(t *testing.T) {
	little, err := nlmsg.OrderNamed("little")
	if err != nil {
		t.Fatal(err)
	}
	var ex, big []Exchange
	for _, d := range []string{"link", "res_show_qp", "statistic_show"} {
		ex = append(ex, exchanges(t, d)...)
	}
	for _, e := range ex {
		s := Exchange{Request: nlmsgtest.Swap(e.Request, little, nlmsgtest.NLDevNested, nlmsgtest.NLDevText)}
		for _, r := range e.Replies {
			s.Replies = append(s.Replies, nlmsgtest.Swap(r, little, nlmsgtest.NLDevNested, nlmsgtest.NLDevText))
		}
		big = append(big, s)
	}
	sample := func(ex []Exchange, order string) (Sample, PortStats, error) {
		r, err := NewReplayFrom(ex, order)
		if err != nil {
			return Sample{}, PortStats{}, err
		}
		c := &Client{Conn: r}
		s, err := c.Sample()
		if err != nil {
			return s, PortStats{}, err
		}
		ps, err := c.PortStatsContext(context.Background(), 1, 1)
		return s, ps, err
	}
	want, wantStats, err := sample(ex, "little")
	if err != nil || len(want.QPs) != 10 || len(wantStats.Counters) == 0 {
		t.Fatalf("the capture itself: %d QPs, %d counters, %v", len(want.QPs), len(wantStats.Counters), err)
	}
	got, gotStats, err := sample(big, "big")
	if err != nil || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotStats, wantStats) {
		t.Errorf("recorded big-endian: %v\ngot  %+v\n     %+v\nwant %+v\n     %+v", err, got, gotStats, want, wantStats)
	}
	// The same bytes read in the wrong order are not the same sample: the
	// conversion is real.
	if s, _, err := sample(big, "little"); err == nil && reflect.DeepEqual(s, want) {
		t.Error("the converted recording reads the same as little-endian: the test proves nothing")
	}
}
