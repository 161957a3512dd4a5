package saved

import (
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/internal/lazyre"
)

// A pasted file often holds several commands with their prompts, or a
// `set -x` trace: each prompt line starts a section, and each section is
// recognised on its own.
var (
	// user@host:~$ cmd, root@host:/sys/...# cmd, /sys/.../counters$ cmd,
	// ~$ cmd, $ cmd, # cmd, [root@host ~]# cmd, + cmd (set -x).
	rePrompt = lazyre.New(`^(?:[\w.-]+@[\w.-]+:([^\s$#]*)[$#]|\[[\w.-]+@[\w.-]+ ([^\]]*)\][$#]|([~/][^\s$#]*)[$#]|[$#]|\+)\s+(\S.*)$`)
)

// section is one command's output.
type section struct {
	command string   // the command line its prompt showed; "" when none
	cwd     string   // the prompt's directory, when it showed one
	lines   []string // the output, trailing spaces and CRs removed
	start   int      // line number of the first output line, from 1
	time    *time.Time
}

// args are the command's words without sudo.
func (s *section) args() []string {
	f := strings.Fields(s.command)
	for len(f) > 0 && f[0] == "sudo" {
		f = f[1:]
	}
	return f
}

// splitSections cuts text into sections at prompt lines. Lines of a date
// printed right after a prompt or at the top (`date`, `date -Is`) give the
// time of the sections that follow.
func splitSections(text string) []section {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []section
	cur := section{start: 1}
	var now *time.Time
	flush := func() {
		if cur.command != "" || hasContent(cur.lines) {
			out = append(out, cur)
		}
	}
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if m := rePrompt().FindStringSubmatch(l); m != nil && !looksLikeCounter(l) {
			flush()
			cwd := m[1] + m[2] + m[3]
			cur = section{command: strings.TrimSpace(m[4]), cwd: cwd, start: i + 2, time: now}
			continue
		}
		if t, ok := parseDateLine(l); ok && !hasContent(cur.lines) {
			now = &t
			cur.time = now
			continue
		}
		cur.lines = append(cur.lines, l)
	}
	flush()
	return out
}

// looksLikeCounter: "# 12" is not a prompt (nothing uses it, but a
// counter line never starts with a prompt character anyway); this keeps
// "+ 5" from a diff-like paste from starting a section.
func looksLikeCounter(l string) bool {
	rest := strings.TrimSpace(strings.TrimLeft(l, "$#+ "))
	return rest != "" && strings.Trim(rest, "0123456789") == ""
}

func hasContent(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return true
		}
	}
	return false
}

// nonBlank returns the lines that are not blank.
func nonBlank(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// dateLayouts are what `date` prints: the C locale default, -R, -Is,
// -Ins and --rfc-3339.
var dateLayouts = []string{
	"Mon Jan _2 15:04:05 MST 2006",
	"Mon Jan _2 03:04:05 PM MST 2006",
	"Mon, 02 Jan 2006 15:04:05 -0700",
	time.RFC3339,
	time.RFC3339Nano,
	"2006-01-02 15:04:05-07:00",
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05,999999999-07:00",
}

// parseDateLine reads a line that is only a date, as `date` prints it.
func parseDateLine(l string) (time.Time, bool) {
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "time:"))
	if len(s) < 19 || len(s) > 40 {
		return time.Time{}, false
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
