// Package incidents is the schema of the labelled incident corpus,
// testdata/incidents/incidents.json (see its MANIFEST.md): what
// tools/gen-incidents writes for the synthetic incidents and what the
// accuracy test reads.
package incidents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Incident is one entry of incidents.json.
type Incident struct {
	Name string `json:"name"`
	// File is the recording, relative to the corpus directory.
	File string `json:"file"`
	// TrueCause is the id of the rule that names what was done, or
	// "healthy".
	TrueCause string `json:"true_cause"`
	// AlsoAcceptable are other rule ids an expert accepts as the first
	// finding (each justified in the MANIFEST).
	AlsoAcceptable []string `json:"also_acceptable"`
	Synthetic      bool     `json:"synthetic"`
	How            string   `json:"how"`
}

// Load reads an incidents.json; a field it does not know is an error, so
// that a typo in a label is not silently ignored.
func Load(path string) ([]Incident, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []Incident
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list, nil
}
