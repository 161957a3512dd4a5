package rules

import "regexp"

// Confirm and fix lines are written with upper-case placeholders:
// DEV, N (a port, after a slash: DEV/N, ports/N), IFACE, PRIO, PID,
// QPN, PEER_IP. A finding's lines come with every placeholder its objects
// know filled in, so that they run as printed; what the finding cannot
// know (a peer's GID index, a PCI address) stays a placeholder.
var placeholder = regexp.MustCompile(`\b(DEV|IFACE|NETDEV|PRIO|PID|QPN|PEER_IP)\b|/N\b`)

// renderCommands fills the placeholders of lines from a finding's objects;
// lines without any come back as they are (no copy).
func renderCommands(lines []string, objs map[string]string) []string {
	if len(objs) == 0 {
		return lines
	}
	val := func(ph string) (string, bool) {
		var k string
		switch ph {
		case "DEV":
			k = "device"
		case "IFACE", "NETDEV":
			k = "netdev"
		case "PRIO":
			k = "priority"
		case "PID":
			k = "pid"
		case "QPN":
			k = "qpn"
		case "PEER_IP":
			k = "dst"
		case "/N":
			if p, ok := objs["port"]; ok && p != "" {
				return "/" + p, true
			}
			return "", false
		}
		v, ok := objs[k]
		return v, ok && v != ""
	}
	var out []string
	for i, l := range lines {
		r := placeholder.ReplaceAllStringFunc(l, func(ph string) string {
			if v, ok := val(ph); ok {
				return v
			}
			return ph
		})
		if r != l && out == nil {
			out = append(make([]string, 0, len(lines)), lines[:i]...)
		}
		if out != nil {
			out = append(out, r)
		}
	}
	if out == nil {
		return lines
	}
	return out
}
