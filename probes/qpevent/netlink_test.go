package qpevent

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

// testdata/rxe-netlink: raw RDMA netlink buffers and `rdma -j` outputs of
// job C (QPs up) and job A (peer killed), see its MANIFEST.md.
var netlinkRoot = filepath.Join("..", "..", "testdata", "rxe-netlink")

func read(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{netlinkRoot}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rdmaJSON(t *testing.T, name string) []rdmanl.QP {
	t.Helper()
	qps, err := rdmanl.ParseRdmaJSONQPs(read(t, "rdma", name))
	if err != nil {
		t.Fatal(err)
	}
	return qps
}

// The QPs of job C as the kernel sent them (raw RES_QP_GET replies, one
// dump per device), then `rdma -j res show qp` after the perftest
// processes were killed: the eight RC QPs are destroyed, the two GSI QPs
// stay (their sq-psn moved, which is no event).
func TestQPUpToAfterKill(t *testing.T) {
	var before []rdmanl.QP
	for _, files := range [][]string{{"08-recv.bin", "09-recv.bin"}, {"14-recv.bin", "15-recv.bin"}} {
		var bufs [][]byte
		for _, f := range files {
			bufs = append(bufs, read(t, "netlink", "res_show_qp", f))
		}
		qps, err := rdmanl.ParseQPs(bufs)
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, qps...)
	}
	// rdma read the owners' comm from /proc at the time; netlink has the pid.
	comm := map[uint32]string{208: "ib_send_bw", 209: "ib_send_bw", 211: "ib_send_bw", 212: "ib_send_bw"}
	for i := range before {
		if before[i].HasPID {
			before[i].Comm = comm[before[i].PID]
		}
	}
	after := rdmaJSON(t, "qpup-after-kill-rdma-res-qp.json")
	at := time.Unix(1795983900, 0)
	got := summary(Diff(before, after, at))
	want := []string{
		"info rxe0/1 QP 0x000011 (RC, ib_send_bw pid 212, remote QP 0x000011): destroyed (was RTS)",
		"info rxe0/1 QP 0x000012 (RC, ib_send_bw pid 211, remote QP 0x000012): destroyed (was RTS)",
		"info rxe0/1 QP 0x000013 (RC, ib_send_bw pid 211, remote QP 0x000013): destroyed (was RTS)",
		"info rxe0/1 QP 0x000014 (RC, ib_send_bw pid 212, remote QP 0x000014): destroyed (was RTS)",
		"info rxe1/1 QP 0x000011 (RC, ib_send_bw pid 209, remote QP 0x000011): destroyed (was RTS)",
		"info rxe1/1 QP 0x000012 (RC, ib_send_bw pid 208, remote QP 0x000012): destroyed (was RTR)",
		"info rxe1/1 QP 0x000013 (RC, ib_send_bw pid 208, remote QP 0x000013): destroyed (was RTR)",
		"info rxe1/1 QP 0x000014 (RC, ib_send_bw pid 209, remote QP 0x000014): destroyed (was RTS)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The same through the whole client path: rdmanl.Client over the
	// recorded exchanges (dev dump, then the port-0 QP dump of each
	// device, as the client sends them), comm from a /proc fixture, then
	// a Detector.
	ex := func(send string, recvs ...string) rdmanl.Exchange {
		e := rdmanl.Exchange{Request: read(t, "netlink", "res_show_qp", send)}
		for _, r := range recvs {
			e.Replies = append(e.Replies, read(t, "netlink", "res_show_qp", r))
		}
		return e
	}
	proc := fstest.MapFS{}
	for pid, c := range comm {
		proc[fmt.Sprintf("%d/comm", pid)] = &fstest.MapFile{Data: []byte(c + "\n")}
	}
	client := &rdmanl.Client{
		Conn: rdmanl.NewReplay([]rdmanl.Exchange{
			ex("00-send.bin", "01-recv.bin", "02-recv.bin", "03-recv.bin"),
			ex("04-send.bin", "05-recv.bin", "06-recv.bin"),
			ex("10-send.bin", "11-recv.bin", "12-recv.bin"),
		}),
		Comm: rdmanl.CommFromProc(proc),
	}
	sample, err := client.Sample()
	if err == nil || !strings.Contains(err.Error(), "not in the recording") || len(sample.QPs) != 10 {
		// The recording of `rdma res show qp` has no PORT_GET: ports fail, QPs are kept.
		t.Fatalf("sample: %d QPs, %v", len(sample.QPs), err)
	}
	var d Detector
	d.Observe(sample.QPs, at)
	if got := summary(d.Observe(after, at.Add(time.Second))); !reflect.DeepEqual(got, want) {
		t.Errorf("client + detector:\n%s", strings.Join(got, "\n"))
	}
	// And the reverse: from idle to QPs up, eight creations in their
	// state at first sight, none an error.
	idle := rdmaJSON(t, "idle-rdma-res-qp.json")
	for _, e := range Diff(idle, before, at) {
		if e.Kind != Created || e.IsError() || (e.To != rdmanl.QPRTS && e.To != rdmanl.QPRTR) {
			t.Errorf("idle -> qpup: %s", e.Detail())
		}
	}
}

// Job A: ib_write_bw server killed (rxe1 QP 0x00001e disappears) while the
// client QP on rxe0 stays RTS, retransmitting (MANIFEST: it never reaches
// ERR); later the client exits too.
func TestPeerKilled(t *testing.T) {
	before := rdmaJSON(t, "peer-killed-before-kill-rdma-res-qp.json")
	killed := rdmaJSON(t, "peer-killed-rdma-res-qp.json")
	exited := rdmaJSON(t, "peer-killed-after-exit-rdma-res-qp.json")
	at := time.Unix(1795983000, 0)
	got := summary(Diff(before, killed, at))
	want := []string{"info rxe1/1 QP 0x00001e (RC, ib_write_bw pid 610, remote QP 0x00001e): destroyed (was RTR)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kill: %q", got)
	}
	got = summary(Diff(killed, exited, at))
	want = []string{"info rxe0/1 QP 0x00001e (RC, ib_write_bw pid 617, remote QP 0x00001e): destroyed (was RTS)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exit: %q", got)
	}
}
