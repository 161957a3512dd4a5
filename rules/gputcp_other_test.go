//go:build !linux

package rules_test

// platformCases: without Linux's /proc and socket diagnostics, none.
func platformCases() []hrCase { return nil }
