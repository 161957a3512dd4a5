package rules

import (
	"embed"
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
	extra, err := Load(os.DirFS(dir), ".")
	if err != nil {
		return nil, err
	}
	p := Merge(base, extra)
	return p, p.checkExplains()
}
