package rdmanl

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// normalise zeroes nlmsg_seq and nlmsg_pid: rdma stamps time(NULL) as the
// sequence number, the connection stamps its own. Nothing else is
// normalised.
func normalise(b []byte) []byte { return SetSeq(b, 0) }

// Every request iproute2 6.1 sent in the captured sessions, byte for byte.
func TestRequestsEqualIproute2(t *testing.T) {
	cases := []struct {
		dir, file string
		got       []byte
	}{
		{"dev", "00-send.bin", DevDumpRequest()},
		{"dev", "04-send.bin", DevGetRequest(0)},
		{"dev", "07-send.bin", DevGetRequest(1)},
		{"link", "00-send.bin", DevDumpRequest()},
		{"link", "04-send.bin", PortGetRequest(0, 1)},
		{"link", "07-send.bin", PortGetRequest(1, 1)},
		{"res_show_qp", "00-send.bin", DevDumpRequest()},
		{"res_show_qp", "04-send.bin", QPDumpRequest(0, 0)},
		{"res_show_qp", "07-send.bin", QPDumpRequest(0, 1)},
		{"res_show_qp", "10-send.bin", QPDumpRequest(1, 0)},
		{"res_show_qp", "13-send.bin", QPDumpRequest(1, 1)},
		{"d_res_show_qp", "04-send.bin", QPDumpRequest(0, 0)},
		{"d_res_show_qp", "07-send.bin", QPDumpRequest(0, 1)},
		{"d_res_show_qp", "10-send.bin", QPDumpRequest(1, 0)},
		{"d_res_show_qp", "13-send.bin", QPDumpRequest(1, 1)},
		{"statistic_show", "00-send.bin", DevDumpRequest()},
		{"statistic_show", "04-send.bin", StatGetRequest(0, 1)},
		{"statistic_show", "07-send.bin", StatGetRequest(1, 1)},
	}
	for _, c := range cases {
		want := fixture(t, "netlink", c.dir, c.file)
		if ne.Uint32(want[12:]) != 0 {
			t.Errorf("%s/%s: rdma sent nlmsg_pid %d, expected 0", c.dir, c.file, ne.Uint32(want[12:]))
		}
		if !bytes.Equal(c.got, normalise(want)) {
			t.Errorf("%s/%s:\n got  %s\n want %s", c.dir, c.file, hex.EncodeToString(c.got), hex.EncodeToString(normalise(want)))
		}
	}
}

// Layouts from the reference (rdma-netlink.md) for requests the captures
// do not contain.
func TestRequestLayouts(t *testing.T) {
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		// len 24, type 0x1400+5, REQUEST|ACK|DUMP, DEV_INDEX(1)=7
		{"port dump", PortDumpRequest(7), "18000000" + "0514" + "0503" + "00000000" + "00000000" + "0800" + "0100" + "07000000"},
		// len 16, type 0x1400+6, REQUEST|ACK, no attributes
		{"sys get", SysGetRequest(), "10000000" + "0614" + "0500" + "00000000" + "00000000"},
		// STAT_GET without DUMP and without STAT_RES
		{"stat get", StatGetRequest(2, 3), "20000000" + "1114" + "0500" + "0000000000000000" + "080001000200000008000300" + "03000000"},
	}
	for _, c := range cases {
		if got := hex.EncodeToString(c.got); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
	for cmd, want := range map[uint16]uint16{CmdGet: 5121, CmdResQPGet: 5130, CmdStatGet: 5137} {
		if got := MsgType(cmd); got != want {
			t.Errorf("MsgType(%d) = %d, want %d", cmd, got, want)
		}
	}
}

func TestSetSeq(t *testing.T) {
	req := DevGetRequest(1)
	s := SetSeq(req, 0x01020304)
	if ne.Uint32(s[8:]) != 0x01020304 || ne.Uint32(s[12:]) != 0 {
		t.Fatalf("SetSeq: % x", s)
	}
	if ne.Uint32(req[8:]) != 0 {
		t.Fatal("SetSeq changed its argument")
	}
	if got := SetSeq([]byte{1, 2}, 5); !bytes.Equal(got, []byte{1, 2}) {
		t.Fatalf("short message changed: % x", got)
	}
}
