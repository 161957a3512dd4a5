package pcapfile

import (
	"os"
	"testing"
)

// Sniff knows the containers by their first bytes: real files, and the
// byte orders and time resolutions pcap allows.
func TestSniff(t *testing.T) {
	for path, want := range map[string]Format{
		"../../testdata/pcaps/oferby-proxy_roce.pcap":       FormatPcap,
		"../../testdata/pcaps/oferby-proxy_roce.pcapng":     FormatPcapNG,
		"../../testdata/wiretruth/clean-send/veth0.pcap.gz": "", // gzip: inflate first
		"../../testdata/MANIFEST.md":                        "",
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := Sniff(b); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	for _, c := range []struct {
		head []byte
		want Format
	}{
		{[]byte{0xd4, 0xc3, 0xb2, 0xa1}, FormatPcap}, // little-endian, µs
		{[]byte{0xa1, 0xb2, 0xc3, 0xd4}, FormatPcap}, // big-endian, µs
		{[]byte{0x4d, 0x3c, 0xb2, 0xa1}, FormatPcap}, // little-endian, ns
		{[]byte{0xa1, 0xb2, 0x3c, 0x4d}, FormatPcap}, // big-endian, ns
		{[]byte{0x0a, 0x0d, 0x0d, 0x0a}, FormatPcapNG},
		{[]byte{0x0a, 0x0d, 0x0d}, ""}, // too short to tell
		{nil, ""},
	} {
		if got := Sniff(c.head); got != c.want {
			t.Errorf("% x: %q, want %q", c.head, got, c.want)
		}
	}
}
