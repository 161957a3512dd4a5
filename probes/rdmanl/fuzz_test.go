package rdmanl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// FuzzParse: no input makes a parser panic. Seeds are every captured
// receive buffer, the synthetic monitor events, and error messages.
// Run: go test -run '^$' -fuzz FuzzParse -fuzztime 60s ./probes/rdmanl/
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtureRoot, "netlink", "*", "*-recv.bin"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(nlerr(1, nlmsg.FlagCapped|nlmsg.FlagAckTLVs, tlv(nlmsg.ErrAttrMsg, strb("x"))))
	f.Add(fixture(f, "netlink", "res_show_qp", "rdma-output.json"))
	f.Add(msg(nlmsg.TypeDone, nlmsg.FlagMulti|nlmsg.FlagAckTLVs, negErrno(22), tlv(nlmsg.ErrAttrMsg, strb("y"))))
	f.Fuzz(func(t *testing.T, b []byte) {
		split := [][]byte{b}
		if len(b) > 1 {
			k := int(b[0]) % len(b)
			split = [][]byte{b[:k], b[k:]}
		}
		for _, r := range [][][]byte{{b}, split} {
			_, _ = ParseDevices(r)
			_, _ = ParsePorts(r)
			_, _ = ParseStats(r)
			_, _ = ParseSys(r)
			if qps, err := ParseQPs(r); err == nil {
				for _, q := range qps {
					_ = q.Type.String() + q.State.String() + q.PathMig.String() + q.Owner()
				}
			}
		}
		_, _ = nlmsg.Split(b)
		_, _ = ParseRdmaJSONQPs(b)
	})
}

// BenchmarkParseQPs: one device's QP dump (5 QPs, 432 bytes + DONE).
func BenchmarkParseQPs(b *testing.B) {
	r := recv(b, "res_show_qp", "08", "09")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseQPs(r); err != nil {
			b.Fatal(err)
		}
	}
}
