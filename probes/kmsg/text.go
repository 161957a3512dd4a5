package kmsg

import (
	"regexp"
	"strconv"
	"strings"
)

// Text formats ParseText understands, in the order it tries them:
//
//	<6>[  123.456789] message           dmesg -r (level and facility)
//	[  123.456789] message              dmesg
//	[  123.456789][ T3106] message      dmesg with CONFIG_PRINTK_CALLER
//	[Tue Feb 14 18:48:25 2023] message  dmesg -T (wall clock, kept as text)
//	Nov 29 13:06:13 host kernel: [ 12.3] message   syslog, with or without the [time]
var (
	reSyslog = regexp.MustCompile(`^([A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d) (\S+) kernel: ?`)
	rePrio   = regexp.MustCompile(`^<(\d{1,3})>`)
	reMono   = regexp.MustCompile(`^\[ *(\d+)\.(\d{1,9})\]`)
	reCaller = regexp.MustCompile(`^\[ *([TC]\d+)\]`)
	reWall   = regexp.MustCompile(`^\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4})\]`)
)

// ParseText parses one line of dmesg or syslog text. ok is false when the
// line has none of the known prefixes (see ParseLines for continuation
// lines); the whole line is then the message.
func ParseText(line string) (r Record, ok bool) {
	r, width := parseTextPrefix(line)
	return r, width > 0
}

// parseTextPrefix parses the prefix of line and returns the record and the
// prefix width (where the message starts; 0 when nothing was recognised).
func parseTextPrefix(line string) (Record, int) {
	var r Record
	pos := 0
	if m := reSyslog.FindStringSubmatch(line); m != nil {
		r.Stamp, r.Host = m[1], m[2]
		pos = len(m[0])
	}
	if m := rePrio.FindStringSubmatch(line[pos:]); m != nil {
		if p, err := strconv.Atoi(m[1]); err == nil && p < 1024 {
			fac, lvl := p>>3, p&7
			r.Facility, r.Level = &fac, &lvl
			pos += len(m[0])
		}
	}
	switch m := reMono.FindStringSubmatch(line[pos:]); {
	case m != nil:
		sec, err1 := strconv.ParseUint(m[1], 10, 64)
		frac := (m[2] + "000000")[:6] // to microseconds
		us, err2 := strconv.ParseUint(frac, 10, 64)
		if err1 == nil && err2 == nil {
			v := sec*1_000_000 + us
			r.Usec = &v
		}
		pos += len(m[0])
		if c := reCaller.FindStringSubmatch(line[pos:]); c != nil {
			r.Caller = c[1]
			pos += len(c[0])
		}
	default:
		if w := reWall.FindStringSubmatch(line[pos:]); w != nil {
			r.Stamp = w[1]
			pos += len(w[0])
		}
	}
	if pos == 0 {
		r.Message = line
		return r, 0
	}
	if pos < len(line) && line[pos] == ' ' && (r.Usec != nil || r.Stamp != "" && r.Host == "") {
		pos++ // the one space dmesg prints after "]"
	}
	r.Message = line[pos:]
	return r, pos
}

// ParseLines parses dmesg or syslog text, one record per prefixed line.
// An indented line without a prefix continues the record before it (dmesg
// prints a record's further lines indented to its message column): it is
// appended after a newline with that indentation removed. Other lines
// without a prefix become records of their own with only a message.
func ParseLines(text string) []Record {
	var out []Record
	width := 0
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
		if line == "" && w == 0 {
			continue
		}
		out = append(out, r)
		width = w
	}
	return out
}
