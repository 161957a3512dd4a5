package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/rules"
	"github.com/rdmatop/rdmatop/saved"
)

func newCheckCmd() *cobra.Command {
	var (
		hf       hostFlags
		wf       wireFlags
		asJSON   bool
		oneLine  bool
		upstream string
	)
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "evaluate the diagnosis rules once: on this host, a capture, a recording or saved outputs",
		Long: `Evaluate the rules and print what is wrong and what to do about it.

  rdmatop check [-i NETDEV|-d DEV] [--root DIR] [--interval D]   this host: two samples
                                      --interval apart (with -i, and the RoCE packets
                                      captured on NETDEV between them)
  rdmatop check FILE                  a pcap/pcapng capture or an rdmatop recording
  rdmatop check A B                   two captures of the same traffic at two points
                                      (both hosts, a host and a switch mirror): where
                                      each packet was lost, corrupted, copied, reordered
                                      or CE-marked, and the clock offset (docs/both-ends.md)
  rdmatop check PATH...               what a customer sent: a sosreport (directory or
                                      tarball), a directory of saved outputs, or files of
                                      ethtool -S, sysfs counter listings, rdma statistic /
                                      res show qp / link, ip -s link, mlnx_qos -i, dmesg,
                                      journalctl -k, ibv_devinfo -v, mlxconfig query.
                                      Files are recognised by content; several readings
                                      of the same counters give deltas (and rates when a
                                      date line precedes each). docs/saved-outputs.md
                                      says what to ask a customer for.

Exit status (docs/cli.md): 0 when nothing is at warning or above, 1 when
something is (in a recording: at any time during it), 2 on usage or input
errors and when nothing was checked (UNKNOWN: why). check never exits 3
(a failure of the host, as in capture, record, serve): a source it may not
read is reported as the running-unprivileged finding, and the rest is
checked. rdmatop never runs the confirm or fix commands it prints.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if oneLine && asJSON {
				// Two formats asked for: neither is guessed.
				err = usageError{errors.New("--oneline and --json are exclusive: --oneline prints one line of text")}
			} else {
				err = runCheck(cmd, args, &hf, &wf, upstream, asJSON, oneLine)
			}
			var ec exitCode
			if oneLine && err != nil && !errors.As(err, &ec) {
				// node-problem-detector reads one line of stdout.
				fmt.Fprintln(cmd.OutOrStdout(), "UNKNOWN: "+firstLine(termtext.Sanitize(err.Error())))
				return exitCode(exitUsage)
			}
			return err
		},
	}
	hf.register(cmd)
	wf.registerLive(cmd, true)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	cmd.Flags().StringVar(&upstream, "upstream", "", "with two captures (check A B): A or B, the one every packet passes first, when the traffic goes one way only (otherwise worked out from the packets)")
	completeNames(cmd, "upstream", fixedNames("A", "B"))
	cmd.Flags().BoolVar(&oneLine, "oneline", false, "print one line (OK, or the top finding; UNKNOWN on bad input) for node-problem-detector and cron; not with --json")
	return cmd
}

func runCheck(cmd *cobra.Command, args []string, hf *hostFlags, wf *wireFlags, upstream string, asJSON, oneLine bool) error {
	pack, err := hf.pack()
	if err != nil {
		return err
	}
	var res checkResult
	switch {
	case len(args) == 0:
		res, err = checkLive(cmd, hf, wf, pack)
	case hf.ncclLog != "" || hf.ncclRAS != "":
		return usageError{errors.New("--nccl-log and --nccl-ras look at a running job on this host; to check a saved log, give it as a FILE")}
	case upstream != "" && len(args) != 2:
		return usageError{errors.New("--upstream says which of two captures (check A B) is upstream")}
	case len(args) == 2 && saved.IsCaptureFile(args[0]) && saved.IsCaptureFile(args[1]):
		return compareTwoPoints(cmd, args[0], args[1], upstream, twoPointsOutput{json: asJSON, check: true})
	case len(args) > 1 || !saved.IsCaptureFile(args[0]) && !namedCapture(args[0]):
		res, err = checkSaved(cmd, args, pack)
	default:
		res, err = checkReplay(cmd, args[0], hf, wf, pack)
	}
	if err != nil {
		return err
	}
	if oneLine {
		return printOneLine(cmd, res)
	}
	return printCheck(cmd, res, asJSON)
}

// checkLive checks this host: two samples a tick apart.
func checkLive(cmd *cobra.Command, hf *hostFlags, wf *wireFlags, pack *rules.Pack) (checkResult, error) {
	if err := hf.check(cmd); err != nil {
		return checkResult{}, err
	}
	f, err := twoSamples(cmd.Context(), hf, wf, pack)
	if err != nil {
		return checkResult{}, err
	}
	res := checkResult{Source: "live", Findings: f.Findings, Rules: f.Rules, Unknown: unknownReason(f, hf)}
	var hs hungSources
	hs.add(f.Snapshot)
	res.Hung = hs.list
	return res, nil
}

// checkReplay checks a capture or a recording by replaying it whole.
func checkReplay(cmd *cobra.Command, file string, hf *hostFlags, wf *wireFlags, pack *rules.Pack) (checkResult, error) {
	if err := hf.checkTimeline(cmd); err != nil {
		return checkResult{}, err
	}
	open, kind, err := replayOpener(file, hf, wf, pack, 0, false)
	if err != nil {
		return checkResult{}, err
	}
	batchMemoryLimit(wf.maxFlows)
	r, err := open()
	if err != nil {
		return checkResult{}, usageError{err}
	}
	checked := false
	var timing tickTiming
	var hs hungSources
	for f, err := range r.Frames(cmd.Context()) {
		if err != nil {
			break
		}
		checked = checked || f.Checked()
		if f.Snapshot != nil {
			timing.add(&f)
		}
		hs.add(f.Snapshot)
	}
	if err := cmd.Context().Err(); err != nil {
		return checkResult{}, err
	}
	out := r.Result()
	if out.Err != nil {
		return checkResult{}, usageError{out.Err}
	}
	res := checkResult{Source: "capture " + file, Findings: out.Findings, Rules: out.Rules}
	for i := range hs.list {
		hs.list[i].Of = hs.ticks
	}
	res.Hung = hs.list
	if kind == kindBundle {
		res.Source = "bundle " + file
		if timing.Late > 0 {
			res.Timing = &timing
		}
	}
	if !checked {
		res.Unknown = "nothing was checked: the file holds no RDMA port and no RoCE packet"
	}
	if t, ok := r.Tape().(*monitor.BundleTape); ok && t.Truncated() {
		// A recording cut short says nothing of what came after the
		// cut (the recorder was killed, or the file truncated on its
		// way): what it holds is analysed, but it is no clean bill.
		res.Incomplete = fmt.Sprintf("the recording ends inside %s (the recorder was killed, or the file was cut): what it holds up to there is analysed, nothing after", t.CutAt())
		res.Unknown = res.Incomplete
	}
	return res, nil
}

// printOneLine prints the verdict as one line: what node-problem-detector
// shows as the condition's message.
func printOneLine(cmd *cobra.Command, res checkResult) error {
	if res.Unknown != "" && !rules.AtLeastWarning(res.Findings) {
		fmt.Fprintln(cmd.OutOrStdout(), "UNKNOWN: "+termtext.Sanitize(res.Unknown))
		return exitCode(exitUsage)
	}
	top, level, n := oneLineTop(res.Findings, res.Source == "live")
	hung := ""
	if len(res.Hung) > 0 {
		// What was judged rests on what answered: say what did not.
		var names []string
		for _, h := range res.Hung {
			names = append(names, h.Source)
		}
		hung = " (probes hung: " + termtext.Sanitize(strings.Join(names, ", ")) + ")"
	}
	if top == nil {
		fmt.Fprintln(cmd.OutOrStdout(), "OK: no finding at warning or above"+hung)
		return nil
	}
	line := strings.ToUpper(string(level)) + ": " + termtext.Sanitize(top.Title) + " on " + termtext.Sanitize(objects(top.Objects)) + " [" + top.Rule + "]"
	var notes []string
	if top.Resolved {
		notes = append(notes, "resolved")
	}
	if n > 1 {
		notes = append(notes, fmt.Sprintf("+%d more", n-1))
	}
	if res.Incomplete != "" {
		notes = append(notes, "recording cut short: nothing after it is known")
	}
	if len(notes) > 0 {
		line += " (" + strings.Join(notes, ", ") + ")"
	}
	fmt.Fprintln(cmd.OutOrStdout(), line+hung)
	if res.Incomplete != "" {
		return exitCode(exitUsage)
	}
	return exitCode(exitFindings)
}

// oneLineTop picks what the one line names: a cause, never a symptom a
// cause explains (the blackhole's retransmissions are its ACK timeouts'),
// at the worst severity of its group (the cause and what it explains: an
// ACK timeout that put a QP in ERR is a critical matter). Live, what is
// active comes first; in a file, the worst that happened comes first, a
// critical that resolved before the end still above a standing warning.
// Among equals, the grouped order of the findings (the text's order).
// n counts the findings at warning or above.
func oneLineTop(fs []rules.Finding, live bool) (top *rules.Finding, level rules.Severity, n int) {
	sev := map[string]rules.Severity{}
	for i := range fs {
		sev[rules.RefKey(fs[i].Rule, fs[i].Objects)] = fs[i].Severity
	}
	best := -1
	for i := range fs {
		f := &fs[i]
		if f.Severity != rules.Info {
			n++
		}
		if f.ExplainedBy != nil {
			continue
		}
		lv := f.Severity
		for _, r := range f.Explains {
			if s := sev[rules.RefKey(r.Rule, r.Objects)]; s.Rank() > lv.Rank() {
				lv = s
			}
		}
		if lv == rules.Info {
			continue
		}
		score := lv.Rank() * 10
		active := 0
		if !f.Resolved {
			active = 1
		}
		if live {
			score = active*100 + lv.Rank()
		} else {
			score += active
		}
		if score > best {
			best, top, level = score, f, lv
		}
	}
	return top, level, n
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// printCheck prints the findings and sets the exit status.
func printCheck(cmd *cobra.Command, res checkResult, asJSON bool) error {
	if res.Findings == nil {
		res.Findings = []rules.Finding{}
	}
	res.Worst = string(rules.Worst(res.Findings))
	if asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		writeFindings(cmd.OutOrStdout(), res)
		if res.Host != nil {
			writeQoS(cmd.OutOrStdout(), &res.Host.Config, nil)
		}
		if res.Incomplete != "" && len(res.Findings) > 0 {
			fmt.Fprintln(cmd.OutOrStdout(), "\nINCOMPLETE: "+termtext.Sanitize(res.Incomplete))
		}
	}
	if res.Incomplete != "" {
		return exitCode(exitUsage) // a truncated input (docs/cli.md), findings or not
	}
	if rules.AtLeastWarning(res.Findings) {
		return exitCode(exitFindings)
	}
	if res.Unknown != "" {
		return exitCode(exitUsage)
	}
	return nil
}

// namedCapture reports whether a file's name says it is a capture (.pcap,
// .pcapng, .cap, gzipped or not): one that does not hold one is a damaged
// capture, and check says so as replay does, rather than looking for
// saved command outputs in it.
func namedCapture(p string) bool {
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(p)), ".gz")
	for _, ext := range []string{".pcap", ".pcapng", ".cap"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}
