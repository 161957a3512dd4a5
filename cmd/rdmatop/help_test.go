package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// No flag's help says its default twice: cobra appends "(default X)" to
// every flag whose default is not the zero value, so a usage string must
// not say it as well. replay's --interval read "(default 1s, finer for a
// short capture) (default 1s)" (issue 33, item 12).
func TestFlagHelpSaysTheDefaultOnce(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, l := range strings.Split(c.Flags().FlagUsages(), "\n") {
			if strings.Count(l, "(default") > 1 {
				t.Errorf("%s: %s", c.CommandPath(), strings.TrimSpace(l))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	root := newRootCmd()
	walk(root)
	if len(root.Commands()) < 7 {
		t.Fatalf("%d commands: the walk would prove little", len(root.Commands()))
	}
}

// docs/cli.md's exit-code table is one table holding every code rdmatop
// exits with (a blank line had cut code 3 off it), and check --help
// speaks of each of them (it said nothing of 3).
func TestExitCodesTableAndCheckHelp(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	start := slices.Index(lines, "| code | meaning | when |")
	if start < 0 {
		t.Fatal("docs/cli.md: no exit-code table")
	}
	var codes []string
	for _, l := range lines[start+2:] { // after the header and its rule
		if !strings.HasPrefix(l, "|") {
			break // the table ends at its first line that is not a row
		}
		codes = append(codes, strings.TrimSpace(strings.Split(l, "|")[1]))
	}
	want := []string{strconv.Itoa(exitOK), strconv.Itoa(exitFindings), strconv.Itoa(exitUsage), strconv.Itoa(exitFailure)}
	if !slices.Equal(codes, want) {
		t.Errorf("docs/cli.md's table holds the codes %q, want %q", codes, want)
	}
	help, _, _ := runCLI(t, "check", "--help")
	i := strings.Index(help, "Exit status")
	if i < 0 {
		t.Fatalf("check --help says nothing of its exit status:\n%s", help)
	}
	para, _, _ := strings.Cut(help[i:], "\n\n")
	for _, c := range want {
		if !regexp.MustCompile(`\b` + c + `\b`).MatchString(para) {
			t.Errorf("check --help's exit status says nothing of %s: %q", c, para)
		}
	}
}
