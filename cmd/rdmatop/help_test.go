package main

import (
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
