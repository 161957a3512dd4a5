package kmsg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

var testdata = filepath.Join("..", "..", "testdata", "kmsg")

type fixtureLine struct {
	Raw      string            `json:"raw"`
	Kind     string            `json:"kind"`
	Severity string            `json:"severity"`
	Driver   *string           `json:"driver"`
	PCI      *string           `json:"pci"`
	IBDev    *string           `json:"ibdev"`
	Netdev   *string           `json:"netdev"`
	Stamp    string            `json:"stamp"`
	Host     string            `json:"host"`
	Fields   map[string]string `json:"fields"`
}

type fixtureGroup struct {
	Source    string        `json:"source"`
	Note      string        `json:"note"`
	Synthetic bool          `json:"synthetic"`
	Strip     string        `json:"strip"`
	Lines     []fixtureLine `json:"lines"`
}

func loadLines(t testing.TB) []fixtureGroup {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, "lines.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g []fixtureGroup
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestClassifyPublicLines checks every pattern against the real lines in
// testdata/kmsg/lines.json (and the few synthetic ones marked there):
// lines with a kind must classify exactly so, lines without one must not
// classify at all.
func TestClassifyPublicLines(t *testing.T) {
	kinds := map[Kind]int{}
	real := 0
	for _, g := range loadLines(t) {
		if g.Source == "" {
			t.Errorf("group without a source: %+v", g)
		}
		for _, l := range g.Lines {
			line := strings.TrimPrefix(l.Raw, g.Strip)
			recs := ParseLines(line)
			if len(recs) != 1 {
				t.Errorf("%q: %d records", l.Raw, len(recs))
				continue
			}
			r := recs[0]
			if l.Stamp != "" && r.Stamp != l.Stamp || l.Host != "" && r.Host != l.Host {
				t.Errorf("%q: stamp %q host %q", l.Raw, r.Stamp, r.Host)
			}
			e, ok := Classify(r)
			if l.Kind == "" {
				if ok {
					t.Errorf("%q: classified as %s, want nothing", l.Raw, e.Kind)
				}
				continue
			}
			if !ok {
				t.Errorf("%q: not classified, want %s", l.Raw, l.Kind)
				continue
			}
			kinds[e.Kind]++
			if !g.Synthetic {
				real++
			}
			if string(e.Kind) != l.Kind || string(e.Severity) != l.Severity {
				t.Errorf("%q: %s/%s, want %s/%s", l.Raw, e.Kind, e.Severity, l.Kind, l.Severity)
			}
			for name, c := range map[string]struct{ got, want *string }{
				"driver": {&e.Driver, l.Driver}, "pci": {&e.PCI, l.PCI}, "ibdev": {&e.IBDev, l.IBDev}, "netdev": {&e.Netdev, l.Netdev},
			} {
				if c.want != nil && *c.got != *c.want {
					t.Errorf("%q: %s %q, want %q", l.Raw, name, *c.got, *c.want)
				}
			}
			for k, v := range l.Fields {
				if e.Fields[k] != v {
					t.Errorf("%q: field %s = %q, want %q (fields %v)", l.Raw, k, e.Fields[k], v, e.Fields)
				}
			}
			if e.Message != r.Message || e.Meaning == "" {
				t.Errorf("%q: message %q meaning %q", l.Raw, e.Message, e.Meaning)
			}
		}
	}
	for _, r := range rxeRecords(t) {
		if e, ok := Classify(r); ok {
			kinds[e.Kind]++
		}
	}
	// Every rule's kind is exercised.
	for _, ru := range rules() {
		if kinds[ru.kind] == 0 {
			t.Errorf("kind %s has no fixture line", ru.kind)
		}
	}
	t.Logf("%d real lines classified, kinds: %v", real, kinds)
}

// TestClassifyEveryRule makes sure no rule is dead: each pattern matches
// at least one fixture line and wins it.
func TestClassifyEveryRule(t *testing.T) {
	rs := rules()
	hit := make([]bool, len(rs))
	msgs := []string{}
	for _, g := range loadLines(t) {
		for _, l := range g.Lines {
			msgs = append(msgs, ParseLines(strings.TrimPrefix(l.Raw, g.Strip))[0].Message)
		}
	}
	for _, r := range rxeRecords(t) {
		msgs = append(msgs, r.Message)
	}
	for _, l := range vendorLines {
		msgs = append(msgs, ParseLines(l.raw)[0].Message)
	}
	for _, m := range msgs {
		for i := range rs {
			if rs[i].re.MatchString(m) {
				if !strings.Contains(m, rs[i].hint) {
					t.Errorf("rule %d matches %q but its hint %q is not in it", i, m, rs[i].hint)
				}
				hit[i] = true
				break
			}
		}
	}
	for i, h := range hit {
		if !h {
			t.Errorf("rule %d (%s, %s) matches no fixture line", i, rs[i].kind, rs[i].re)
		}
	}
}

func rxeRecords(t testing.TB) []Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, "rxe-faults", "dmesg-all.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return ParseLines(string(b))
}

type wantEvent struct {
	usec  uint64
	kind  Kind
	ibdev string
}

// TestClassifyRxeFaults runs the classifier over the real dmesg of the
// Soft-RoCE fault lab (testdata/kmsg/rxe-faults): exactly these lines
// matter, and the link-down scenario shows the ports going down and back.
func TestClassifyRxeFaults(t *testing.T) {
	recs := rxeRecords(t)
	if len(recs) < 380 {
		t.Fatalf("%d records", len(recs))
	}
	var got []wantEvent
	for _, r := range recs {
		if r.Usec == nil {
			t.Errorf("record without a timestamp: %q", r.Message)
			continue
		}
		if e, ok := Classify(r); ok {
			got = append(got, wantEvent{*r.Usec, e.Kind, e.IBDev})
			if e.Kind == KindDeviceAdded && e.Netdev == "" {
				t.Errorf("%q: no netdev", r.Message)
			}
		}
	}
	want := []wantEvent{
		{10150927, KindModuleLoad, ""},
		{12709744, KindPortActive, "rxe0"},
		{12709850, KindDeviceAdded, "rxe0"},
		{12787738, KindPortActive, "rxe1"},
		{12787813, KindDeviceAdded, "rxe1"},
		{86052344, KindPortDown, "rxe1"},
		{86054147, KindPortDown, "rxe0"},
		{91303447, KindPortActive, "rxe1"},
		{91317119, KindPortActive, "rxe1"},
		{91318043, KindPortActive, "rxe0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("classified:\n%v\nwant\n%v", got, want)
	}

	// Per scenario: only retry-linkdown has RDMA events (the MANIFEST:
	// "dmesg: infiniband rxe1: set down, ..."); the others only show
	// tcpdump's promiscuous mode and tc modules.
	for _, sc := range []string{"access", "invreq", "remop", "retry", "retry-linkdown", "rnr-exceeded", "rnr-recover"} {
		b, err := os.ReadFile(filepath.Join(testdata, "rxe-faults", sc, "dmesg.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var kinds []Kind
		for _, r := range ParseLines(string(b)) {
			if e, ok := Classify(r); ok {
				kinds = append(kinds, e.Kind)
			}
		}
		var want []Kind
		if sc == "retry-linkdown" {
			want = []Kind{KindPortDown, KindPortDown, KindPortActive, KindPortActive, KindPortActive}
		}
		if !reflect.DeepEqual(kinds, want) {
			t.Errorf("%s: %v, want %v", sc, kinds, want)
		}
	}
}

func TestClassifyDict(t *testing.T) {
	r, err := ParseRecord("3,1001,4242,-;mlx5 watchdog says hello\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0")
	if err != nil {
		t.Fatal(err)
	}
	r.Message = "Fatal error 3 detected" // a message without the device prefix
	e, ok := Classify(r)
	if !ok || e.PCI != "0000:3b:00.0" || e.Kind != KindFWFatal {
		t.Errorf("%+v", e)
	}
	r.Dict = map[string]string{"DEVICE": "+infiniband:mlx5_2"}
	r.Message = "dump error cqe"
	if e, _ := Classify(r); e.IBDev != "mlx5_2" || e.Device() != "mlx5_2" {
		t.Errorf("%+v", e)
	}
}

func TestEventSnapshot(t *testing.T) {
	r := ParseLines("[   86.052344] infiniband rxe1: set down")[0]
	e, ok := Classify(r)
	if !ok {
		t.Fatal("not classified")
	}
	boot := time.Date(2026, 11, 29, 20, 49, 16, 0, time.UTC)
	s := e.Snapshot(boot)
	want := probes.Event{Time: boot.Add(86052344 * time.Microsecond), Source: "kmsg", Kind: "port_down", Severity: probes.SevWarning, Device: "rxe1",
		Detail: e.Meaning + ": infiniband rxe1: set down"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("%+v", s)
	}
	if s := e.Snapshot(time.Time{}); !s.Time.IsZero() {
		t.Errorf("no boot time: %v", s.Time)
	}
}

func BenchmarkClassify(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(testdata, "rxe-faults", "dmesg-all.txt"))
	if err != nil {
		b.Fatal(err)
	}
	recs := ParseLines(string(data))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range recs {
			Classify(r)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/line")
}

// Hardware is the NIC's own problems below RDMA: not the detail lines
// that follow a report (they repeat it), not port or link changes (their
// own rules), not the host's own troubles.
func TestKindHardware(t *testing.T) {
	for _, k := range []Kind{KindFWHealth, KindFWFatal, KindFWRecoveryFailed, KindFWCmdTimeout, KindFWCmdError,
		KindFWStall, KindPCIeAER, KindPCIePower, KindPCIeBandwidth, KindModuleEvent} {
		if !k.Hardware() {
			t.Errorf("%s: not hardware", k)
		}
	}
	for _, k := range []Kind{KindFWHealthDetail, KindPCIeAERDetail, KindLinkDown, KindPortDown, KindErrCQE,
		KindProbeFailed, KindPageAllocFailure, KindHungTask} {
		if k.Hardware() {
			t.Errorf("%s: hardware", k)
		}
	}
}
