package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/rules"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/capture"
)

type analysisFlags struct {
	report   bool
	json     bool
	pmtu     int
	maxFlows int
	noICRC   bool
	maxAnoms int
	rules    string
}

func (f *analysisFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.report, "report", false, "print a text report (the default until the TUI lands)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the analysis as one JSON document")
	cmd.Flags().IntVar(&f.pmtu, "pmtu", 0, "path MTU in bytes (256, 512, 1024, 2048, 4096) for counting READ PSNs; default: inferred from the traffic")
	cmd.Flags().IntVar(&f.maxFlows, "max-flows", capture.DefaultMaxFlows, "flow table size; least recently seen flows are evicted beyond it")
	cmd.Flags().IntVar(&f.maxAnoms, "max-anomalies", capture.DefaultMaxAnomalies, "anomalies kept in the log")
	cmd.Flags().BoolVar(&f.noICRC, "no-icrc", false, "skip ICRC verification")
	cmd.Flags().StringVar(&f.rules, "rules", "", "directory of extra rule files (*.yaml); same ids override built-in rules")
}

func (f *analysisFlags) config() (capture.Config, error) {
	switch f.pmtu {
	case 0, 256, 512, 1024, 2048, 4096:
	default:
		return capture.Config{}, usageError{fmt.Errorf("--pmtu %d: the IB path MTU is one of 256, 512, 1024, 2048, 4096", f.pmtu)}
	}
	if f.json && f.report {
		return capture.Config{}, usageError{errors.New("--json and --report are exclusive")}
	}
	return capture.Config{
		TrackerConfig: capture.TrackerConfig{PMTU: f.pmtu, MaxFlows: f.maxFlows, MaxAnomalies: f.maxAnoms},
		NoICRC:        f.noICRC,
	}, nil
}

func newReplayCmd() *cobra.Command {
	var fl analysisFlags
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "analyse a capture file (pcap/pcapng, optionally gzip) or play back a recorded bundle",
		Long: `Analyse the RoCE traffic in a capture file: decode every RoCEv2 (UDP 4791)
and RoCEv1 (EtherType 0x8915) packet and follow each queue pair's PSN stream:
gaps, retransmissions, NAKs, RNR NAKs, CNPs, ECN marks, ICRC errors and
request-to-ACK round trips. Flows that show trouble are listed first.

A damaged file is analysed up to the damage; the error names the record and
byte offset, and the exit status is 2.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := fl.config()
			if err != nil {
				return err
			}
			tui := !fl.json && !fl.report && isTerminal(cmd.OutOrStdout())
			if isBundleFile(args[0]) {
				if tui {
					frames, err := bundleFrames(cmd.Context(), args[0], fl.rules)
					if err != nil {
						return usageError{err}
					}
					return runTUI(cmd, tuiSource{frames: frames})
				}
				return replayBundle(cmd.Context(), cmd.OutOrStdout(), args[0], fl.json)
			}
			pack, perr := rules.WithDir(fl.rules)
			if perr != nil {
				return usageError{perr}
			}
			if tui {
				// The screen opens at once and shows the reading's progress.
				path := args[0]
				return runTUI(cmd, tuiSource{label: path, load: func(progress func(done, total int64)) ([]monitor.Frame, error) {
					sum, pkts, err := analyzeWithPackets(path, cfg, progress)
					if sum == nil {
						return nil, err
					}
					fs := oneShot(pack, rules.Frame{Time: lastTime(sum), Wire: sum}).Findings
					return []monitor.Frame{{Time: lastTime(sum), Mode: monitor.ModeReplay, Total: 1, Source: path,
						Wire: sum, Packets: pkts, Findings: fs}}, nil
				}})
			}
			sum, _, err := analyzeWithPackets(args[0], cfg, nil)
			if sum == nil {
				return err
			}
			// The wire rules run on every replay: findings come with the analysis.
			fs := oneShot(pack, rules.Frame{Time: lastTime(sum), Wire: sum}).Findings
			if perr := printReplay(cmd.OutOrStdout(), sum, fs, fl.json); perr != nil {
				return perr
			}
			return err
		},
	}
	fl.register(cmd)
	return cmd
}

// analyzeWithPackets is capture.AnalyzeFile keeping the analyzer's ring of
// recent packets, which the flows view lists per flow.
func analyzeWithPackets(path string, cfg capture.Config, progress func(done, total int64)) (*capture.Summary, []capture.PacketLine, error) {
	src, err := capture.OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	a := capture.NewAnalyzer(cfg)
	stop := make(chan struct{})
	if progress != nil {
		go func() {
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					progress(src.Progress())
				}
			}
		}()
	}
	runErr := a.Run(src)
	close(stop)
	s := a.Summary()
	s.File, s.Format, s.Compressed = path, string(src.Format), src.Compressed
	s.LinkType, s.Snaplen = capture.LinkName(src.LinkType()), src.Snaplen
	if runErr != nil {
		s.Error = runErr.Error()
	}
	return s, a.Tracker().Recent(0, 4096), runErr
}

// replayDoc is the JSON of `rdmatop replay CAPTURE --json`: the analysis
// with the findings of the wire rules.
type replayDoc struct {
	*capture.Summary
	Findings []rules.Finding `json:"findings"`
}

func printReplay(w io.Writer, s *capture.Summary, fs []rules.Finding, asJSON bool) error {
	if fs == nil {
		fs = []rules.Finding{}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(replayDoc{Summary: s, Findings: fs})
	}
	if err := capture.WriteReport(w, s, capture.ReportOptions{}); err != nil {
		return err
	}
	if len(fs) > 0 {
		fmt.Fprintln(w, "\nfindings")
		writeFindings(w, checkResult{Findings: fs})
	}
	return nil
}
