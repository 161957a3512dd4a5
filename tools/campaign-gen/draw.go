package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// A fault is one drawn family's qdisc: netem arguments (merged with
// another netem family on the same direction) or a chain (tbf, red).
type fault struct {
	family string
	netem  string // netem arguments, or "" for a chain
	chain  string // "tbf ... [; red ...]"
	ecn    bool   // needs ECN-capable packets (--tclass=2)
	// rate: the bottleneck it sets, MB/s (0: none); slow: it costs the
	// transport recovery time (loss, long queues), so the run carries
	// fewer bytes.
	rate float64
	slow bool
}

// lossKind: the families that set netem's one loss model.
var lossKind = []string{"loss", "loss-corr", "loss-gemodel", "ecn-netem"}

// delayKind: the families that set netem's one delay.
var delayKind = []string{"jitter", "jitter-reorder", "reorder"}

// chainKind: the families that are a qdisc chain of their own.
var chainKind = []string{"tbf", "red", "red-ecn"}

func pct(r *rand.Rand, lo, hi float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", lo+r.Float64()*(hi-lo)), "0"), ".") + "%"
}

func ms(r *rand.Rand, lo, hi float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.1f", lo+r.Float64()*(hi-lo)), "0"), ".") + "ms"
}

// drawFault draws the parameters of one family for a path whose largest
// frame is frame bytes. The ranges make each family act on a run of a few
// thousand packets (a percent of them at least) without stalling the
// transport for the whole run.
func drawFault(r *rand.Rand, family string, frame int) fault {
	f := fault{family: family}
	switch family {
	case "loss":
		f.netem, f.slow = "loss "+pct(r, 0.3, 5), true
	case "loss-corr":
		f.netem, f.slow = "loss "+pct(r, 0.5, 5)+" "+pct(r, 25, 75), true
	case "loss-gemodel":
		// p (good→bad), r (bad→good), 1-h (loss in bad), 1-k (loss in good)
		f.netem = "loss gemodel " + pct(r, 0.5, 3) + " " + pct(r, 20, 60) + " " + pct(r, 50, 100) + " " + pct(r, 0, 0.3)
		f.slow = true
	case "jitter":
		d := 1 + r.Float64()*4
		f.netem = "delay " + ms(r, d, d) + " " + ms(r, 0.3, d)
		if r.IntN(2) == 0 {
			f.netem += " " + pct(r, 10, 50) // jitter correlation
		}
	case "jitter-reorder":
		d := 1 + r.Float64()*4
		f.netem = "delay " + ms(r, d, d) + " " + ms(r, 0.3, d) + " reorder " + pct(r, 5, 30)
	case "reorder":
		f.netem = "delay " + ms(r, 1, 5) + " reorder " + pct(r, 5, 30)
		if r.IntN(2) == 0 {
			f.netem += " " + pct(r, 25, 50)
		}
	case "duplicate":
		f.netem = "duplicate " + pct(r, 1, 10)
	case "corrupt":
		f.netem, f.slow = "corrupt "+pct(r, 0.3, 3), true
	case "slot":
		// Bursts: packets wait for a slot every MIN–MAX, at most N a slot.
		lo := 1 + r.Float64()*3
		f.netem = fmt.Sprintf("slot %s %s packets %d", ms(r, lo, lo), ms(r, lo+1, lo+6), 4+r.IntN(29))
		f.slow = true
	case "rate":
		mbit := 10 + r.IntN(51)
		f.netem, f.rate = fmt.Sprintf("rate %dmbit", mbit), float64(mbit)/8
	case "tbf":
		// A shallow queue: 2–5 full frames before the tail drops. The
		// bucket must hold a whole frame or tbf drops every one larger.
		mbit := 10 + r.IntN(31)
		f.chain = fmt.Sprintf("tbf rate %dmbit burst %d limit %d", mbit, 2*frame, (2+r.IntN(4))*frame)
		f.rate, f.slow = float64(mbit)/8, true
	case "red", "red-ecn":
		// RED needs a queue: a tbf drains it at the bottleneck's rate.
		// min 3–6 frames, max 3×min (RED's usual), burst (2 min + max) /
		// (3 avpkt) + 1 as tc-red(8) advises.
		mbit := 10 + r.IntN(31)
		minB := (3 + r.IntN(4)) * frame
		maxB := 3 * minB
		avpkt := 1500
		red := fmt.Sprintf("red limit %d min %d max %d avpkt %d burst %d probability %s bandwidth %dmbit",
			8*maxB, minB, maxB, avpkt, (2*minB+maxB)/(3*avpkt)+1, fmt.Sprintf("%.2f", 0.05+r.Float64()*0.45), mbit)
		if family == "red-ecn" {
			red += " ecn"
			f.ecn = true
		}
		f.chain = fmt.Sprintf("tbf rate %dmbit burst %d limit %d ; %s", mbit, 2*frame, 16*maxB, red)
		f.rate, f.slow = float64(mbit)/8, true
	case "ecn-netem":
		f.netem, f.ecn = "loss "+pct(r, 5, 30)+" ecn", true
	default:
		panic("unknown family " + family)
	}
	return f
}

// compatible: two faults can sit on one direction (one netem holds one
// loss model and one delay; a chain holds one tbf).
func compatible(a, b fault) bool {
	same := func(kind []string) bool { return slices.Contains(kind, a.family) && slices.Contains(kind, b.family) }
	if same(lossKind) || same(delayKind) || same(chainKind) {
		return false
	}
	// slot and a delay both schedule netem's queue: keep them apart.
	slotAndDelay := func(x, y fault) bool { return x.family == "slot" && slices.Contains(delayKind, y.family) }
	if slotAndDelay(a, b) || slotAndDelay(b, a) {
		return false
	}
	return a.family != b.family
}

// column writes one direction's faults as campaign.sh reads them: one
// netem (its families' arguments merged) and then any chain under it.
func column(fs []fault) string {
	if len(fs) == 0 {
		return "-"
	}
	var netem []string
	var chain string
	for _, f := range fs {
		if f.chain != "" {
			chain = f.chain
		} else {
			netem = append(netem, f.netem)
		}
	}
	switch {
	case len(netem) == 0:
		return chain
	case chain == "":
		return strings.Join(netem, " ")
	default:
		return "netem " + strings.Join(netem, " ") + " ; " + chain
	}
}
