package rdmanl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// checkDevice compares one device with one object of `rdma -j dev`.
func checkDevice(t *testing.T, where string, d Device, o map[string]any) {
	t.Helper()
	if v, _ := num(o, "ifindex"); uint32(v) != d.Index {
		t.Errorf("%s: index %d, rdma says %d", where, d.Index, v)
	}
	if v, _ := str(o, "ifname"); v != d.Name {
		t.Errorf("%s: name %q, rdma says %q", where, d.Name, v)
	}
	if v, _ := str(o, "node_type"); v != d.NodeType.String() {
		t.Errorf("%s: node type %q, rdma says %q", where, d.NodeType, v)
	}
	if v, _ := str(o, "node_guid"); v != FormatGUID(d.NodeGUID) {
		t.Errorf("%s: node guid %s, rdma says %s", where, FormatGUID(d.NodeGUID), v)
	}
	if v, _ := str(o, "sys_image_guid"); v != FormatGUID(d.SysImageGUID) {
		t.Errorf("%s: sys image guid %s, rdma says %s", where, FormatGUID(d.SysImageGUID), v)
	}
	fw, ok := str(o, "fw")
	if ok != (d.FW != "") || fw != d.FW {
		t.Errorf("%s: fw %q, rdma says %q (present %v)", where, d.FW, fw, ok)
	}
}

func TestParseDevices(t *testing.T) {
	dump, err := ParseDevices(recv(t, "dev", "01", "02", "03"))
	if err != nil {
		t.Fatal(err)
	}
	want := rdmaJSON(t, "netlink", "dev", "rdma-output.json")
	if len(dump) != len(want) {
		t.Fatalf("%d devices, rdma printed %d", len(dump), len(want))
	}
	for i := range dump {
		checkDevice(t, "dump", dump[i], want[i])
	}
	// Facts not in rdma's JSON, from the same bytes (MANIFEST: rxe, one
	// port, RoCE, no firmware string).
	for _, d := range dump {
		if d.NumPorts != 1 || d.Protocol != "roce" || d.FW != "" || d.NodeType != 1 || d.DIM {
			t.Errorf("%s: %+v", d.Name, d)
		}
	}
	// rdma dev then GETs each device: same values.
	for i, f := range [][]string{{"05", "06"}, {"08", "09"}} {
		one, err := ParseDevices(recv(t, "dev", f...))
		if err != nil || len(one) != 1 {
			t.Fatalf("get %v: %v %v", f, one, err)
		}
		if one[0] != dump[i] {
			t.Errorf("get %d: %+v, dump had %+v", i, one[0], dump[i])
		}
		checkDevice(t, "get", one[0], want[i])
	}
	// The devices did not change over the jobs: every `rdma -j dev`
	// snapshot agrees.
	for _, f := range []string{"idle-rdma-dev.json", "qpup-rdma-dev.json", "final-rdma-dev.json"} {
		w := rdmaJSON(t, "rdma", f)
		for i := range dump {
			checkDevice(t, f, dump[i], w[i])
		}
	}
	// One buffer holding all three messages parses the same.
	joined, err := ParseDevices([][]byte{bytes.Join(recv(t, "dev", "01", "02", "03"), nil)})
	if err != nil || len(joined) != 2 || joined[0] != dump[0] || joined[1] != dump[1] {
		t.Errorf("one buffer: %+v %v", joined, err)
	}
}

func checkPort(t *testing.T, where string, p Port, o map[string]any) {
	t.Helper()
	if v, _ := num(o, "ifindex"); uint32(v) != p.DevIndex {
		t.Errorf("%s: dev index %d, rdma says %d", where, p.DevIndex, v)
	}
	if v, _ := str(o, "ifname"); v != p.Dev {
		t.Errorf("%s: dev %q, rdma says %q", where, p.Dev, v)
	}
	if v, _ := num(o, "port"); uint32(v) != p.Index {
		t.Errorf("%s: port %d, rdma says %d", where, p.Index, v)
	}
	if v, _ := str(o, "state"); v != p.State.String() {
		t.Errorf("%s: state %s, rdma says %s", where, p.State, v)
	}
	if v, _ := str(o, "physical_state"); v != p.PhysState.String() {
		t.Errorf("%s: phys state %s, rdma says %s", where, p.PhysState, v)
	}
	if v, _ := str(o, "netdev"); v != p.Netdev {
		t.Errorf("%s: netdev %q, rdma says %q", where, p.Netdev, v)
	}
	if v, _ := num(o, "netdev_index"); uint32(v) != p.NetdevIndex {
		t.Errorf("%s: netdev index %d, rdma says %d", where, p.NetdevIndex, v)
	}
	for _, k := range []string{"lid", "sm_lid", "lmc", "subnet_prefix"} {
		if _, ok := o[k]; ok {
			t.Errorf("%s: rdma printed %s for a RoCE port", where, k)
		}
	}
}

func TestParsePorts(t *testing.T) {
	want := rdmaJSON(t, "netlink", "link", "rdma-output.json")
	var got []Port
	for _, f := range [][]string{{"05", "06"}, {"08", "09"}} {
		ps, err := ParsePorts(recv(t, "link", f...))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ps...)
	}
	if len(got) != len(want) {
		t.Fatalf("%d ports, rdma printed %d", len(got), len(want))
	}
	for i := range got {
		checkPort(t, "link", got[i], want[i])
		if got[i].LID != 0 || got[i].CapFlags != 0 {
			t.Errorf("IB-only attributes on a RoCE port: %+v", got[i])
		}
	}
	for _, f := range []string{"idle-rdma-link.json", "qpup-rdma-link.json", "final-rdma-link.json", "linkup-rdma-link.json"} {
		w := rdmaJSON(t, "rdma", f)
		for i := range got {
			checkPort(t, f, got[i], w[i])
		}
	}
}

// checkQP compares a QP with one object of `rdma -j res show qp`, field
// by field, including which optional fields are present. comm is compared
// for kernel QPs (user QPs' comm comes from /proc, see client_test.go).
// With psn false the PSNs are not compared.
func checkQP(t *testing.T, where string, q QP, o map[string]any, psn bool) {
	t.Helper()
	where = fmt.Sprintf("%s %s/%d", where, q.Dev, q.LQPN)
	eqNum := func(k string, got uint64, has bool) {
		t.Helper()
		v, ok := num(o, k)
		if ok != has || v != got {
			t.Errorf("%s: %s = %d (present %v), rdma says %d (present %v)", where, k, got, has, v, ok)
		}
	}
	eqStr := func(k, got string, has bool) {
		t.Helper()
		if !has {
			got = ""
		}
		v, ok := str(o, k)
		if ok != has || v != got {
			t.Errorf("%s: %s = %q (present %v), rdma says %q (present %v)", where, k, got, has, v, ok)
		}
	}
	eqNum("ifindex", uint64(q.DevIndex), true)
	eqStr("ifname", q.Dev, true)
	eqNum("port", uint64(q.Port), q.Port != 0)
	eqNum("lqpn", uint64(q.LQPN), true)
	eqNum("rqpn", uint64(q.RQPN), q.HasRQPN)
	eqStr("type", q.Type.String(), true)
	eqStr("state", q.State.String(), true)
	if psn {
		eqNum("rq-psn", uint64(q.RQPSN), q.HasRQPSN)
		eqNum("sq-psn", uint64(q.SQPSN), true)
	}
	eqStr("path-mig-state", q.PathMig.String(), q.HasPathMig)
	eqNum("pdn", uint64(q.PDN), q.HasPDN)
	eqNum("pid", uint64(q.PID), q.HasPID)
	if q.KernOwner != "" {
		eqStr("comm", q.KernOwner, true)
	}
	if _, ok := o["comm"]; !ok {
		t.Errorf("%s: rdma printed no comm", where)
	}
}

func TestParseQPs(t *testing.T) {
	for _, dir := range []string{"res_show_qp", "d_res_show_qp"} {
		// rdma prints each QP in the pass whose PORT_INDEX equals the QP's
		// port: all QPs here are bound to port 1, so the JSON comes from
		// the second dump of each device (08, 14).
		want := rdmaJSON(t, "netlink", dir, "rdma-output.json")
		var got []QP
		for _, f := range [][]string{{"08", "09"}, {"14", "15"}} {
			qps, err := ParseQPs(recv(t, dir, f...))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, qps...)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d QPs, rdma printed %d", dir, len(got), len(want))
		}
		for i := range got {
			checkQP(t, dir, got[i], want[i], true)
		}
		// The port-0 dumps (05, 11) hold the same QPs (only PSNs moved).
		var first []QP
		for _, f := range [][]string{{"05", "06"}, {"11", "12"}} {
			qps, err := ParseQPs(recv(t, dir, f...))
			if err != nil {
				t.Fatal(err)
			}
			first = append(first, qps...)
		}
		for i := range first {
			checkQP(t, dir+" port-0 dump", first[i], want[i], false)
		}
	}
	// The same moment of job C as `rdma -j res show qp` run separately
	// (rdma/qpup-*): identical QPs, states and owners; PSNs of the
	// running traffic moved.
	got, err := ParseQPs(recv(t, "res_show_qp", "08", "09"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := ParseQPs(recv(t, "res_show_qp", "14", "15"))
	got = append(got, more...)
	for _, f := range []string{"qpup-rdma-res-qp.json", "qpup-rdma-res-qp-details.json"} {
		w := rdmaJSON(t, "rdma", f)
		if len(w) != len(got) {
			t.Fatalf("%s: %d QPs, netlink has %d", f, len(w), len(got))
		}
		for i := range got {
			checkQP(t, f, got[i], w[i], false)
		}
	}
	// Kernel QP: GSI QP 1 owned by ib_core, no PID, no PDN, no RQPN.
	gsi := got[4]
	if gsi.LQPN != 1 || gsi.Type != QPTypeGSI || gsi.KernOwner != "ib_core" || gsi.HasPID || gsi.HasPDN || gsi.HasRQPN || gsi.Owner() != "ib_core" {
		t.Errorf("GSI QP: %+v", gsi)
	}
}

// counterOrder reads the keys of each `rdma -j statistic` object in order.
func counterOrder(t *testing.T, b []byte) [][]string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var out [][]string
	depth := 0
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				depth++
				out = append(out, nil)
				expectKey = true
			case '}':
				depth--
			}
		case string:
			if depth == 1 && expectKey {
				out[len(out)-1] = append(out[len(out)-1], v)
				expectKey = false
				continue
			}
		}
		if depth == 1 && !expectKey {
			if _, isDelim := tok.(json.Delim); !isDelim || tok == json.Delim('}') {
				expectKey = true
			}
		}
	}
	return out
}

func TestParseStats(t *testing.T) {
	raw := fixture(t, "netlink", "statistic_show", "rdma-output.json")
	want := rdmaJSON(t, "netlink", "statistic_show", "rdma-output.json")
	order := counterOrder(t, raw)
	for i, f := range [][]string{{"05", "06"}, {"08", "09"}} {
		ss, err := ParseStats(recv(t, "statistic_show", f...))
		if err != nil || len(ss) != 1 {
			t.Fatalf("%v: %v %v", f, ss, err)
		}
		s := ss[0]
		o := want[i]
		if v, _ := str(o, "ifname"); v != s.Dev || s.DevIndex != uint32(i) {
			t.Errorf("dev %q/%d, rdma says %q", s.Dev, s.DevIndex, v)
		}
		if v, _ := num(o, "port"); uint32(v) != s.Port {
			t.Errorf("port %d, rdma says %d", s.Port, v)
		}
		if len(s.Counters) != len(o)-2 {
			t.Errorf("%s: %d counters, rdma printed %d", s.Dev, len(s.Counters), len(o)-2)
		}
		for j, c := range s.Counters {
			if v, ok := num(o, c.Name); !ok || v != c.Value {
				t.Errorf("%s %s = %d, rdma says %d (present %v)", s.Dev, c.Name, c.Value, v, ok)
			}
			if k := order[i][j+2]; k != c.Name {
				t.Errorf("%s counter %d is %s, rdma printed %s there", s.Dev, j, c.Name, k)
			}
		}
		if m := s.Map(); m["sent_pkts"] != s.Counters[0].Value || len(m) != len(s.Counters) {
			t.Errorf("Map: %v", m)
		}
	}
}
