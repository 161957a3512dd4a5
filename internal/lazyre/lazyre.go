// Package lazyre compiles a package's regular expressions on first use
// rather than at init: a command that never reads a kernel log, a saved
// output or an NCCL log does not pay for compiling their patterns.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call (panicking,
// as regexp.MustCompile, on a bad pattern) and returns the same Regexp
// from then on; safe for concurrent use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
