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

// ParseText reads `ethtool -S IFACE` output: the line "NIC statistics:",
// then one "name: value" line per counter (indented; ethtool prints
// "%.*s: %llu"). Spaces around the name are dropped, so an old kernel's
// "tx_pause_storm_warning_events : 0" reads as its trimmed name; blank
// lines are skipped; a name listed twice keeps its last value, as the
// ioctl map does. Any other line is an error naming its number and text.
// Output saying "no stats available" wraps probes.ErrNotSupported.
func ParseText(r io.Reader) (map[string]uint64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	stats := map[string]uint64{}
	header := false
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimSpace(text)
		if trimmed == "" {
			continue
		}
		if !header {
			switch {
			case trimmed == textHeader:
				header = true
				continue
			case strings.Contains(trimmed, "no stats available"):
				return nil, fmt.Errorf("ethtool -S output, line %d %q: driver has no ethtool statistics: %w", line, trimmed, probes.ErrNotSupported)
			}
			return nil, fmt.Errorf("ethtool -S output, line %d: want %q first, got %q", line, textHeader, clip(trimmed))
		}
		name, val, err := textLine(text)
		if err != nil {
			return nil, fmt.Errorf("ethtool -S output, line %d %q: %w", line, clip(trimmed), err)
		}
		stats[name] = val
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ethtool -S output, after line %d: %w", line, err)
	}
	if !header {
		return nil, fmt.Errorf("ethtool -S output: empty, want %q first", textHeader)
	}
	return stats, nil
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
