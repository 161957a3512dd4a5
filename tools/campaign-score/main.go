// Command campaign-score judges rdmatop on a randomized two-point
// campaign (tools/campaign-gen, test/lab/twopoint/run.sh; issue 32): for
// every run under -dir that has its truth (tools/wiretruth) and for each
// capture point, it runs `rdmatop check --json` on that point's capture
// and judges the first finding against what the truth says the network
// did there (wiretruth.NetworkDid, the campaign's own judge), and holds
// rdmatop's per-flow counts against what the truth says that point can
// see (wiretruth.FlowTruth.Compare). Labels come only from the truth; the
// spec line only names the fault family a row is filed under. It prints
// a markdown report:
//
//	go run ./tools/campaign-score -dir /tmp/campaign-1 -title "seed 1 (training)"
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

func main() {
	dir := flag.String("dir", "", "the campaign's output: run directories with truth.json.gz, at any depth")
	bin := flag.String("rdmatop", "", "the rdmatop binary (default: built from ./cmd/rdmatop)")
	which := flag.String("capture", "full", "which capture to judge: full (veth0.pcap, as captured) or cut (veth0.pcap.gz, snaplen 128 as testdata keeps)")
	title := flag.String("title", "", "the report's title")
	misses := flag.Bool("misses", false, "list only the captures judged wrong (not every capture)")
	flag.Parse()
	if *dir == "" || (*which != "full" && *which != "cut") {
		fmt.Fprintln(os.Stderr, "usage: campaign-score -dir DIR [-rdmatop BIN] [-capture full|cut] [-title T]")
		os.Exit(2)
	}
	if err := run(*dir, *bin, *which, *title, *misses); err != nil {
		fmt.Fprintln(os.Stderr, "campaign-score:", err)
		os.Exit(1)
	}
}

func run(dir, bin, which, title string, misses bool) error {
	if bin == "" {
		tmp, err := os.MkdirTemp("", "campaign-score")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		bin = filepath.Join(tmp, "rdmatop")
		build := exec.Command("go", "build", "-o", bin, "./cmd/rdmatop")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building rdmatop: %w", err)
		}
	}
	var runDirs, broken []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(p, "meta.txt")); err == nil {
				_, err := os.Stat(filepath.Join(p, "truth.json.gz"))
				switch drops := captureDrops(filepath.Join(p, "meta.txt")); {
				case err != nil:
					broken = append(broken, filepath.Base(p))
				case drops != "":
					// The truth is the two captures held against each
					// other: a packet one of them dropped is "lost" or
					// "unmatched" in it, though the network delivered it.
					broken = append(broken, fmt.Sprintf("%s (tcpdump dropped %s)", filepath.Base(p), drops))
				default:
					runDirs = append(runDirs, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(runDirs) == 0 {
		return fmt.Errorf("%s: no run directory with a meta.txt and a truth (symbolic links are not followed)", dir)
	}
	slices.Sort(runDirs)
	var results []runResult
	for _, rd := range runDirs {
		res, err := judgeRun(rd, bin, which)
		if err != nil {
			return err
		}
		results = append(results, res)
		fmt.Fprintf(os.Stderr, "scored %s\n", filepath.Base(rd))
	}
	report(os.Stdout, title, which, results, broken, misses)
	return nil
}
