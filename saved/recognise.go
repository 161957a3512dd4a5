package saved

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// parser reads one section of a file into the host model. It returns
// false when the section is not its kind, leaving the model untouched.
type parser struct {
	kind Kind
	// try parses sec; ok false means "not mine". It reports what it read
	// and ignored on in.
	try func(l *loader, sec *section, in *Input) bool
}

// parsers in the order they are tried: the strictest formats first, so a
// loose one (kernel log) never claims another's output.
var parsers = []parser{
	{KindRdmaStatJ, (*loader).rdmaStatJSON},
	{KindRdmaQPJ, (*loader).rdmaQPJSON},
	{KindRdmaLinkJ, (*loader).rdmaLinkJSON},
	{KindIPLinkJ, (*loader).ipLinkJSON},
	{KindSysfsGrep, (*loader).sysfsGrep},
	{KindSysfsCat, (*loader).sysfsCat},
	{KindRdmaQP, (*loader).rdmaQPText},
	{KindRdmaLink, (*loader).rdmaLinkText},
	{KindRdmaStat, (*loader).rdmaStatText},
	{KindIPLink, (*loader).ipLinkText},
	{KindMlnxQos, (*loader).mlnxQos},
	{KindDevinfo, (*loader).devinfo},
	{KindMlxconfig, (*loader).mlxconfig},
	{KindEthtool, (*loader).ethtool},
	{KindNCCLLog, (*loader).ncclLog},
	{KindKernelLog, (*loader).kernelLog},
}

// isBinary: NUL bytes or mostly invalid UTF-8 in the first 8 KiB.
func isBinary(data []byte) bool {
	head := data[:min(len(data), 8<<10)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad := 0
	for len(head) > 0 {
		r, n := utf8.DecodeRune(head)
		if r == utf8.RuneError && n <= 1 {
			bad++
		}
		head = head[max(n, 1):]
	}
	return bad > 16
}

// isCapture: a pcap or pcapng file (pcapfile.Sniff).
func isCapture(data []byte) bool { return pcapfile.Sniff(data) != "" }

// isBundle: an rdmatop recording (version 1 is JSON lines).
func isBundle(data []byte) bool {
	_, ok := bundle.Sniff(data[:min(len(data), bundle.SniffLen)])
	return ok
}

// recognise reads one file into the model and says what it was.
func (l *loader) recognise(f file) Input {
	in := Input{Path: f.path}
	switch {
	case len(bytes.TrimSpace(f.data)) == 0:
		in.Kind = KindEmpty
		in.ignore("empty file")
		return in
	case isCapture(f.data) || isBundle(f.data):
		in.Kind = KindCapture
		in.ignore("captures and recordings are analysed alone: rdmatop check %s", f.path)
		return in
	case isBinary(f.data):
		in.Kind = KindBinary
		in.ignore("binary data, not a command's output")
		return in
	}
	if l.sysfsFile(f, &in) {
		return in
	}
	secs := splitSections(string(f.data))
	ctx := commandFromName(f.name)
	for i := range secs {
		sec := &secs[i]
		if sec.command == "" && ctx != "" {
			sec.command = ctx // sos names the file after the command
		}
		var got Kind
		for _, p := range parsers {
			if p.try(l, sec, &in) {
				got = p.kind
				break
			}
		}
		switch {
		case got != "" && in.Kind == "":
			in.Kind = got
			if sec.time != nil && in.Time == nil {
				in.Time = sec.time
			}
		case got == "" && hasContent(sec.lines):
			where := sectionName(sec, len(secs))
			in.ignore("%s: not output rdmatop reads", where)
		}
	}
	if in.Kind == "" {
		in.Kind = KindUnknown
	}
	return in
}

// sectionName names a section for the report: its command, or its lines.
func sectionName(sec *section, n int) string {
	if sec.command != "" {
		return "output of `" + clip(sec.command, 60) + "`"
	}
	if n == 1 {
		return "the text"
	}
	return "text from line " + itoa(sec.start)
}

// commandFromName reads the command a sosreport file holds from its name:
// sos writes `ethtool -S eth0` to sos_commands/networking/ethtool_-S_eth0.
func commandFromName(name string) string {
	if !strings.Contains(name, "sos_commands/") {
		return ""
	}
	base := path.Base(name)
	for _, pre := range []string{"ethtool_-S_", "ethtool_--statistics_"} {
		if nd, ok := strings.CutPrefix(base, pre); ok {
			return "ethtool -S " + nd
		}
	}
	for _, pre := range []string{"mlnx_qos_-i_"} {
		if nd, ok := strings.CutPrefix(base, pre); ok {
			return "mlnx_qos -i " + nd
		}
	}
	return strings.ReplaceAll(base, "_", " ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func itoa(n int) string { return strconv.Itoa(n) }

// IsCaptureFile reports whether the file at p is a packet capture or an
// rdmatop recording (pcap or pcapng, plain or gzip-compressed): what
// `rdmatop check FILE` analyses on its own.
func IsCaptureFile(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	br := bufio.NewReader(f)
	head, _ := br.Peek(bundle.SniffLen)
	if _, ok := bundle.Sniff(head); ok {
		return true
	}
	if bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return false
		}
		defer zr.Close()
		head = make([]byte, 4)
		n, _ := io.ReadFull(zr, head)
		head = head[:n]
	}
	return isCapture(head)
}
