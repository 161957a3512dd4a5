package kmsg

import (
	"strings"

	"github.com/rdmatop/rdmatop/internal/lazyre"
)

// Lines that people paste along with a kernel log but that are not part
// of it.
var (
	// A shell prompt followed by a command: "user@host:~$ dmesg",
	// "[root@host ~]# journalctl -k", "root@host:/tmp# dmesg -T", or a
	// bare "$ dmesg" / "# dmesg".
	rePrompt = lazyre.New(`^(?:[\w.-]+@[\w.-]+(?::\S*)?|\[[\w.-]+@[\w.-]+[^\]]*\])?[$#] +\S`)
	// journalctl's own lines: "-- Boot 1a2b… --", "-- Logs begin at … --",
	// "-- No entries --", "-- Reboot --".
	reJournalMarker = lazyre.New(`^-- .* --$`)
)

// isShellPrompt reports whether line is a shell prompt with a command.
func isShellPrompt(line string) bool {
	return rePrompt().MatchString(strings.TrimLeft(line, " "))
}

// isJournalMarker reports whether line is one of journalctl's markers.
func isJournalMarker(line string) bool {
	return reJournalMarker().MatchString(line)
}
