package kmsg

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/internal/lazyre"
)

// Text formats ParseText understands. A leading journal or syslog stamp
// with its host comes first, then an optional dmesg -r level, then a
// bracketed dmesg time, which may itself be followed by "host kernel:"
// (journalctl -o short-monotonic, or dmesg -T output run through a
// syslog-style pipeline as pasted by users):
//
//	<6>[  123.456789] message                     dmesg -r (level and facility)
//	[  123.456789] message                        dmesg
//	[  123.456789][ T3106] message                dmesg with CONFIG_PRINTK_CALLER
//	[Tue Feb 14 18:48:25 2023] message            dmesg -T
//	[Sun Dec  1 14:54:40 2024] host kernel: msg   dmesg -T with a host
//	[  123.456789] host kernel: message           journalctl -k -o short-monotonic
//	Nov 29 13:06:13 host kernel: [ 12.3] message  syslog, journalctl -k (short)
//	Dec 01 14:54:40.123456 host kernel: message   journalctl -o short-precise
//	2024-12-01T14:54:40+0000 host kernel: message journalctl -o short-iso(-precise), rsyslog
//	Sun 2024-12-01 14:54:40 UTC host kernel: msg  journalctl -o short-full
//	2024-12-01T14:54:40,123456+00:00 message      dmesg --time-format iso
//
// The stamp is kept as printed in Record.Stamp; Record.Wall holds it
// parsed when it carries a year (see Record.WallTime for the others).
var (
	reSyslog   = lazyre.New(`^([A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d(?:\.\d{1,9})?) (\S+) kernel: ?`)
	reISO      = lazyre.New(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)) (?:(\S+) kernel: ?)?`)
	reFull     = lazyre.New(`^([A-Z][a-z]{2} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? [A-Za-z][A-Za-z0-9_/+-]*) (\S+) kernel: ?`)
	rePrio     = lazyre.New(`^<(\d{1,3})>`)
	reMono     = lazyre.New(`^\[ *(\d+)\.(\d{1,9})\]`)
	reCaller   = lazyre.New(`^\[ *([TC]\d+)\]`)
	reWall     = lazyre.New(`^\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4})\]`)
	reHostKern = lazyre.New(`^([A-Za-z0-9][A-Za-z0-9_.-]*) kernel: ?`)
)

// ParseText parses one line of dmesg, journalctl or syslog text. ok is
// false when the line has none of the known prefixes (see ParseLines for
// continuation lines); the whole line is then the message.
func ParseText(line string) (r Record, ok bool) {
	r, width := parseTextPrefix(line)
	return r, width > 0
}

// parseTextPrefix parses the prefix of line and returns the record and the
// prefix width (where the message starts; 0 when nothing was recognised).
func parseTextPrefix(line string) (Record, int) {
	var r Record
	pos := 0
	for _, re := range []*regexp.Regexp{reSyslog(), reISO(), reFull()} {
		if m := re.FindStringSubmatch(line); m != nil {
			r.Stamp, r.Host = m[1], m[2]
			pos = len(m[0])
			break
		}
	}
	if m := rePrio().FindStringSubmatch(line[pos:]); m != nil {
		if p, err := strconv.Atoi(m[1]); err == nil && p < 1024 {
			fac, lvl := p>>3, p&7
			r.Facility, r.Level = &fac, &lvl
			pos += len(m[0])
		}
	}
	bracket := false
	switch m := reMono().FindStringSubmatch(line[pos:]); {
	case m != nil:
		sec, err1 := strconv.ParseUint(m[1], 10, 64)
		frac := (m[2] + "000000")[:6] // to microseconds
		us, err2 := strconv.ParseUint(frac, 10, 64)
		if err1 == nil && err2 == nil {
			v := sec*1_000_000 + us
			r.Usec = &v
		}
		pos += len(m[0])
		bracket = true
		if c := reCaller().FindStringSubmatch(line[pos:]); c != nil {
			r.Caller = c[1]
			pos += len(c[0])
		}
	default:
		if w := reWall().FindStringSubmatch(line[pos:]); w != nil {
			r.Stamp = w[1]
			pos += len(w[0])
			bracket = true
		}
	}
	if pos == 0 {
		r.Message = line
		return r, 0
	}
	if bracket && pos < len(line) && line[pos] == ' ' {
		pos++ // the one space dmesg prints after "]"
	}
	if bracket && r.Host == "" {
		if m := reHostKern().FindStringSubmatch(line[pos:]); m != nil {
			r.Host = m[1]
			pos += len(m[0])
		}
	}
	if t, ok := parseStamp(r.Stamp, 0, time.UTC); ok {
		r.Wall = t
	}
	r.Message = line[pos:]
	return r, pos
}

// ParseLines parses dmesg, journalctl -k or syslog text, one record per
// prefixed line. An indented line without a prefix continues the record
// before it (dmesg prints a record's further lines indented to its message
// column): it is appended after a newline with that indentation removed.
// Shell prompt lines ("user@host:~$ dmesg | grep mlx5", pasted with the
// output) and journalctl's "-- Boot … --" markers are skipped. Other lines
// without a prefix become records of their own with only a message.
func ParseLines(text string) []Record {
	var out []Record
	width := 0
	text = strings.TrimPrefix(text, "\uFEFF") // a byte order mark from an editor
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		line = strings.TrimSuffix(line, "\r")
		r, w := parseTextPrefix(line)
		if w == 0 && len(out) > 0 && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			cont := line
			for i := 0; i < width && strings.HasPrefix(cont, " "); i++ {
				cont = cont[1:]
			}
			out[len(out)-1].Message += "\n" + cont
			continue
		}
		if w == 0 && (line == "" || isShellPrompt(line) || isJournalMarker(line)) {
			continue
		}
		out = append(out, r)
		width = w
	}
	return out
}
