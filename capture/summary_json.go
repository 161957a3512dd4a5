package capture

import (
	"github.com/rdmatop/rdmatop/capture/roce"
	"github.com/rdmatop/rdmatop/internal/jsonindent"
)

// replay --json streams flow summaries and anomalies by the tens of
// thousands; internal/jsonindent writes them as json.MarshalIndent does,
// five times faster, from the types' own fields and tags.
// summary_json_test.go checks the output against encoding/json's with
// random values of every field.
var (
	flowJSON    = jsonindent.For[FlowSummary](jsonindent.UintText(roce.QPN.AppendText))
	anomalyJSON = jsonindent.For[Anomaly]()
)

// AppendJSONIndent appends to dst the JSON of f exactly as
// json.MarshalIndent(f, prefix, indent) writes it, without allocating
// beyond growing dst (a NaN or infinite float, which encoding/json
// refuses and the analysis never produces, is written as null).
func (f *FlowSummary) AppendJSONIndent(dst []byte, prefix, indent string) []byte {
	return flowJSON.Append(dst, prefix, indent, f)
}

// AppendJSONIndent appends to dst the JSON of a exactly as
// json.MarshalIndent(a, prefix, indent) writes it (see FlowSummary's).
func (a *Anomaly) AppendJSONIndent(dst []byte, prefix, indent string) []byte {
	return anomalyJSON.Append(dst, prefix, indent, a)
}
