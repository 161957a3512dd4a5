package ui

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The layout of the detail pane. Prose wraps at spaces; a command never
// wraps. A command is copied off the screen, and a line break inside it
// (even at a space: `echo 1 >` on one line, its path on the next) pastes
// as two commands. So a command line is one screen line, however long:
// where it is wider than the pane it runs to the edge, a › in the last
// cell says there is more, and ←/→ scroll the pane sideways, as less -S
// and htop do with long lines. Its trailing comment (`  # why`) is prose
// for a person: it wraps, each line of it starting with "#", so that the
// lines still paste as one command and comments. In prose, a word is
// never cut (a URL or a path longer than the pane runs to the edge like
// a command) and a `backquoted` command is kept whole as one word.

// paneLine is one logical line of the detail pane.
type paneLine struct {
	text string
	cmd  bool // a command (HOW TO CONFIRM): never wrapped
}

// prose makes prose pane lines of plain strings.
func prose(ls ...string) []paneLine {
	out := make([]paneLine, len(ls))
	for i, l := range ls {
		out[i] = paneLine{text: l}
	}
	return out
}

// layoutPane lays the pane's lines out for a width of w cells: prose
// wrapped at spaces, commands whole. A returned line is wider than w
// only when it holds a command or a word longer than the pane.
func layoutPane(ls []paneLine, w int) []string {
	var out []string
	for _, l := range ls {
		if l.cmd {
			out = append(out, layoutCommand(l.text, w)...)
		} else {
			out = append(out, wrapProse(l.text, w)...)
		}
	}
	return out
}

// wrapProse wraps a line of prose at spaces to w cells, its continuation
// lines indented two cells more than it. A word (or a `backquoted` span)
// is never cut: one wider than the room left starts a line of its own
// and runs past w.
func wrapProse(s string, w int) []string {
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	pad := strings.Repeat(" ", min(len(lead)+2, w/2))
	return fill(words(s[len(lead):]), lead, pad, w)
}

// fill puts words on lines of w cells, separated by one space: the first
// line starts with first, the others with pad.
func fill(ws []string, first, pad string, w int) []string {
	var out []string
	cur, n := first, 0 // the line so far, and how many words it holds
	for _, wd := range ws {
		if n > 0 && ansi.StringWidth(cur)+1+ansi.StringWidth(wd) > w {
			out = append(out, cur)
			cur, n = pad, 0
		}
		if n > 0 {
			cur += " "
		}
		cur += wd
		n++
	}
	return append(out, cur)
}

// words splits s at runs of spaces, keeping a `backquoted` span (a
// command in prose) inside one word, spaces and all. A backquote without
// its pair is an ordinary character.
func words(s string) []string {
	var out []string
	start := -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '`':
			if start < 0 {
				start = i
			}
			if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
				i += j + 1 // to the closing backquote
			}
		case c == ' ':
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// commentRE finds a command's trailing comment: a # after two spaces or
// more, as the rule pack writes them.
var commentRE = regexp.MustCompile(`\s{2,}#\s`)

// layoutCommand lays out a command line: the command on one line, whole;
// its trailing comment beside it while it fits, the rest of the comment
// wrapped below it, each line a comment of its own ("# …") under the
// command's first character.
func layoutCommand(s string, w int) []string {
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	loc := commentRE.FindStringIndex(s)
	if loc == nil {
		return []string{s}
	}
	code, comment := s[:loc[0]], strings.TrimSpace(s[loc[1]:])
	// Below the command, level with its first character after "$ ".
	ind := len(code) - len(strings.TrimLeft(code, " "))
	if strings.HasPrefix(code[ind:], "$ ") {
		ind += 2
	}
	pad := strings.Repeat(" ", min(ind, w/2)) + "# "
	ws := words(comment)
	first := s[:loc[1]] // the command and its "  # ", as written
	if len(ws) > 0 && ansi.StringWidth(first)+ansi.StringWidth(ws[0]) <= w {
		return fill(ws, first, pad, w)
	}
	return append([]string{code}, fill(ws, pad, pad, w)...)
}

// widest is the width of the widest of ls, in cells.
func widest(ls []string) int {
	n := 0
	for _, l := range ls {
		n = max(n, ansi.StringWidth(l))
	}
	return n
}

// window shows w cells of l from cell off: the pane scrolled sideways.
// A line cut on the right ends with ›, one cut on the left starts with ‹:
// marks of the screen, never part of the text they stand beside.
func window(l string, off, w int) string {
	n := ansi.StringWidth(l)
	if off == 0 && n <= w {
		return l
	}
	s := ansi.Cut(l, off, off+w)
	if n > off+w {
		s = ansi.Cut(s, 0, w-1) + "›"
	}
	if off > 0 && n > off {
		s = "‹" + ansi.Cut(s, 1, w)
	}
	return s
}
