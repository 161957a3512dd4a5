package main

import (
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/demo"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/rules"
)

// tuiSource is what the screen shows: a demo, replayed frames, or (when
// both are nil) the live host.
type tuiSource struct {
	demo   *demo.Scenario
	frames []monitor.Frame
	// load, when set, produces the frames while the screen shows its
	// progress (a large capture); label names what is read.
	load  func(progress func(done, total int64)) ([]monitor.Frame, error)
	label string
	// live
	root, netdev, device string
	interval             time.Duration
	pack                 *rules.Pack
}

// runTUI starts the interactive screen; nil until the ui package is wired.
var runTUI func(cmd *cobra.Command, src tuiSource) error

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
