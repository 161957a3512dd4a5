package rules

import (
	"regexp"
)

// Confirm and fix lines are written with upper-case placeholders:
// DEV, N (a port, after a slash: DEV/N, ports/N), IFACE, PRIO, PID,
// QPN, PEER_IP, PCI_ADDR. A finding's lines come with every placeholder its
// objects know filled in, and those its rule's vars compute from its data
// (a PCI address a kernel log line names), so that they run as printed;
// what the finding cannot know (a peer's GID index) stays a placeholder.
var placeholder = regexp.MustCompile(`\b(DEV|IFACE|NETDEV|PRIO|PID|QPN|PEER_IP|PCI_ADDR)\b|/N\b`)

// renderCommands fills the placeholders of lines from a finding's objects,
// its rule's vars (placeholder → value) and then what the frame says
// without doubt (frameContext: the one RDMA port, the capture's
// interface, the one peer); lines without any come back as they are (no
// copy).
func renderCommands(lines []string, objs, vars, frame map[string]string) []string {
	if len(objs) == 0 && len(vars) == 0 && len(frame) == 0 {
		return lines
	}
	val := func(ph string) (string, bool) {
		if v := vars[ph]; v != "" {
			return v, true
		}
		if v, ok := objVal(ph, objs); ok {
			return v, true
		}
		if d := objs["device"]; d != "" && frame["device"] != d {
			return "", false // the frame's port and peer are another device's
		}
		return objVal(ph, frame)
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

// objVal is the value of placeholder ph among objs (an object's keys).
func objVal(ph string, objs map[string]string) (string, bool) {
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
		if p := objs["port"]; p != "" {
			return "/" + p, true
		}
		return "", false
	}
	v := objs[k]
	return v, v != ""
}

// varObjects: the object key a var's value names, when the object itself
// does not (a host-scope finding about one NIC of the host).
var varObjects = map[string]string{"PCI_ADDR": "pci", "DEV": "device", "NETDEV": "netdev", "IFACE": "netdev"}

// nameByVars adds to a finding's objects what its vars found out about
// the object the evidence is about (the NIC a kernel log line names),
// without overriding what the object says itself.
func nameByVars(objs, vars map[string]string) {
	for ph, v := range vars {
		if k, ok := varObjects[ph]; ok && v != "" && objs[k] == "" {
			objs[k] = v
		}
	}
}

// varValues computes r's vars on o (nil without any): each a string, or
// left out when it yields anything else or fails.
func (e *Engine) varValues(r *Rule, o *object) map[string]string {
	if len(r.vars) == 0 {
		return nil
	}
	env := e.load(o, r.Params)
	out := make(map[string]string, len(r.vars))
	for name, p := range r.vars {
		if v, err := p(env); err == nil {
			if s, ok := v.(string); ok && s != "" {
				out[name] = s
			}
		}
	}
	return out
}
