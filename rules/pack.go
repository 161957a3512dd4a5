package rules

import (
	"embed"
	"fmt"
	"os"
)

//go:embed pack/*.yaml
var packFS embed.FS

// Default returns the rule pack built into rdmatop.
func Default() (*Pack, error) {
	p, err := Load(packFS, "pack")
	if err != nil {
		return nil, err
	}
	return p, p.checkExplains()
}

// WithDir returns the built-in pack with the rules of dir added, replacing
// built-in rules with the same id (--rules DIR).
func WithDir(dir string) (*Pack, error) {
	base, err := Default()
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return base, nil
	}
	// A directory that is not there, or holds no rule file, is a mistake
	// to say, not an empty set of extra rules to run without.
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("--rules %s: %w", dir, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("--rules %s: not a directory (a directory of *.yaml rule files)", dir)
	}
	extra, err := Load(os.DirFS(dir), ".")
	if err != nil {
		return nil, err
	}
	if len(extra.Rules) == 0 {
		return nil, fmt.Errorf("--rules %s: no rule in it (rule files are *.yaml lists of rules)", dir)
	}
	p := Merge(base, extra)
	return p, p.checkExplains()
}
