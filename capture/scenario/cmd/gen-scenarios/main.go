// Command gen-scenarios writes the scenario captures of package scenario,
// one pcap per scenario, and a README.md describing each one and the
// analysis it must produce:
//
//	go run ./capture/scenario/cmd/gen-scenarios -o testdata/scenarios
//
// The output is deterministic: running it again gives the same bytes.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rdmatop/rdmatop/capture/scenario"
)

func main() {
	out := flag.String("o", "testdata/scenarios", "output directory")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-scenarios:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	all := scenario.Scenarios()
	for i := range all {
		s := &all[i]
		data, err := s.Pcap()
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.File()), data, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(scenario.README(all)), 0o644)
}
