package kmsg

import (
	"reflect"
	"testing"
	"time"
)

// TestParseTextFormats: the journalctl and dmesg formats customers paste,
// with the stamp kept as text and, where it has a year, parsed.
func TestParseTextFormats(t *testing.T) {
	const msg = "mlx5_core 0000:5c:00.0: Port module event: module 0, Cable unplugged"
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	for _, c := range []struct {
		name, line, stamp, host string
		usec                    *uint64
		wall                    time.Time
	}{
		{"journalctl short", "Dec 01 14:54:40 ny2 kernel: " + msg, "Dec 01 14:54:40", "ny2", nil, time.Time{}},
		{"syslog", "Dec  1 14:54:40 ny2 kernel: " + msg, "Dec  1 14:54:40", "ny2", nil, time.Time{}},
		{"journalctl short-precise", "Dec 01 14:54:40.123456 ny2 kernel: " + msg, "Dec 01 14:54:40.123456", "ny2", nil, time.Time{}},
		{"journalctl short-iso", "2024-12-01T14:54:40+0000 ny2 kernel: " + msg, "2024-12-01T14:54:40+0000", "ny2", nil, utc(2024, 12, 1, 14, 54, 40, 0)},
		{"journalctl short-iso, offset", "2024-12-01T15:54:40+01:00 ny2 kernel: " + msg, "2024-12-01T15:54:40+01:00", "ny2", nil, utc(2024, 12, 1, 14, 54, 40, 0)},
		{"journalctl short-iso-precise", "2024-12-01T14:54:40.123456+0000 ny2 kernel: " + msg, "2024-12-01T14:54:40.123456+0000", "ny2", nil, utc(2024, 12, 1, 14, 54, 40, 123456000)},
		{"journalctl short-full", "Sun 2024-12-01 14:54:40 UTC ny2 kernel: " + msg, "Sun 2024-12-01 14:54:40 UTC", "ny2", nil, utc(2024, 12, 1, 14, 54, 40, 0)},
		{"journalctl short-monotonic", "[  123.456789] ny2 kernel: " + msg, "", "ny2", u64(123456789), time.Time{}},
		{"dmesg -T", "[Sun Dec  1 14:54:40 2024] " + msg, "Sun Dec  1 14:54:40 2024", "", nil, utc(2024, 12, 1, 14, 54, 40, 0)},
		{"dmesg -T, host", "[Sun Dec  1 14:54:40 2024] ny2 kernel: " + msg, "Sun Dec  1 14:54:40 2024", "ny2", nil, utc(2024, 12, 1, 14, 54, 40, 0)},
		{"dmesg --time-format iso", "2024-12-01T14:54:40,123456+00:00 " + msg, "2024-12-01T14:54:40,123456+00:00", "", nil, utc(2024, 12, 1, 14, 54, 40, 123456000)},
		{"syslog with printk time", "Dec  1 14:54:40 ny2 kernel: [  123.456789] " + msg, "Dec  1 14:54:40", "ny2", u64(123456789), time.Time{}},
	} {
		r, ok := ParseText(c.line)
		if !ok || r.Message != msg || r.Stamp != c.stamp || r.Host != c.host || !reflect.DeepEqual(r.Usec, c.usec) || !r.Wall.Equal(c.wall) {
			t.Errorf("%s: ok=%v %+v", c.name, ok, r)
		}
		if e, ok := Classify(r); !ok || e.Kind != KindModuleEvent || e.PCI != "0000:5c:00.0" || e.Driver != "mlx5_core" {
			t.Errorf("%s: classified %v %+v", c.name, ok, e)
		}
	}
}

func TestWallTime(t *testing.T) {
	r, _ := ParseText("Dec  1 14:54:40.5 ny2 kernel: x")
	if _, ok := r.WallTime(0, nil); ok {
		t.Error("a syslog stamp without a year was read")
	}
	if w, ok := r.WallTime(2024, nil); !ok || !w.Equal(time.Date(2024, 12, 1, 14, 54, 40, 5e8, time.UTC)) {
		t.Errorf("syslog + year: %v %v", w, ok)
	}
	cet := time.FixedZone("CET", 3600)
	r, _ = ParseText("Sun 2024-12-01 15:54:40 CET ny2 kernel: x")
	if !r.Wall.Equal(time.Date(2024, 12, 1, 15, 54, 40, 0, time.UTC)) {
		t.Errorf("short-full, zone name: Wall %v (the reading, as UTC)", r.Wall)
	}
	if w, ok := r.WallTime(0, cet); !ok || !w.Equal(time.Date(2024, 12, 1, 14, 54, 40, 0, time.UTC)) {
		t.Errorf("short-full in CET: %v %v", w, ok)
	}
	r, _ = ParseText("2024-12-01T14:54:40Z ny2 kernel: x")
	if w, ok := r.WallTime(1999, cet); !ok || !w.Equal(time.Date(2024, 12, 1, 14, 54, 40, 0, time.UTC)) {
		t.Errorf("iso Z: %v %v (its own offset wins)", w, ok)
	}
	for _, s := range []string{"", "Xyz 99 99:99:99", "2024-13-01T00:00:00+0000", "Sun Feb 30 14:54:40 2024"} {
		if _, ok := (Record{Stamp: s}).WallTime(2024, nil); ok {
			t.Errorf("%q read as a time", s)
		}
	}
}

// TestParseLinesPasted: what customers send: a prompt and command, the
// output, journalctl's markers, CRLF line ends and a byte order mark.
func TestParseLinesPasted(t *testing.T) {
	text := "\uFEFFjgeerling@nas01:~$ dmesg | grep mlx5\r\n" +
		"[   11.097374] mlx5_core 0004:01:00.0: Port module event: module 0, Cable plugged\r\n" +
		"[root@ny2 ~]# journalctl -k -o short-iso --no-pager\n" +
		"-- Logs begin at Sun 2024-12-01 00:00:01 UTC, end at Sun 2024-12-01 15:00:00 UTC. --\n" +
		"2024-12-01T14:54:40+0000 ny2 kernel: mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).\n" +
		"-- Boot 0123456789abcdef0123456789abcdef --\n" +
		"root@ny2:/var/log# sudo dmesg -T\n" +
		"$ dmesg\n" +
		"# dmesg -T\n" +
		"not a prompt: user@host:~$\n"
	recs := ParseLines(text)
	var msgs []string
	for _, r := range recs {
		msgs = append(msgs, r.Message)
	}
	want := []string{
		"mlx5_core 0004:01:00.0: Port module event: module 0, Cable plugged",
		"mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).",
		"not a prompt: user@host:~$",
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("messages:\n%q\nwant\n%q", msgs, want)
	}
}
