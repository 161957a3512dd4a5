package ethtool

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
)

// textHeader is the first line `ethtool -S` prints.
const textHeader = "NIC statistics:"

// TextInfo is what a pasted `ethtool -S` output says besides its counters.
type TextInfo struct {
	Stats map[string]uint64
	// Netdev is the interface a leading command line names
	// ("$ ethtool -S enp178s0f0 | grep prio" gives "enp178s0f0"); "" when
	// the paste has no command line.
	Netdev string
	// Header says the "NIC statistics:" line was there. Its absence means
	// the paste was filtered (grep) or trimmed, so a counter missing from
	// it may just have been left out.
	Header bool
}

// ParseText reads `ethtool -S IFACE` output as ParseTextInfo does and
// returns its counters.
func ParseText(r io.Reader) (map[string]uint64, error) {
	info, err := ParseTextInfo(r)
	return info.Stats, err
}

// ParseTextInfo reads `ethtool -S IFACE` output the way customers paste
// it: with or without the "NIC statistics:" line, indented or not, whole
// or any subset of its lines (`| grep prio`), after an optional leading
// command line ("user@host:~$ sudo ethtool -S p3p1"), which is skipped and
// names Netdev.
//
// Every other non-blank line must be "name: value", value an unsigned
// 64-bit decimal (ethtool prints "%.*s: %llu"), so text that is not
// ethtool output is an error naming its first bad line. The value follows
// the last colon: bnxt_en's per-ring counters keep the name the kernel
// gives them, "[3]: rx_ucast_packets" (the string the ioctl returns too),
// so they never collide with, or add into, the port's counters. Spaces
// around a name are dropped, so an old kernel's
// "tx_pause_storm_warning_events : 0" reads as its trimmed name; a name
// listed twice keeps its last value, as the ioctl map does. Output saying
// "no stats available" wraps probes.ErrNotSupported.
func ParseTextInfo(r io.Reader) (TextInfo, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	info := TextInfo{Stats: map[string]uint64{}}
	started := false // a command line may only come before everything else
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimSpace(text)
		if trimmed == "" {
			continue
		}
		if !started {
			started = true
			if nd, ok := commandLine(trimmed); ok {
				info.Netdev = nd
				continue
			}
		}
		if len(info.Stats) == 0 && !info.Header {
			switch {
			case trimmed == textHeader:
				info.Header = true
				continue
			case strings.Contains(trimmed, "no stats available"):
				return TextInfo{}, fmt.Errorf("ethtool -S output, line %d %q: driver has no ethtool statistics: %w", line, trimmed, probes.ErrNotSupported)
			}
		}
		name, val, err := textLine(text)
		if err != nil {
			if len(info.Stats) == 0 && !info.Header {
				// Nothing so far looked like ethtool: say so, not just
				// what is wrong with this line.
				return TextInfo{}, fmt.Errorf("ethtool -S output, line %d %q: not ethtool statistics (want %q or \"name: value\" lines): %w", line, clip(trimmed), textHeader, err)
			}
			return TextInfo{}, fmt.Errorf("ethtool -S output, line %d %q: %w", line, clip(trimmed), err)
		}
		info.Stats[name] = val
	}
	if err := sc.Err(); err != nil {
		return TextInfo{}, fmt.Errorf("ethtool -S output, after line %d: %w", line, err)
	}
	if !info.Header && len(info.Stats) == 0 {
		return TextInfo{}, fmt.Errorf("ethtool -S output: empty, want %q or \"name: value\" lines", textHeader)
	}
	return info, nil
}

// commandLine recognises a pasted shell command running `ethtool -S`
// (or --statistics), after any prompt, and returns the interface it
// names. Only ethtool's statistics command counts: another command line
// is not ethtool output.
func commandLine(s string) (netdev string, ok bool) {
	f := strings.Fields(s)
	for i, w := range f {
		if w != "ethtool" && !strings.HasSuffix(w, "/ethtool") {
			continue
		}
		for j := i + 1; j < len(f); j++ {
			if f[j] != "-S" && f[j] != "--statistics" {
				continue
			}
			if j+1 < len(f) && !strings.HasPrefix(f[j+1], "-") && !strings.ContainsAny(f[j+1], "|;&<>") {
				netdev = f[j+1]
			}
			return netdev, true
		}
	}
	return "", false
}

// textLine splits "     name: value". The value follows the last colon,
// so a name containing a colon still reads.
func textLine(s string) (string, uint64, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", 0, errors.New("not a \"name: value\" line")
	}
	name := strings.TrimSpace(s[:i])
	if name == "" {
		return "", 0, errors.New("empty counter name")
	}
	vs := strings.TrimSpace(s[i+1:])
	v, err := strconv.ParseUint(vs, 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("value %q is not an unsigned 64-bit integer", vs)
	}
	return name, v, nil
}

// clip shortens a line quoted in an error.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
