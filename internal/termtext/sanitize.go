// Package termtext is rdmatop's one terminal sanitiser: every string from
// outside (packets, process names, kernel log lines, NCCL logs, saved
// outputs, rule evidence built from them) goes through Sanitize before it
// reaches a terminal, on the screen and in every text report.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize makes a string from outside rdmatop (a process name, a netdev
// name, a kernel log line, a rule's evidence) safe to put on the screen:
// control characters (C0, DEL, C1 — among them ESC, which starts every
// terminal escape sequence, and the 8-bit CSI/OSC introducers), bidi
// overrides and invalid UTF-8 become '?', and newlines and tabs become
// spaces, so that the text can neither move the cursor, change colours,
// set the window title nor break the layout.
func Sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteByte('?')
		case r == '\n' || r == '\t' || r == '\r':
			b.WriteByte(' ')
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r),
			r == '\u2028', r == '\u2029', r == '\ufeff':
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
