package sysfs

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Enum is a sysfs value printed as "<number>: <name>" (state, phys_state,
// node_type).
type Enum struct {
	Value int    `json:"value"`
	Name  string `json:"name"`
}

func (e Enum) String() string { return strconv.Itoa(e.Value) + ": " + e.Name }

// ParseEnum parses "4: ACTIVE", "5: LinkUp", "1: CA", "7: Phy Test".
func ParseEnum(s string) (Enum, error) {
	num, name, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return Enum{}, fmt.Errorf("%q: want \"<number>: <name>\"", s)
	}
	v, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil {
		return Enum{}, fmt.Errorf("%q: %w", s, err)
	}
	return Enum{Value: v, Name: strings.TrimSpace(name)}, nil
}

// Rate is a port's rate as sysfs prints it, "100 Gb/sec (4X EDR)".
type Rate struct {
	Raw   string  `json:"raw"`
	Gbps  float64 `json:"gbps"`            // 100
	Width string  `json:"width,omitempty"` // "4X"
	Speed string  `json:"speed,omitempty"` // "EDR" (an IB-equivalent name on RoCE ports)
}

// ParseRate parses "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)",
// "10 Gb/sec (1X FDR10)".
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	num, rest, ok := strings.Cut(s, " Gb/sec")
	if !ok {
		return Rate{}, fmt.Errorf("%q: want \"<n> Gb/sec (<w>X <speed>)\"", s)
	}
	g, err := strconv.ParseFloat(num, 64)
	if err != nil || g < 0 {
		return Rate{}, fmt.Errorf("%q: bad Gb/s number", s)
	}
	r := Rate{Raw: s, Gbps: g}
	rest = strings.TrimSpace(rest)
	if in, ok := strings.CutPrefix(rest, "("); ok {
		in = strings.TrimSuffix(in, ")")
		r.Width, r.Speed, _ = strings.Cut(in, " ")
	}
	return r, nil
}

// GUID is a 64-bit InfiniBand GUID.
type GUID uint64

// String formats the GUID as sysfs does: "b8ce:f603:005a:3c10".
func (g GUID) String() string {
	return fmt.Sprintf("%04x:%04x:%04x:%04x", uint16(g>>48), uint16(g>>32), uint16(g>>16), uint16(g))
}

// MarshalText writes the sysfs form.
func (g GUID) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// ParseGUID parses "b8ce:f603:005a:3c10".
func ParseGUID(s string) (GUID, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 4 {
		return 0, fmt.Errorf("%q: want four 16-bit groups", s)
	}
	var g uint64
	for _, p := range parts {
		if len(p) == 0 || len(p) > 4 {
			return 0, fmt.Errorf("%q: bad group %q", s, p)
		}
		v, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return 0, fmt.Errorf("%q: %w", s, err)
		}
		g = g<<16 | v
	}
	return GUID(g), nil
}

// ParseGID parses a GID as sysfs prints it: eight groups of four hex
// digits, never compressed ("fe80:0000:0000:0000:bace:f6ff:fe5a:3c10").
func ParseGID(s string) (netip.Addr, error) {
	s = strings.TrimSpace(s)
	if strings.Count(s, ":") != 7 || strings.Contains(s, "::") || strings.ContainsAny(s, ".%") {
		return netip.Addr{}, fmt.Errorf("%q: want eight groups of hex digits", s)
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, err
	}
	return a, nil
}

// ParseHex parses "0x1a", "0xffff", "0x04010000".
func ParseHex(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	h, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return 0, fmt.Errorf("%q: want 0x<hex>", s)
	}
	return strconv.ParseUint(h, 16, 64)
}

// ParseCounter parses a counter value: an unsigned decimal (the kernel
// prints %llu). Anything else ("N/A (no PMA)", a negative number, garbage)
// is an error; ParseCounterValue tells "N/A" apart.
func ParseCounter(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty value")
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an unsigned counter: %w", s, errors.Unwrap(err))
	}
	return v, nil
}

// ParseCounterValue parses a counter file as ParseCounter does, except
// that the kernel's "N/A" answers (drivers/infiniband/core/sysfs.c prints
// "N/A (no PMA)" for a PMA counter of a device without a PMA) are
// unavailable: the counter exists and has no value, which is neither zero
// nor a parse failure.
func ParseCounterValue(s string) (v uint64, unavailable bool, err error) {
	if strings.HasPrefix(strings.TrimSpace(s), "N/A") {
		return 0, true, nil
	}
	v, err = ParseCounter(s)
	return v, false, err
}

func parseInt(s string) (int, error) { return strconv.Atoi(strings.TrimSpace(s)) }

func parseHex16(s string) (uint16, error) {
	v, err := ParseHex(s)
	if err == nil && v > 0xffff {
		err = fmt.Errorf("%q: more than 16 bits", s)
	}
	return uint16(v), err
}

func parseHex32(s string) (uint32, error) {
	v, err := ParseHex(s)
	if err == nil && v > 0xffffffff {
		err = fmt.Errorf("%q: more than 32 bits", s)
	}
	return uint32(v), err
}

func parseUint8(s string) (uint8, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 8)
	return uint8(v), err
}
