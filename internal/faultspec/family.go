package faultspec

import (
	"slices"
	"strings"
)

// The fault families the randomized campaign draws (tools/campaign-gen).
var AllFamilies = []string{
	"loss", "loss-corr", "loss-gemodel", "jitter", "jitter-reorder", "reorder",
	"duplicate", "corrupt", "slot", "rate", "tbf", "ecn-netem", "red-ecn", "red",
}

// Families names the fault families of one fault column: netem's
// arguments, or a chain of qdiscs "KIND ARGS ; KIND ARGS" (netem, tbf,
// red). A tbf that only paces a red below it is red's bottleneck, not a
// family of its own. A plain delay (no jitter, no reorder) is "delay".
func Families(fault string) []string {
	if fault == "" || fault == "-" {
		return nil
	}
	var fams []string
	parts := strings.Split(fault, ";")
	hasRed := strings.Contains(fault, "red ") || strings.HasPrefix(strings.TrimSpace(fault), "red")
	for _, p := range parts {
		f := strings.Fields(p)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "tbf":
			if !hasRed {
				fams = append(fams, "tbf")
			}
			continue
		case "red":
			if slices.Contains(f, "ecn") {
				fams = append(fams, "red-ecn")
			} else {
				fams = append(fams, "red")
			}
			continue
		case "netem":
			f = f[1:]
		}
		fams = append(fams, netemFamilies(f)...)
	}
	return fams
}

// netemFamilies names what netem's arguments ask for.
func netemFamilies(f []string) []string {
	var fams []string
	for i, w := range f {
		switch w {
		case "loss":
			switch {
			case i+1 < len(f) && (f[i+1] == "gemodel" || f[i+1] == "gmodel"):
				fams = append(fams, "loss-gemodel")
			case i+1 < len(f) && f[i+1] == "state":
				fams = append(fams, "loss-state")
			case slices.Contains(f, "ecn"):
				fams = append(fams, "ecn-netem")
			case i+2 < len(f) && strings.HasSuffix(f[i+2], "%"):
				fams = append(fams, "loss-corr")
			default:
				fams = append(fams, "loss")
			}
		case "delay":
			jitter := i+2 < len(f) && isTime(f[i+2])
			reorder := slices.Contains(f, "reorder")
			switch {
			case jitter && reorder:
				fams = append(fams, "jitter-reorder")
			case jitter:
				fams = append(fams, "jitter")
			case reorder:
				fams = append(fams, "reorder")
			default:
				fams = append(fams, "delay")
			}
		case "duplicate", "corrupt", "slot", "rate":
			fams = append(fams, w)
		}
	}
	return fams
}

// isTime: a tc time ("2ms", "500us", "1s", "1.5ms").
func isTime(w string) bool {
	for _, u := range []string{"ms", "us", "usec", "msec", "s", "sec"} {
		if n, ok := strings.CutSuffix(w, u); ok && n != "" && strings.Trim(n, "0123456789.") == "" {
			return true
		}
	}
	return false
}
