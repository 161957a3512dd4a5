package nccl

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
)

// sig is what a test asserts of an event: its kind and the fields a
// line names, in one string.
func sig(e probes.Event) string {
	var f []string
	short := map[string]string{KindCompletion: "completion", KindAsync: "async", KindModifyQP: "modify_qp_failed", KindWarn: "warn",
		KindLinkLocalGID: "link_local_gid"}
	f = append(f, short[e.Kind])
	n := e.NCCL
	if n.Status != nil {
		f = append(f, fmt.Sprintf("status=%d", *n.Status))
	}
	if n.Peer != "" {
		f = append(f, "peer="+n.Peer)
	}
	if e.Device != "" {
		f = append(f, fmt.Sprintf("dev=%s:%d", e.Device, e.Port))
	}
	if e.QPN != nil {
		f = append(f, fmt.Sprintf("qpn=%d", *e.QPN))
	}
	if n.Direction != "" {
		f = append(f, "dir="+n.Direction)
	}
	if n.VendorErr != nil {
		f = append(f, fmt.Sprintf("vendor=%d", *n.VendorErr))
	}
	if n.LocalGID != "" || n.RemoteGID != "" {
		f = append(f, "gids="+n.LocalGID+">"+n.RemoteGID)
	}
	if n.Async != "" {
		f = append(f, "async="+n.Async)
	}
	return strings.Join(f, " ")
}

func parseFile(t *testing.T, path string) []string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	p := NewParser()
	var out []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if ev, ok := p.Line(sc.Text()); ok && !isChoice(ev.Kind) {
			out = append(out, sig(ev))
		}
	}
	return out
}

// isChoice reports whether kind is one of what NCCL chose (choices.go,
// tested in choices_test.go).
func isChoice(kind string) bool {
	switch kind {
	case KindNetwork, KindNoRDMA, KindNetDevices, KindGDR, KindChannel, KindSetting, KindGraph, KindVersion:
		return true
	}
	return false
}

// Every warning of the real logs in testdata/nccl (NCCL 2.4 to 2.30, see
// its MANIFEST.md), with the fields each line names, as read by eye from
// the lines themselves; the logs without a warning give no event but
// what NCCL chose.
func TestRealLogs(t *testing.T) {
	retry11 := "completion status=12 peer=10.216.210.236 dir=Recv vendor=129 gids="
	want := map[string][]string{
		"01": {
			"async async=local catastrophic error", "warn",
			"async async=local catastrophic error", "warn",
			"async async=local catastrophic error", "warn",
		},
		"02": {"modify_qp_failed"},
		"03": {"completion status=12 vendor=129"},
		"04": {
			"completion status=4 peer=192.168.0.12 vendor=81",
			"completion status=4 peer=192.168.0.19 vendor=81",
		},
		"05": slices.Repeat([]string{"async async=port error"}, 8),
		"06": {
			"completion status=4 peer=fe80::966d:ae03:8b:df78%ib0 dir=Send vendor=81",
			"completion status=4 peer=fe80::966d:ae03:8b:df50%ib0 dir=Send vendor=81",
			"completion status=4 peer=fe80::966d:ae03:9c:f5f8%ib0 dir=Send vendor=81",
		},
		"09": {
			"async dev=mlx5_0:1 async=local access violation work queue error",
			"async dev=mlx5_0:1 async=local access violation work queue error",
			"completion status=5 peer=192.168.1.2 dir=Recv vendor=249 gids=fe80::e61d:2dff:fef2:9c94>fe80::e61d:2dff:fef2:9fa0",
		},
		"10": {
			"completion status=12 peer=172.36.143.59 dir=Recv vendor=129 gids=::ffff:29.87.88.182>::ffff:29.87.4.221",
			"completion status=5 peer=172.36.143.59 dir=Recv vendor=249 gids=::ffff:29.87.88.182>::ffff:29.87.4.221",
			"completion status=5 peer=172.36.143.59 dir=Recv vendor=249 gids=::ffff:29.87.88.182>::ffff:29.87.4.221",
		},
		"11": {
			retry11 + "fd00:1148:9000:5000:4:200:3:ff22>fd00:1148:9000:5000:4:200:3:ff1f",
			retry11 + "fd00:1148:9000:5000:4:200:3:ff21>fd00:1148:9000:5000:4:200:3:ff20",
			retry11 + "fd00:1148:9000:5000:4:200:3:ff22>fd00:1148:9000:5000:4:200:3:ff1f",
		},
		// Pasted from a rendered page: the autolinks are undone.
		"14": {
			"async dev=mlx5_0:1 async=local access violation work queue error",
			"async dev=mlx5_0:1 async=local access violation work queue error",
			"async dev=mlx5_0:1 async=local access violation work queue error",
			"completion status=9 peer=10.1.3.201 dir=Send vendor=138 gids=::ffff:10.206.1.23>::ffff:10.206.1.11",
		},
		"15": {
			"completion status=5 peer=10.1.32.3 vendor=249", "completion status=5 peer=10.1.32.3 vendor=249",
			"completion status=5 peer=10.1.32.3 vendor=249", "completion status=5 peer=10.1.32.3 vendor=249",
		},
		// NCCL_IB_GID_INDEX=0 on RoCE: QPs from the MAC-derived GID,
		// "GID 0 (80FE/1A8A41FEFF21A75E)" read back to its bytes.
		"13": slices.Repeat([]string{"link_local_gid qpn=1047 gids=fe80::5ea7:21ff:fe41:8a1a>"}, 1),
		"16": {"async dev=mlx5_1:1 async=invalid request local work queue error"},
		"17": {
			"warn",
			"async dev=mlx5_ib0:1 async=local access violation work queue error",
			"completion status=4 peer=172.16.12.34 dev=mlx5_ib0:0 dir=Send vendor=83",
		},
		// Redacted by its reporter: the GIDs' hidden digits are not read.
		"18": {"modify_qp_failed dev=mlx_x:1 gids=::ffff>::ffff"},
		// The CQE line before each completion names its QP.
		"19": {
			"completion status=12 peer=10.153.235.13 dev=mlx5_1:0 qpn=26257 vendor=129 gids=::ffff:1.1.2.2>::ffff:1.1.1.4",
			"completion status=12 peer=10.153.235.11 dev=mlx5_0:0 qpn=21535 vendor=129 gids=::ffff:1.1.1.4>::ffff:1.1.2.2",
			"completion status=12 peer=10.153.235.11 dev=mlx5_0:0 qpn=21536 vendor=129 gids=::ffff:1.1.1.4>::ffff:1.1.2.2",
		},
	}
	files, _ := filepath.Glob("../../testdata/nccl/*.log")
	if len(files) < 20 {
		t.Fatalf("found %d NCCL logs in testdata/nccl: checkout incomplete?", len(files))
	}
	for _, path := range files {
		id := filepath.Base(path)[:2]
		got := parseFile(t, path)
		if !slices.Equal(got, want[id]) {
			t.Errorf("%s:\n got  %q\n want %q", filepath.Base(path), got, want[id])
		}
	}
}

// Lines of the formats no real log in testdata/nccl shows, built from
// NCCL's format strings as testdata/nccl/FORMATS.md quotes them from its
// source (synthetic: the values are made up, the wording is NCCL's).
func TestFormatsFromSource(t *testing.T) {
	const pre = "node7:4242:4250 [3] transport/net_ib.cc:1000 NCCL WARN "
	cases := []struct{ line, want string }{
		// 2.18.1-2.19.4: "localGid %s remoteGid %s".
		{pre + "NET/IB : Got completion from peer 10.0.0.2<5000> with error 12, opcode 0, len 0, vendor err 129 (Send) localGid ::ffff:10.0.0.1 remoteGid ::ffff:10.0.0.2",
			"completion status=12 peer=10.0.0.2 dir=Send vendor=129 gids=::ffff:10.0.0.1>::ffff:10.0.0.2"},
		// 2.28.7-2.28.9: names, reqSize, req_type.
		{pre + "NET/IB: Got completion from peer 10.0.0.2<5000> with status=IBV_WC_RNR_RETRY_EXC_ERR(13) opcode=IBV_WC_SEND(0) reqSize=64 vendor_err=135 req_type=Send localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_2",
			"completion status=13 peer=10.0.0.2 dev=mlx5_2:0 dir=Send vendor=135 gids=::ffff:10.0.0.1>::ffff:10.0.0.2"},
		// 2.30.7: the function after the source line.
		{"node7:4242:4250 [3] transport/net_ib/p2p.cc:700 (ncclIbTest) NCCL WARN NET/IB: Got completion from peer 10.0.0.2<5000> with status=IBV_WC_REM_ACCESS_ERR(10) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=136 hca mlx5_0",
			"completion status=10 peer=10.0.0.2 dev=mlx5_0:0 vendor=136"},
		// 2.23.4-2.28.3 asynchronous events by type.
		{pre + "NET/IB : mlx5_0:1 async fatal event: local catastrophic error", "async dev=mlx5_0:1 async=local catastrophic error"},
		{pre + "NET/IB : mlx5_0:1 async fatal event on CQ (0x55d0c0ffee00): CQ error", "async dev=mlx5_0:1 async=CQ error"},
		{pre + "NET/IB : mlx5_0:1 Got async error event: port error", "async dev=mlx5_0:1 async=port error"},
		{pre + "NET/IB : mlx5_0:1 unknown event type (18)", "async dev=mlx5_0:1 async=GID table changed"},
		{pre + "NET/IB : mlx5_0:1 GID table changed", "async dev=mlx5_0:1 async=GID table changed"},
		{pre + "NET/IB : mlx5_0:1 Got non-fatal async event: port active(9)", "async dev=mlx5_0:1 async=port active(9)"},
		// 2.30.7: a fatal QP event names the QP.
		{pre + "NET/IB : mlx5_1:1 async fatal event on QP (0x7f00) qpn=4660 handle=3 send_cq=1 recv_cq=2 state=6 sq_psn=100 rq_psn=200: local access violation work queue error",
			"async dev=mlx5_1:1 qpn=4660 async=local access violation work queue error"},
		// 2.29.7 and later, INFO: a QP connected from a link-local GID.
		{"node7:4242:4250 [3] NCCL INFO NET/IB: ncclIbConnect: NCCL Dev 0 IbDev 0 Port 1 qp_num 77 mtu 5 GID 1 (80FE/1A8A41FEFF21A75E) ctsFifoRkey=0x1 ctsFifoLkey=0x1",
			"link_local_gid qpn=77 gids=fe80::5ea7:21ff:fe41:8a1a>"},
		// 2.24.3 and later: the transition, device and GIDs.
		{pre + "Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_1:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.0.1, remote GID ::ffff:10.0.0.2",
			"modify_qp_failed dev=mlx5_1:1 gids=::ffff:10.0.0.1>::ffff:10.0.0.2"},
	}
	for _, c := range cases {
		ev, ok := NewParser().Line(c.line)
		if !ok {
			t.Errorf("not an NCCL warning: %q", c.line)
			continue
		}
		if got := sig(ev); got != c.want {
			t.Errorf("%q:\n got  %s\n want %s", c.line, got, c.want)
		}
	}
}

// What is not NCCL's warning gives no event: INFO lines that say no
// choice, lines that only mention NCCL, a kernel log line, and text
// around NCCL's format.
func TestNotWarnings(t *testing.T) {
	for _, s := range []string{
		"node7:4242:4242 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
		"NCCL version 2.21.5+cuda12.4",
		// A QP on an IPv4-mapped GID (::ffff:10.0.0.1, as NCCL prints it).
		"node7:4242:4250 [3] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 7 mtu 5 GID 3 (0/100000AFFFF0000) fifoRkey=0x1 fifoLkey=0x1",
		"RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, unhandled system error",
		"[12345.678901] mlx5_core 0000:3b:00.0: mlx5_cmd_out_err:838: NCCL WARN lookalike",
		"NCCL WARN without a prefix",
		"host:1:2 [x] NCCL WARN not a device",
		"",
	} {
		if ev, ok := NewParser().Line(s); ok {
			t.Errorf("%q gave an event: %+v", s, ev)
		}
	}
}

// The parser says what a line says, never more: a completion line without
// a status number has no status.
func TestNoGuessing(t *testing.T) {
	ev, ok := NewParser().Line("h:1:2 [0] net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=SOMETHING opcode=x")
	if !ok || ev.Kind != KindCompletion {
		t.Fatalf("%+v %v", ev, ok)
	}
	if ev.NCCL.Status != nil || ev.NCCL.Opcode != nil || ev.NCCL.VendorErr != nil {
		t.Errorf("fields guessed: %+v", ev.NCCL)
	}
}
