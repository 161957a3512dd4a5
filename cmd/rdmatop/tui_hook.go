package main

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/demo"
)

// tuiSource is what the screen shows: one of a demo, a replay or the live host.
type tuiSource struct {
	demo *demo.Scenario
}

// runTUI starts the interactive screen; nil until the ui package is wired.
var runTUI func(cmd *cobra.Command, src tuiSource) error

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
