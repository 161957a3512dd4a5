package kmsg

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Record is one kernel log record. Fields a source did not carry are nil
// (dmesg text has no sequence number; syslog text no level).
type Record struct {
	Facility *int    `json:"facility,omitempty"`
	Level    *int    `json:"level,omitempty"` // 0 emerg … 7 debug
	Seq      *uint64 `json:"seq,omitempty"`
	Usec     *uint64 `json:"ts_usec,omitempty"` // monotonic µs since boot
	Flags    string  `json:"flags,omitempty"`   // /dev/kmsg flags: "-", "c", "+"
	Caller   string  `json:"caller,omitempty"`  // printk caller id ("T123", "C2") when the kernel adds it
	// Stamp is a wall-clock time as printed by dmesg -T, journalctl or
	// syslog, kept as text (its year and zone are often missing).
	Stamp string `json:"stamp,omitempty"`
	// Wall is Stamp parsed, when it carries a year (dmesg -T, journalctl
	// short-iso and short-full, dmesg --time-format iso); zero otherwise.
	// A stamp without a UTC offset (dmesg -T) is the printing host's local
	// clock in an unknown zone: Wall then holds that reading as if it were
	// UTC. WallTime reads a stamp with a year and zone the caller knows.
	Wall    time.Time         `json:"wall,omitzero"`
	Host    string            `json:"host,omitempty"` // syslog or journal host field
	Message string            `json:"message"`
	Dict    map[string]string `json:"dict,omitempty"` // SUBSYSTEM=, DEVICE=, ...
}

// Level names, as dmesg prints them.
var levelNames = [...]string{"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"}

// LevelName returns the level's name, or "" when unknown.
func (r Record) LevelName() string {
	if r.Level == nil || *r.Level < 0 || *r.Level > 7 {
		return ""
	}
	return levelNames[*r.Level]
}

// FacilityName returns the syslog facility's name ("kern", "user", ...),
// or "" when unknown.
func (r Record) FacilityName() string {
	if r.Facility == nil {
		return ""
	}
	names := [...]string{"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv", "ftp"}
	if f := *r.Facility; f >= 0 && f < len(names) {
		return names[f]
	}
	if f := *r.Facility; f >= 16 && f <= 23 {
		return "local" + strconv.Itoa(f-16)
	}
	return "facility" + strconv.Itoa(*r.Facility)
}

// ParseRecord parses one record as read() from /dev/kmsg (see
// Documentation/ABI/testing/dev-kmsg): a header
// "prio,seq,usec,flags[,key=value...];" and the message on the first line,
// then dictionary lines starting with a space. A trailing newline is
// optional.
func ParseRecord(raw string) (Record, error) {
	var r Record
	raw = strings.TrimSuffix(raw, "\n")
	first, dict, _ := strings.Cut(raw, "\n")
	head, msg, ok := strings.Cut(first, ";")
	if !ok {
		return r, fmt.Errorf("kmsg record without ';': %.60q", first)
	}
	fields := strings.Split(head, ",")
	if len(fields) < 4 {
		return r, fmt.Errorf("kmsg record header %q: want prio,seq,usec,flags", head)
	}
	prio, err := strconv.ParseUint(fields[0], 10, 32)
	if err != nil {
		return r, fmt.Errorf("kmsg record header %q: prio: %v", head, err)
	}
	seq, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil {
		return r, fmt.Errorf("kmsg record header %q: seq: %v", head, err)
	}
	usec, err := strconv.ParseUint(fields[2], 10, 64)
	if err != nil {
		return r, fmt.Errorf("kmsg record header %q: timestamp: %v", head, err)
	}
	fac, lvl := int(prio>>3), int(prio&7)
	r.Facility, r.Level, r.Seq, r.Usec = &fac, &lvl, &seq, &usec
	r.Flags = fields[3]
	for _, f := range fields[4:] {
		if v, ok := strings.CutPrefix(f, "caller="); ok {
			r.Caller = v
		}
	}
	r.Message = msg
	for _, line := range strings.Split(dict, "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(line, " "), "=")
		if !ok || !strings.HasPrefix(line, " ") {
			continue
		}
		if r.Dict == nil {
			r.Dict = map[string]string{}
		}
		r.Dict[k] = v
	}
	return r, nil
}

// seqOf returns the sequence number of a raw record without parsing the
// rest; ok is false when the header is malformed.
func seqOf(raw string) (uint64, bool) {
	_, rest, ok := strings.Cut(raw, ",")
	if !ok {
		return 0, false
	}
	s, _, ok := strings.Cut(rest, ",")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}
