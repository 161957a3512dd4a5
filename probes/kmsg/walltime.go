package kmsg

import (
	"strings"
	"time"
)

// Layouts of the wall-clock stamps ParseText keeps in Record.Stamp.
const (
	layoutISOColon = "2006-01-02T15:04:05Z07:00" // short-iso (newer systemd), dmesg --time-format iso
	layoutISO      = "2006-01-02T15:04:05Z0700"  // short-iso (older systemd)
	layoutCtime    = "Mon Jan _2 15:04:05 2006"  // dmesg -T
	layoutFull     = "Mon 2006-01-02 15:04:05"   // short-full, without its zone name
	layoutSyslog   = "Jan _2 15:04:05"           // syslog, journalctl short and short-precise
)

// WallTime returns the record's wall-clock time, parsed from Stamp. year
// is used when the stamp has none (syslog and journalctl short formats;
// 0 means unknown, and ok is then false for them). loc is the zone of a
// stamp that names no UTC offset (dmesg -T, syslog, journalctl short, a
// short-full zone name other than UTC); nil means UTC. Fractional seconds
// are kept. ok is false when there is no stamp or it cannot be read.
func (r Record) WallTime(year int, loc *time.Location) (time.Time, bool) {
	return parseStamp(r.Stamp, year, loc)
}

func parseStamp(s string, year int, loc *time.Location) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if loc == nil {
		loc = time.UTC
	}
	if s[0] >= '0' && s[0] <= '9' { // ISO 8601 with an offset
		layout := layoutISO
		if strings.HasSuffix(s, "Z") || len(s) > 3 && s[len(s)-3] == ':' {
			layout = layoutISOColon
		}
		t, err := time.Parse(layout, s)
		return t, err == nil
	}
	if t, err := time.ParseInLocation(layoutCtime, s, loc); err == nil {
		return t, true
	}
	if i := strings.LastIndexByte(s, ' '); i > 0 && len(s) > 4 && s[4] >= '0' && s[4] <= '9' {
		zl := loc
		if z := s[i+1:]; z == "UTC" || z == "GMT" || z == "Z" {
			zl = time.UTC
		}
		t, err := time.ParseInLocation(layoutFull, s[:i], zl)
		return t, err == nil
	}
	if year <= 0 {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(layoutSyslog, s, loc)
	if err != nil {
		return time.Time{}, false
	}
	return time.Date(year, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc), true
}
