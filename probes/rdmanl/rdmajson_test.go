package rdmanl

import "testing"

// rdma's JSON and the netlink bytes it printed it from give equal QPs.
func TestParseRdmaJSONQPs(t *testing.T) {
	for _, dir := range []string{"res_show_qp", "d_res_show_qp"} {
		fromJSON, err := ParseRdmaJSONQPs(fixture(t, "netlink", dir, "rdma-output.json"))
		if err != nil {
			t.Fatal(err)
		}
		var fromNL []QP
		for _, f := range [][]string{{"08", "09"}, {"14", "15"}} {
			qps, err := ParseQPs(recv(t, dir, f...))
			if err != nil {
				t.Fatal(err)
			}
			fromNL = append(fromNL, qps...)
		}
		if len(fromJSON) != len(fromNL) {
			t.Fatalf("%s: %d vs %d", dir, len(fromJSON), len(fromNL))
		}
		for i := range fromNL {
			q := fromNL[i]
			q.Comm = fromJSON[i].Comm // netlink has no comm; rdma read /proc
			if fromJSON[i] != q {
				t.Errorf("%s %d:\n json    %+v\n netlink %+v", dir, i, fromJSON[i], q)
			}
		}
	}
	// A QP in RESET has no port (faults/invreq timeline).
	qps, err := ParseRdmaJSONQPs([]byte(`[{"ifindex":1,"ifname":"rxe1","lqpn":25,"rqpn":0,"type":"RC","state":"RESET","rq-psn":0,"sq-psn":0,"path-mig-state":"MIGRATED","pdn":2,"pid":1507,"comm":"python3"}]`))
	if err != nil || qps[0].Port != 0 || qps[0].State != QPReset || qps[0].Comm != "python3" || !qps[0].HasRQPN {
		t.Errorf("%+v %v", qps, err)
	}
	for _, bad := range []string{`{}`, `[{"ifname":"x"}]`, `[{"ifindex":0,"lqpn":1,"type":"XX","state":"RTS"}]`,
		`[{"ifindex":0,"lqpn":1,"type":"RC","state":"ZZ"}]`, `[{"ifindex":0,"lqpn":1,"type":"RC","state":"RTS","path-mig-state":"?"}]`} {
		if _, err := ParseRdmaJSONQPs([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
