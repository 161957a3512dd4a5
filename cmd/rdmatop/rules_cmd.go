package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/rules"
)

func newRulesCmd() *cobra.Command {
	var (
		asJSON, markdown bool
		dir              string
	)
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "list the diagnosis rules (id, severity, title, parameters, source file)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := rules.WithDir(dir)
			if err != nil {
				return usageError{err}
			}
			w := cmd.OutOrStdout()
			switch {
			case markdown:
				_, err := io.WriteString(w, rules.Markdown(p))
				return err
			case asJSON:
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(p.Rules)
			}
			// One line a rule, its parameters under it (name=value, sorted),
			// indented: a table of both ran to 260 columns.
			idW, srcW := len("ID"), len("SOURCE")
			for _, r := range p.Rules {
				idW, srcW = max(idW, len(r.ID)), max(srcW, len(r.Source))
			}
			row := func(id, sev, scope, src, title string) {
				fmt.Fprintf(w, "%-*s  %-8s  %-8s  %-*s  %s\n", idW, id, sev, scope, srcW, src, title)
			}
			row("ID", "SEVERITY", "SCOPE", "SOURCE", "TITLE")
			for _, r := range p.Rules {
				row(r.ID, string(r.Severity), string(r.Scope), r.Source, r.Title)
				if len(r.Params) > 0 {
					fmt.Fprintf(w, "  params %s\n", paramList(r.Params))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the pack as JSON")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print docs/rules.md")
	cmd.Flags().StringVar(&dir, "rules", "", "directory of extra rule files (*.yaml); same ids override built-in rules")
	return cmd
}

// paramList formats a rule's parameters as name=value, sorted by name.
func paramList(ps map[string]float64) string {
	names := slices.Sorted(maps.Keys(ps))
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + "=" + strconv.FormatFloat(ps[n], 'f', -1, 64)
	}
	return strings.Join(out, " ")
}
