package dcb

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/dcb")

func littleEndian(t *testing.T) {
	t.Helper()
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("byte-for-byte layouts below are written for a little-endian host")
	}
}

// TestStructLayouts checks the encoder (and so the parser, by the
// round trips below) against the offsets in the reference doc.
func TestStructLayouts(t *testing.T) {
	littleEndian(t)
	p := &PFC{Cap: 8, Mask: 0x08, MBC: true, Delay: 0x0102}
	p.Requests[0], p.Requests[7] = 0x1111, 0x7777
	p.Indications[0], p.Indications[7] = 0x2222, 0x8888
	b := encPFC(p)
	if len(b) != sizePFC {
		t.Fatalf("ieee_pfc: %d bytes, want 136", len(b))
	}
	for _, c := range []struct {
		off  int
		want []byte
	}{
		{0, []byte{8, 0x08, 1, 0}},      // pfc_cap, pfc_en, mbc, pad
		{4, []byte{0x02, 0x01, 0, 0}},   // delay (u16 at offset 4), pad
		{8, []byte{0x11, 0x11, 0, 0}},   // requests[0] at 8
		{64, []byte{0x77, 0x77, 0, 0}},  // requests[7] at 64
		{72, []byte{0x22, 0x22, 0, 0}},  // indications[0] at 72
		{128, []byte{0x88, 0x88, 0, 0}}, // indications[7] at 128
	} {
		if got := b[c.off : c.off+len(c.want)]; !bytes.Equal(got, c.want) {
			t.Errorf("ieee_pfc at %d: % x, want % x", c.off, got, c.want)
		}
	}
	e := &ETS{Willing: true, ETSCap: 8, CBS: false, TCTxBW: [8]uint8{9}, RecoPrio: [8]uint8{7: 5}}
	eb := encETS(e)
	if len(eb) != sizeETS || eb[0] != 1 || eb[1] != 8 || eb[3] != 9 || eb[58] != 5 {
		t.Errorf("ieee_ets: % x", eb)
	}
	if a := encApp(App{Selector: 5, Priority: 3, Protocol: 26}); !bytes.Equal(a, []byte{5, 3, 26, 0}) {
		t.Errorf("dcb_app: % x", a)
	}
	buf := encBuffer(&Buffer{Prio2Buffer: [8]uint8{3: 1}, BufferSize: [8]uint32{0x10}, TotalSize: 0x20})
	if len(buf) != sizeBuffer || buf[3] != 1 || buf[8] != 0x10 || buf[40] != 0x20 {
		t.Errorf("dcbnl_buffer: % x", buf)
	}
}

// TestParseIEEEBytes decodes a reply written out by hand, byte for byte.
func TestParseIEEEBytes(t *testing.T) {
	littleEndian(t)
	msg, _ := hex.DecodeString(strings.Join([]string{
		"00150000",         // dcbmsg: AF_UNSPEC, DCB_CMD_IEEE_GET (21), pad
		"0900" + "0100",    // DCB_ATTR_IFNAME, len 9
		"6574683000000000", // "eth0\0" + 3 pad
		"1800" + "0d80",    // DCB_ATTR_IEEE | NLA_F_NESTED, len 24
		"1400" + "0300",    //   DCB_ATTR_IEEE_APP_TABLE, len 20
		"0800" + "0100",    //     DCB_ATTR_IEEE_APP, len 8
		"05031a00",         //     dscp 26 -> prio 3
		"0800" + "0200",    //     DCB_ATTR_DCB_APP, len 8
		"ff020100",         //     pcp 1 -> prio 2
		"0500" + "0e00",    // DCB_ATTR_DCBX, len 5
		"0a000000",         // host | ieee, pad
	}, ""))
	c, err := ParseIEEE(msg)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Ifname:  "eth0",
		DCBX:    &DCBX{Mode: 0x0a, Flags: []string{"lld_managed", "ieee"}},
		Apps:    []App{{5, "dscp", 3, 26}, {255, "pcp", 2, 1}},
		Trust:   Trust{Mode: "dscp", Source: TrustFromDSCPApps},
		DSCPMap: []DSCPPrio{{26, 3}},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
}

func TestRoundTrip(t *testing.T) {
	for name, c := range map[string]Config{"mlx5-like": mlx5Like(), "with-peers": withPeers()} {
		t.Run(name, func(t *testing.T) {
			got, err := ParseIEEE(encodeIEEE(c))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c) {
				gj, _ := json.MarshalIndent(got, "", " ")
				wj, _ := json.MarshalIndent(c, "", " ")
				t.Errorf("round trip differs\ngot  %s\nwant %s", gj, wj)
			}
		})
	}
}

// A DCB reply recorded on a host of the other byte order (s390x read on
// amd64) decodes to the same configuration through Recorded.
func TestRecordedOnTheOtherByteOrder(t *testing.T) {
	c := withPeers()
	other, otherName := binary.AppendByteOrder(binary.BigEndian), "big"
	if nlmsg.NativeName() == "big" {
		other, otherName = binary.LittleEndian, "little"
	}
	var ieee, dcbx []byte
	encodedOn(other, func() {
		ieee, dcbx = encodeIEEE(c), encodeU8Reply(CmdGetDCBX, attrDCBX, c.DCBX.Mode)
	})
	raws := map[string]Raw{c.Ifname: {Ifname: c.Ifname, Replies: []Reply{{Cmd: CmdIEEEGet, Payload: ieee}, {Cmd: CmdGetDCBX, Payload: dcbx}}}}
	rec, err := NewRecorded(raws, otherName)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := ProbeContext(context.Background(), rec, c.Ifname)
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Errorf("recorded on a %s-endian host: %v\ngot  %+v\nwant %+v", otherName, err, got, c)
	}
	// Read as this host's own, the same bytes are something else.
	if same, _, _ := ProbeContext(context.Background(), Fake(raws), c.Ifname); reflect.DeepEqual(same, c) {
		t.Error("the other byte order decoded the same natively: the test proves nothing")
	}
	if _, err := NewRecorded(raws, "pdp"); err == nil {
		t.Error("a byte order neither little nor big was taken")
	}
}

// TestGolden pins the JSON of a decoded configuration (field names are a
// contract) and the Raw a Fake-backed Read records.
func TestGolden(t *testing.T) {
	c := mlx5Like()
	f := Fake{c.Ifname: {Ifname: c.Ifname, Replies: []Reply{
		{Cmd: CmdIEEEGet, Payload: encodeIEEE(c)},
		{Cmd: CmdGetDCBX, Payload: encodeU8Reply(CmdGetDCBX, attrDCBX, c.DCBX.Mode)},
		{Cmd: CmdGetState, Payload: encodeU8Reply(CmdGetState, attrState, 1)},
	}}}
	got, raw, err := ProbeContext(context.Background(), f, c.Ifname)
	if err != nil {
		t.Fatal(err)
	}
	on := true
	c.State = &on
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("Probe: %+v", got)
	}
	for file, v := range map[string]any{"mlx5-like.config.json": got, "mlx5-like.raw.json": raw} {
		b, _ := json.MarshalIndent(v, "", "  ")
		b = append(b, '\n')
		path := filepath.Join("..", "..", "testdata", "dcb", file)
		if *update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s differs from the golden file:\n%s", file, b)
		}
	}
	// The recorded Raw replays to the same Config.
	var back Raw
	b, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "dcb", "mlx5-like.raw.json"))
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if again, err := Decode(back); err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("replay of the recorded Raw: %v %+v", err, again)
	}
}

func TestDecodeErrnos(t *testing.T) {
	for _, c := range []struct {
		errno  syscall.Errno
		state  probes.State
		is     error
		detail string
	}{
		{syscall.EOPNOTSUPP, probes.StateNotSupported, probes.ErrNotSupported, "eth0: driver has no DCB support"},
		{syscall.ENODEV, probes.StateFailed, ErrNoSuchInterface, "eth0: no such network interface"},
		{syscall.EPERM, probes.StatePermissionDenied, os.ErrPermission, "needs CAP_NET_ADMIN"},
		{syscall.EINVAL, probes.StateFailed, syscall.EINVAL, "invalid argument"},
	} {
		raw, err := ReadContext(context.Background(), Fake{"eth0": {Replies: []Reply{{Cmd: CmdIEEEGet, Errno: int(c.errno)}}}}, "eth0")
		if err != nil {
			t.Fatal(err)
		}
		if len(raw.Replies) != 1 {
			t.Errorf("%v: sent %d commands after IEEE_GET failed", c.errno, len(raw.Replies))
		}
		_, err = Decode(raw)
		st := probes.StatusOf("dcb eth0", err)
		if !errors.Is(err, c.is) || st.State != c.state || !strings.Contains(st.Detail, c.detail) {
			t.Errorf("%v: err %v, status %+v", c.errno, err, st)
		}
	}
	// A driver with IEEE ops but neither getdcbx nor getstate.
	c := Config{Ifname: "eth1", Apps: []App{}, Trust: Trust{Mode: "pcp", Source: TrustFromNoDSCPApps}, DSCPMap: []DSCPPrio{}}
	got, _, err := ProbeContext(context.Background(), Fake{"eth1": {Replies: []Reply{{Cmd: CmdIEEEGet, Payload: encodeIEEE(c)}}}}, "eth1")
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Errorf("no DCBX/state ops: %v %+v", err, got)
	}
	if _, err := Decode(Raw{Ifname: "x"}); err == nil {
		t.Error("Decode without an IEEE reply: no error")
	}
	if _, _, err := ProbeContext(context.Background(), Fake{}, "nope"); !errors.Is(err, ErrNoSuchInterface) {
		t.Errorf("unknown netdev in Fake: %v", err)
	}
}

type brokenQuerier struct{}

func (brokenQuerier) Query(string, Command) ([]byte, error) {
	return nil, errors.New("socket: too many open files")
}

func TestReadTransportError(t *testing.T) {
	if _, err := ReadContext(context.Background(), brokenQuerier{}, "eth0"); err == nil || !strings.Contains(err.Error(), "too many open files") {
		t.Errorf("got %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	c := mlx5Like()
	good := encodeIEEE(c)
	for name, b := range map[string][]byte{
		"empty":        nil,
		"short header": {0, 21},
		"wrong cmd":    encodeU8Reply(CmdGetDCBX, attrDCBX, 1),
		"truncated":    good[:len(good)-40],
		"attr too long": func() []byte {
			b := append([]byte(nil), good...)
			binary.NativeEndian.PutUint16(b[4:], 0xfff0)
			return b
		}(),
	} {
		if _, err := ParseIEEE(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A short ieee_pfc (an older or foreign layout) is an error, not zeros.
	var n enc
	n.attr(ieeePFC, make([]byte, 100))
	e := enc{b: []byte{0, 21, 0, 0}}
	e.attr(attrIEEE, n.b)
	if _, err := ParseIEEE(e.b); err == nil || !strings.Contains(err.Error(), "DCB_ATTR_IEEE_PFC: 100 bytes") {
		t.Errorf("short PFC: %v", err)
	}
	if _, err := ParseDCBX(encodeU8Reply(CmdGetDCBX, attrState, 1)); err == nil {
		t.Error("GDCBX without DCB_ATTR_DCBX: no error")
	}
	if _, err := ParseState(encodeU8Reply(CmdGetState, attrDCBX, 1)); err == nil {
		t.Error("GSTATE without DCB_ATTR_STATE: no error")
	}
}

func TestUnknownAttrsSkipped(t *testing.T) {
	var n enc
	n.attr(8, make([]byte, 12)) // DCB_ATTR_IEEE_QCN
	n.attr(ieeeAppTable, nil)
	e := enc{b: []byte{0, 21, 0, 0}}
	e.attr(attrIEEE, n.b)
	c, err := ParseIEEE(e.b)
	if err != nil || !reflect.DeepEqual(c.Skipped, []uint16{8}) || c.Apps == nil || len(c.Apps) != 0 {
		t.Errorf("%v %+v", err, c)
	}
}

func TestDeriveTrust(t *testing.T) {
	if tr := DeriveTrust(nil, nil); !reflect.DeepEqual(tr, Trust{}) {
		t.Errorf("no data: %+v", tr)
	}
	if tr := DeriveTrust([]uint8{}, nil); tr.Mode != "none" || tr.Source != TrustFromTable {
		t.Errorf("empty trust table: %+v", tr)
	}
	if tr := DeriveTrust([]uint8{SelDSCP, SelPCP}, nil); tr.Mode != "dscp" || !reflect.DeepEqual(tr.Order, []string{"dscp", "pcp"}) {
		t.Errorf("trust table: %+v", tr)
	}
	if tr := DeriveTrust(nil, []App{{Selector: SelEthertype}}); tr.Mode != "pcp" {
		t.Errorf("no DSCP apps: %+v", tr)
	}
}

func TestSnapshot(t *testing.T) {
	s := mlx5Like().Snapshot()
	want := probes.DCBConfig{Netdev: "enp59s0f0np0", PFCEnabled: []int{3}, Trust: "dscp",
		DSCPToPrio: map[int]int{26: 3, 48: 6}, PrioToTC: []int{0, 1, 2, 3, 4, 5, 6, 7},
		TCTSA: []string{"ets", "ets", "ets", "ets", "ets", "ets", "strict", "ets"}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("%+v", s)
	}
	if s := (Config{Ifname: "x"}).Snapshot(); len(s.PFCEnabled) != 0 || s.Trust != "" || s.DSCPToPrio != nil || s.PrioToTC != nil {
		t.Errorf("empty config: %+v", s)
	}
}

func BenchmarkParseIEEE(b *testing.B) {
	msg := encodeIEEE(mlx5Like())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseIEEE(msg); err != nil {
			b.Fatal(err)
		}
	}
}
