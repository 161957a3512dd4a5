package kmsg

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func u64(v uint64) *uint64 { return &v }
func intp(v int) *int      { return &v }

func TestParseRecord(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want Record
	}{
		// Shapes as read from /dev/kmsg (Documentation/ABI/testing/dev-kmsg).
		{"6,194,289791,-;acpi PNP0A08:00: _OSC: OS supports [ExtendedConfig]\n SUBSYSTEM=acpi\n DEVICE=+acpi:PNP0A08:00\n",
			Record{Facility: intp(0), Level: intp(6), Seq: u64(194), Usec: u64(289791), Flags: "-",
				Message: "acpi PNP0A08:00: _OSC: OS supports [ExtendedConfig]", Dict: map[string]string{"SUBSYSTEM": "acpi", "DEVICE": "+acpi:PNP0A08:00"}}},
		{"3,1017,86052344,-,caller=T1234;infiniband rxe1: set down",
			Record{Facility: intp(0), Level: intp(3), Seq: u64(1017), Usec: u64(86052344), Flags: "-", Caller: "T1234", Message: "infiniband rxe1: set down"}},
		// A user-space write (facility user, level notice) with an escaped byte and a ';' in the text.
		{"13,5,123,c;rdmatop test\\x0aline; two\n",
			Record{Facility: intp(1), Level: intp(5), Seq: u64(5), Usec: u64(123), Flags: "c", Message: "rdmatop test\\x0aline; two"}},
	} {
		got, err := ParseRecord(c.raw)
		if err != nil {
			t.Errorf("%q: %v", c.raw, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\ngot  %+v\nwant %+v", c.raw, got, c.want)
		}
	}
	r, _ := ParseRecord("13,5,123,-;x")
	if r.LevelName() != "notice" || r.FacilityName() != "user" {
		t.Errorf("%q %q", r.LevelName(), r.FacilityName())
	}
	r, _ = ParseRecord("190,5,123,-;x") // local7.info
	if r.LevelName() != "info" || r.FacilityName() != "local7" {
		t.Errorf("%q %q", r.LevelName(), r.FacilityName())
	}
	if (Record{}).LevelName() != "" || (Record{}).FacilityName() != "" {
		t.Error("unknown level/facility should be empty")
	}
	for _, bad := range []string{"", "no header", "6,1,2;short header", "x,1,2,-;m", "6,x,2,-;m", "6,1,x,-;m"} {
		if _, err := ParseRecord(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if s, ok := seqOf("6,4711,1,-;x"); !ok || s != 4711 {
		t.Errorf("seqOf: %d %v", s, ok)
	}
	if _, ok := seqOf("garbage"); ok {
		t.Error("seqOf(garbage) ok")
	}
}

func TestParseText(t *testing.T) {
	for _, c := range []struct {
		line string
		want Record
	}{
		{"[   86.052344] infiniband rxe1: set down", Record{Usec: u64(86052344), Message: "infiniband rxe1: set down"}},
		{"[   72.095943]     Performance counters on", Record{Usec: u64(72095943), Message: "    Performance counters on"}},
		{"<6>[    0.000000] Linux version 6.1.0", Record{Facility: intp(0), Level: intp(6), Usec: u64(0), Message: "Linux version 6.1.0"}},
		{"[  244.945440][ T3106] oom-kill:constraint=CONSTRAINT_NONE", Record{Usec: u64(244945440), Caller: "T3106", Message: "oom-kill:constraint=CONSTRAINT_NONE"}},
		{"[12345.678] short fraction", Record{Usec: u64(12345678000), Message: "short fraction"}},
		{"[Tue Feb 14 18:48:25 2023] mlx5_core 0000:02:00.0 ens2f0np0: Link down", Record{Stamp: "Tue Feb 14 18:48:25 2023", Wall: time.Date(2023, 2, 14, 18, 48, 25, 0, time.UTC), Message: "mlx5_core 0000:02:00.0 ens2f0np0: Link down"}},
		{"Nov  8 19:38:07 MSI-CR61-3M kernel: [  424.479443] watchdog: BUG: soft lockup", Record{Stamp: "Nov  8 19:38:07", Host: "MSI-CR61-3M", Usec: u64(424479443), Message: "watchdog: BUG: soft lockup"}},
		{"Nov 29 13:06:13 pve2-xxx kernel: infiniband bnxt_re0: Couldn't open port 1", Record{Stamp: "Nov 29 13:06:13", Host: "pve2-xxx", Message: "infiniband bnxt_re0: Couldn't open port 1"}},
	} {
		got, ok := ParseText(c.line)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: ok=%v\ngot  %+v\nwant %+v", c.line, ok, got, c.want)
		}
	}
	if r, ok := ParseText("just words"); ok || r.Message != "just words" {
		t.Errorf("unprefixed: %v %+v", ok, r)
	}
}

// TestParseLinesRxe parses the Soft-RoCE lab's real dmesg: one record per
// timestamped line; the one multi-line record is rebuilt.
func TestParseLinesRxe(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testdata, "rxe-faults", "dmesg-all.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	stamped := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "[") {
			stamped++
		}
	}
	recs := ParseLines(string(b))
	if len(recs) != stamped || len(lines)-stamped != 3 {
		t.Fatalf("%d records from %d stamped of %d lines", len(recs), stamped, len(lines))
	}
	var multi *Record
	for i := range recs {
		if strings.HasPrefix(recs[i].Message, "Unstable clock detected") {
			multi = &recs[i]
		}
	}
	want := "Unstable clock detected, switching default tracing clock to \"global\"\n" +
		"If you want to keep using the local clock, then add:\n" +
		"  \"trace_clock=local\"\n" +
		"on the kernel command line"
	if multi == nil || multi.Message != want || *multi.Usec != 6922947 {
		t.Errorf("multi-line record: %+v", multi)
	}
	last := recs[len(recs)-1]
	if *last.Usec != 118378916 || last.Message != "device veth0 left promiscuous mode" {
		t.Errorf("last: %+v", last)
	}
	// A line without a prefix and not indented stands alone; an indented
	// one continues it.
	r := ParseLines("[ 1.0] a\nplain\n  indented\n\n")
	if len(r) != 2 || r[0].Message != "a" || r[1].Message != "plain\n  indented" || r[1].Usec != nil {
		t.Errorf("%+v", r)
	}
}

func BenchmarkParseRecord(b *testing.B) {
	raw := "6,194,289791,-;acpi PNP0A08:00: _OSC: OS supports [ExtendedConfig ASPM ClockPM Segments MSI HPX-Type3]\n SUBSYSTEM=acpi\n DEVICE=+acpi:PNP0A08:00\n"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRecord(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseLines(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(testdata, "rxe-faults", "dmesg-all.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		ParseLines(string(data))
	}
}
