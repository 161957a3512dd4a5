package sysfs

import (
	"net/netip"
	"testing"
)

func TestParseEnum(t *testing.T) {
	for in, want := range map[string]Enum{
		"4: ACTIVE\n":  {4, "ACTIVE"},
		"5: LinkUp":    {5, "LinkUp"},
		"7: Phy Test":  {7, "Phy Test"},
		"6: usNIC UDP": {6, "usNIC UDP"},
		"0: <unknown>": {0, "<unknown>"},
	} {
		if got, err := ParseEnum(in); err != nil || got != want {
			t.Errorf("ParseEnum(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"ACTIVE", "x: ACTIVE", ""} {
		if _, err := ParseEnum(bad); err == nil {
			t.Errorf("ParseEnum(%q) accepted", bad)
		}
	}
	if s := (Enum{4, "ACTIVE"}).String(); s != "4: ACTIVE" {
		t.Error(s)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]Rate{
		"100 Gb/sec (4X EDR)\n": {"100 Gb/sec (4X EDR)", 100, "4X", "EDR"},
		"2.5 Gb/sec (1X SDR)":   {"2.5 Gb/sec (1X SDR)", 2.5, "1X", "SDR"},
		"10 Gb/sec (1X FDR10)":  {"10 Gb/sec (1X FDR10)", 10, "1X", "FDR10"},
		"400 Gb/sec (4X NDR)":   {"400 Gb/sec (4X NDR)", 400, "4X", "NDR"},
		"56 Gb/sec":             {"56 Gb/sec", 56, "", ""},
	} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"fast", "Gb/sec", "-1 Gb/sec (1X SDR)", ""} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}

func TestParseIDs(t *testing.T) {
	if g, err := ParseGUID("b8ce:f603:005a:3c10\n"); err != nil || g != 0xb8cef603005a3c10 {
		t.Errorf("guid %x %v", uint64(g), err)
	}
	for _, bad := range []string{"b8ce:f603:005a", "b8ce:f603:005a:3c10:0000", "zzzz:0:0:0", "12345:0:0:0", ""} {
		if _, err := ParseGUID(bad); err == nil {
			t.Errorf("ParseGUID(%q) accepted", bad)
		}
	}
	if a, err := ParseGID("0000:0000:0000:0000:0000:ffff:c0a8:0a0b\n"); err != nil || a != netip.MustParseAddr("::ffff:192.168.10.11") {
		t.Errorf("gid %v %v", a, err)
	}
	for _, bad := range []string{"fe80::1", "192.168.10.11", "::ffff:192.168.10.11", "fe80:0:0:0:0:0:0:1%eth0", "gggg:0000:0000:0000:0000:0000:0000:0000"} {
		if _, err := ParseGID(bad); err == nil {
			t.Errorf("ParseGID(%q) accepted", bad)
		}
	}
	for in, want := range map[string]uint64{"0x1a": 26, "0xffff\n": 0xffff, "0x04010000": 0x04010000} {
		if v, err := ParseHex(in); err != nil || v != want {
			t.Errorf("ParseHex(%q) = %d %v", in, v, err)
		}
	}
	if _, err := ParseHex("26"); err == nil {
		t.Error("ParseHex without 0x accepted")
	}
	if _, err := parseHex16("0x10000"); err == nil {
		t.Error("17-bit LID accepted")
	}
}

func TestParseCounter(t *testing.T) {
	for in, want := range map[string]uint64{"0\n": 0, " 42 \n": 42, "18446744073709551615": 1<<64 - 1} {
		if v, err := ParseCounter(in); err != nil || v != want {
			t.Errorf("ParseCounter(%q) = %d %v", in, v, err)
		}
	}
	for _, bad := range []string{"", "\n", "-1", "N/A (no PMA)", "1e3", "0x10", "18446744073709551616", "12 34"} {
		if _, err := ParseCounter(bad); err == nil {
			t.Errorf("ParseCounter(%q) accepted", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"4: ACTIVE", "100 Gb/sec (4X EDR)", "b8ce:f603:005a:3c10", "fe80:0000:0000:0000:bace:f6ff:fe5a:3c10", "0x1a", "12345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ParseEnum(s)
		ParseRate(s)
		if v, err := ParseCounter(s); err == nil {
			if w, na, err := ParseCounterValue(s); err != nil || na || w != v {
				t.Errorf("ParseCounterValue(%q) = %d, %v, %v; ParseCounter %d", s, w, na, err, v)
			}
		}
		ParseHex(s)
		if g, err := ParseGUID(s); err == nil {
			if back, err := ParseGUID(g.String()); err != nil || back != g {
				t.Errorf("GUID %q does not round-trip", s)
			}
		}
		if a, err := ParseGID(s); err == nil && !a.Is6() {
			t.Errorf("GID %q parsed as %v", s, a)
		}
	})
}
