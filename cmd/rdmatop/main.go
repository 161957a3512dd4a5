// Command rdmatop is top for RoCE and RDMA: live counters, QPs, the wire
// and a diagnosis on one screen, or the same analysis of a capture file.
//
// This package only wires flags to the packages that do the work.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Exit codes (see docs/cli.md).
const (
	exitOK       = 0
	exitFindings = 1 // check: something at warning or above
	exitUsage    = 2 // bad flags, unreadable or damaged input, nothing to check
	exitFailure  = 3 // rdmatop could not do its job here (see failure)
)

// usageError marks errors that are the user's input, not a failure.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// failure marks errors of the machine, not of the input: no permission
// for a live source (the message names the capability), a listen address
// in use, a live run or its recording that failed once running. A script
// can then tell "fix the command" (2) from "fix the host" (3);
// node-problem-detector reads both as Unknown.
type failure struct{ err error }

func (e failure) Error() string { return e.err.Error() }
func (e failure) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	fmt.Fprintln(stderr, "rdmatop:", err)
	if errors.As(err, new(failure)) {
		return exitFailure
	}
	return exitUsage
}

// exitCode lets a command choose its exit status without printing an error.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }
