package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/capture/twopoint"
	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/ui"
)

// twoPointsOutput is how a comparison is given: as JSON, on the screen,
// else as text; check: exit 1 when the path between the points lost,
// corrupted or copied packets.
type twoPointsOutput struct{ json, screen, check bool }

// compareTwoPoints compares two captures of the same traffic (check A B,
// replay A B): the verdict names the segment where packets were lost,
// then each way's totals and each flow's fate. Exit 2 when the captures
// cannot be compared.
func compareTwoPoints(cmd *cobra.Command, pathA, pathB, upstream string, out twoPointsOutput) error {
	r, err := twopoint.CompareFiles(pathA, pathB, twopoint.Options{Upstream: upstream})
	if err != nil {
		return usageError{err}
	}
	switch {
	case out.json:
		err = writeJSON(cmd.OutOrStdout(), r)
	case out.screen:
		err = runTwoPointsScreen(cmd.Context(), r)
	default:
		err = writeTwoPoints(cmd.OutOrStdout(), r)
	}
	if err == nil && r.Damage() && out.check {
		err = exitCode(exitFindings)
	}
	return err
}

// runTwoPointsScreen shows r until the user quits.
func runTwoPointsScreen(ctx context.Context, r *twopoint.Result) error {
	if theme != "dark" && theme != "light" {
		return usageError{fmt.Errorf("--theme %q: dark or light", theme)}
	}
	m := ui.NewTwoPoints(r, ui.Options{NoColor: os.Getenv("NO_COLOR") != "", Theme: ui.Theme(theme)})
	if _, err := tea.NewProgram(m, tea.WithContext(ctx)).Run(); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// writeTwoPoints prints the comparison, the answer first.
func writeTwoPoints(w io.Writer, r *twopoint.Result) error {
	b := &strings.Builder{}
	for _, p := range []twopoint.Point{r.A, r.B} {
		fmt.Fprintf(b, "capture  %s  %s (%s RoCE packets)\n", p.Name, termtext.Sanitize(p.File), twopoint.Count(uint64(p.Packets)))
	}
	fmt.Fprintf(b, "clocks   %s\n", offsetText(r.Offset))
	fmt.Fprintf(b, "\nverdict  %s\n", r.Verdict)
	b.WriteString("\nway       flows        sent   delivered      lost  corrupted  copied  reordered  CE-marked  delay p50/p99\n")
	for _, s := range r.Segments {
		d := segmentDelay(r, s.Upstream)
		fmt.Fprintf(b, "%-6s %8d %11s %11s %9s %10s %7s %10s %10s  %s\n", s.Upstream+"->"+s.Downstream, s.Flows,
			twopoint.Count(s.Sent), twopoint.Count(s.Delivered), twopoint.Count(s.Lost), twopoint.Count(s.Corrupted), twopoint.Count(s.Duplicated),
			twopoint.Count(s.Reordered), twopoint.Count(s.CEMarked), d)
	}
	writeTwoPointNotes(b, r)
	b.WriteString("\nflows (troubled first)\n")
	// A flow that holds nothing of its own (its packets were another
	// flow's, corrupted in their headers on the way) is left to --json.
	flows := slices.DeleteFunc(troubledFirst(r.Flows), func(f twopoint.FlowFate) bool { return f.Sent+f.Appeared+f.Duplicated == 0 })
	more := max(0, len(flows)-flowsShown)
	for _, f := range flows[:len(flows)-more] {
		fmt.Fprintf(b, "  %s -> %s QP 0x%06x  %s->%s  %s\n", f.Src, f.Dst, f.DestQP, f.Upstream, f.Downstream, fateText(f))
	}
	if more > 0 {
		fmt.Fprintf(b, "  ... %s more flows (--json lists every one)\n", twopoint.Count(uint64(more)))
	}
	if r.Damage() {
		b.WriteString("\n" + causeText(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// causeText says what, between the two points, does what the ways show:
// flipped bits first when corruption is most of the damage.
func causeText(r *twopoint.Result) string {
	var lost, corrupted, copied uint64
	for _, s := range r.Segments {
		lost, corrupted, copied = lost+s.Lost, corrupted+s.Corrupted, copied+s.Duplicated
	}
	cause := "cause    the path between the two capture points: a switch queue that overflowed or a\n" +
		"         class without PFC, a link with CRC errors; with the captures on the two hosts,\n" +
		"         the NICs' own drops too (ethtool -S: rx_discards_phy, out_of_buffer).\n"
	if corrupted > lost {
		cause = "cause    bits flipped between the two capture points: a link with CRC (FCS) or symbol\n" +
			"         errors, a bad optic or cable; the receiving NIC drops such packets, so to the\n" +
			"         transport they are lost.\n"
	}
	if copied > lost+corrupted {
		cause = "cause    the path between the two capture points copies packets: a mirror or tap that\n" +
			"         forwards as well, a loop, or a link-layer retransmission; the receiver sees\n" +
			"         duplicates (repeated ACKs, duplicate requests).\n"
	}
	return cause + "confirm  on each switch of the path: discards, PFC and CRC counters of its ports\n" +
		"         (SONiC: show interfaces counters; show pfc counters; show queue counters),\n" +
		"         and ethtool -S on both hosts.\n"
}

// writeTwoPointNotes says what the points could not tell.
func writeTwoPointNotes(b *strings.Builder, r *twopoint.Result) {
	var appeared, unknown uint64
	for _, s := range r.Segments {
		appeared += s.Appeared
		unknown += s.Unknown
	}
	if appeared > 0 {
		fmt.Fprintf(b, "\nincomplete: %s packets reached a downstream point that the upstream capture does not hold: it missed them (its own drops), so they are counted neither way\n", twopoint.Count(appeared))
	}
	if unknown > 0 {
		fmt.Fprintf(b, "unknown: %s packets were sent before the other capture's first packet or after its last: lost, or not captured; not counted as lost\n", twopoint.Count(unknown))
	}
	if n := r.OneSide["A"] + r.OneSide["B"]; n > 0 {
		fmt.Fprintf(b, "not compared: %s flows of senders no packet of which both captures hold (A %d, B %d): a source address corrupted on the way, or traffic one point alone carries\n",
			twopoint.Count(uint64(n)), r.OneSide["A"], r.OneSide["B"])
	}
	if r.A.Unchecked+r.B.Unchecked > 0 {
		b.WriteString("headers only: ICRCs cannot be checked (snap length): a packet corrupted in its headers is told by its two copies, one corrupted past them counts as delivered\n")
	}
	b.WriteString("not seen: loss before the upstream capture or after the downstream one (check each capture alone: rdmatop check FILE)\n")
}

// troubledFirst orders flows by their damage, then by packets.
func troubledFirst(fs []twopoint.FlowFate) []twopoint.FlowFate {
	out := slices.Clone(fs)
	score := func(f twopoint.FlowFate) uint64 { return f.Lost + f.Corrupted + f.Duplicated }
	slices.SortStableFunc(out, func(a, b twopoint.FlowFate) int {
		if c := cmp.Compare(score(b), score(a)); c != 0 {
			return c
		}
		return cmp.Compare(b.Sent, a.Sent)
	})
	return out
}

// fateText is a flow's fate in words: what it sent and what became of
// it, the counts that are not zero.
func fateText(f twopoint.FlowFate) string {
	parts := []string{"sent " + twopoint.Count(f.Sent)}
	add := func(n uint64, what string) {
		if n > 0 {
			parts = append(parts, what+" "+twopoint.Count(n))
		}
	}
	add(f.Lost, "lost")
	add(f.Corrupted, "corrupted")
	add(f.Duplicated, "copied")
	if f.Reordered > 0 {
		parts = append(parts, fmt.Sprintf("reordered %s (by up to %d)", twopoint.Count(f.Reordered), f.MaxOvertaken))
	}
	add(f.CEMarked, "CE-marked")
	add(f.Unknown, "unknown")
	add(f.Appeared, "appeared (not in "+f.Upstream+"'s capture)")
	if f.Delay.Samples > 0 {
		parts = append(parts, "delay p50 "+short(f.Delay.P50)+" p99 "+short(f.Delay.P99))
	}
	if s := f.Sender; s != nil && s.Resent+s.NAKs+s.RNRNAKs > 0 {
		parts = append(parts, fmt.Sprintf("| sender resent %s in %s go-back-N (%s on its timer), got %s NAKs, %s RNR NAKs",
			twopoint.Count(s.Resent), twopoint.Count(s.Episodes), twopoint.Count(s.TimerEpisodes), twopoint.Count(s.NAKs), twopoint.Count(s.RNRNAKs)))
	}
	return strings.Join(parts, "  ")
}

// short writes a delay with three significant digits: 21.5µs, 23.6ms.
func short(ns int64) string {
	d := time.Duration(ns)
	for _, unit := range []time.Duration{time.Nanosecond, 10 * time.Nanosecond, 100 * time.Nanosecond,
		time.Microsecond, 10 * time.Microsecond, 100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond} {
		if d < unit*1000 {
			return d.Round(unit).String()
		}
	}
	return d.Round(100 * time.Millisecond).String()
}

// flowsShown is how many flows the text lists; --json has every one.
const flowsShown = 20

// segmentDelay is the delay of the way's busiest flow.
func segmentDelay(r *twopoint.Result, upstream string) string {
	var best *twopoint.FlowFate
	for i := range r.Flows {
		f := &r.Flows[i]
		if f.Upstream == upstream && (best == nil || f.Delay.Samples > best.Delay.Samples) {
			best = f
		}
	}
	if best == nil || best.Delay.Samples == 0 {
		return "-"
	}
	return short(best.Delay.P50) + "/" + short(best.Delay.P99)
}

// offsetText says how B's clock stands to A's.
func offsetText(o twopoint.Offset) string {
	switch {
	case !o.Known:
		return "offset unknown (traffic one way only): the captures' clocks are taken to agree"
	case o.Inconsistent:
		return fmt.Sprintf("B - A = %s, inconsistent by %s: a clock stepped or drifted during the captures", time.Duration(o.NS), time.Duration(o.UncertaintyNS))
	}
	return fmt.Sprintf("B - A = %s ± %s (from packets seen at both points, both ways)", time.Duration(o.NS), time.Duration(o.UncertaintyNS))
}
