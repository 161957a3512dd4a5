package twopoint

import (
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"
	"unsafe"
)

// The committed clean write run: untagged Ethernet, IPv4 (20 bytes), UDP,
// BTH; headers only (128 bytes), so no ICRC is checked and only the
// headers can tell a packet damaged.
const cleanRun = "../../testdata/wiretruth/clean-write"

// Byte offsets in those frames.
const (
	offTOS     = 14 + 1
	offTTL     = 14 + 8
	offIPSum   = 14 + 10
	offSrcLast = 14 + 15 // last byte of the IPv4 source
	offUDPSum  = 14 + 20 + 6
	offBTHResv = 14 + 20 + 8 + 4 // BTH byte 4: F, B, reserved
)

// fixIPv4Sum writes the IPv4 header checksum anew, as a router does.
func fixIPv4Sum(data []byte) {
	h := data[14 : 14+20]
	h[10], h[11] = 0, 0
	var s uint32
	for i := 0; i < len(h); i += 2 {
		s += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for s > 0xffff {
		s = s&0xffff + s>>16
	}
	binary.BigEndian.PutUint16(h[10:], ^uint16(s))
}

// editFromA rewrites B's capture of clean-write, passing each frame sent
// by A (192.168.77.1) to edit with its number among them, and returns
// the comparison of A's capture with it: the upstream-A totals.
func editFromA(t *testing.T, edit func(n int, data []byte)) Fate {
	t.Helper()
	return editBoth(t, nil, edit)
}

// editBoth edits A's frames in A's capture (atA, unless nil) and in B's.
func editBoth(t *testing.T, atA func(data []byte), atB func(n int, data []byte)) Fate {
	t.Helper()
	fromA := func(data []byte) bool { return len(data) > offBTHResv && data[12] == 0x08 && data[offSrcLast] == 1 }
	a := filepath.Join(cleanRun, "veth0.pcap.gz")
	if atA != nil {
		a = rewrite(t, a, func(data []byte, ts time.Time) (time.Time, bool) {
			if fromA(data) {
				atA(data)
			}
			return ts, true
		})
	}
	n := 0
	b := rewrite(t, filepath.Join(cleanRun, "veth1.pcap.gz"), func(data []byte, ts time.Time) (time.Time, bool) {
		if fromA(data) {
			atB(n, data)
			n++
		}
		return ts, true
	})
	r, err := CompareFiles(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var f Fate
	for _, s := range r.Segments {
		if s.Upstream == "A" {
			f = s.Fate
		}
	}
	if f.Sent == 0 || f.Sent != uint64(n) {
		t.Fatalf("A sent %d packets as compared, %d in B's capture", f.Sent, n)
	}
	return f
}

// A bit flipped on the way where no path writes, or where a path writes
// but not so, makes a packet corrupted even where its ICRC cannot be
// checked: every 97th packet of A's is damaged in one field in turn.
func TestHeaderDamageTold(t *testing.T) {
	flips := []struct {
		name string
		flip func(data []byte)
	}{
		{"UDP checksum", func(d []byte) { d[offUDPSum] ^= 0x10 }},
		{"BTH F/B bits", func(d []byte) { d[offBTHResv] ^= 0x40 }},
		{"TTL, checksum rewritten", func(d []byte) { d[offTTL] ^= 0x04; fixIPv4Sum(d) }},
		{"DSCP, checksum rewritten", func(d []byte) { d[offTOS] ^= 0x20; fixIPv4Sum(d) }},
		{"Not-ECT to ECT(1), checksum rewritten", func(d []byte) { d[offTOS] |= 1; fixIPv4Sum(d) }},
		{"Not-ECT to CE, checksum rewritten", func(d []byte) { d[offTOS] |= 3; fixIPv4Sum(d) }},
		{"TTL, checksum not", func(d []byte) { d[offTTL] ^= 0x01 }},
		{"IPv4 checksum", func(d []byte) { d[offIPSum] ^= 0x80 }},
	}
	base := editFromA(t, func(int, []byte) {})
	if base.Corrupted != 0 || base.Lost != 0 {
		t.Fatalf("clean run unedited: %+v", base)
	}
	for _, fl := range flips {
		damaged := uint64(0)
		got := editFromA(t, func(n int, data []byte) {
			if n%97 == 5 {
				fl.flip(data)
				damaged++
			}
		})
		if got.Corrupted != damaged || got.Delivered != base.Delivered-damaged || got.Lost != 0 || got.Duplicated != 0 {
			t.Errorf("%s flipped in %d packets: %+v", fl.name, damaged, got)
		}
	}
}

// What a path does to every packet of a flow is not damage: a routed
// hop (TTL one less), a switch remarking the class (DSCP 0 to 26), one
// clearing ECN at a domain's edge, each with the checksum rewritten, or
// a header field set on every packet.
func TestPathRewritesAreNotDamage(t *testing.T) {
	rewrites := []struct {
		name string
		edit func(data []byte)
	}{
		{"routed hop", func(d []byte) { d[offTTL]--; fixIPv4Sum(d) }},
		{"DSCP remarked", func(d []byte) { d[offTOS] = 26<<2 | d[offTOS]&3; fixIPv4Sum(d) }},
		// A field no path should touch, rewritten on every packet (as
		// a router sets a flow label the sender left zero): the path's.
		{"UDP checksum set", func(d []byte) { d[offUDPSum], d[offUDPSum+1] = 0x12, 0x34 }},
	}
	base := editFromA(t, func(int, []byte) {})
	for _, rw := range rewrites {
		got := editFromA(t, func(_ int, data []byte) { rw.edit(data) })
		if got != base {
			t.Errorf("%s: %+v, want %+v", rw.name, got, base)
		}
	}
	// Sent ECT(0), cleared on the way.
	ect0 := func(d []byte) { d[offTOS] |= 2; fixIPv4Sum(d) }
	got := editBoth(t, ect0, func(_ int, d []byte) { d[offTOS] &^= 3; fixIPv4Sum(d) })
	if got != base {
		t.Errorf("ECN cleared: %+v, want %+v", got, base)
	}
	// And marked CE on the way, every 97th: marked, not damaged.
	marked := uint64(0)
	got = editBoth(t, ect0, func(n int, d []byte) {
		if ect0(d); n%97 == 5 {
			d[offTOS] |= 3
			fixIPv4Sum(d)
			marked++
		}
	})
	if want := (Fate{Sent: base.Sent, Delivered: base.Delivered, CEMarked: marked}); got != want {
		t.Errorf("marked CE: %+v, want %+v", got, want)
	}
}

// What is kept of a packet stays 24 bytes: two captures of 300 MB are
// compared in 400 MB (docs/both-ends.md).
func TestPacketKeptSmall(t *testing.T) {
	if n := unsafe.Sizeof(pkt{}); n != 24 {
		t.Errorf("pkt is %d bytes", n)
	}
}
