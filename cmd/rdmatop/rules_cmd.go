package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

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
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSEVERITY\tSCOPE\tTITLE\tPARAMS\tSOURCE")
			for _, r := range p.Rules {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\t%s\n", r.ID, r.Severity, r.Scope, r.Title, r.Params, r.Source)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the pack as JSON")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print docs/rules.md")
	cmd.Flags().StringVar(&dir, "rules", "", "directory of extra rule files (*.yaml); same ids override built-in rules")
	return cmd
}
