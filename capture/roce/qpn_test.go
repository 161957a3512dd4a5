package roce

import (
	"encoding/json"
	"testing"
)

func TestQPNJSON(t *testing.T) {
	b, err := json.Marshal(struct {
		Q QPN `json:"dest_qp"`
	}{0x3f})
	if err != nil || string(b) != `{"dest_qp":"0x00003f"}` {
		t.Fatalf("marshal: %s, %v", b, err)
	}
	for in, want := range map[string]QPN{`"0x00003f"`: 0x3f, `63`: 63, `"63"`: 63, `"0xffffff"`: 0xffffff} {
		var q QPN
		if err := json.Unmarshal([]byte(in), &q); err != nil || q != want {
			t.Errorf("unmarshal %s: %v, %v; want %v", in, q, err, want)
		}
	}
	for _, bad := range []string{`"0x1000000"`, `"qp"`, `true`, `-1`} {
		var q QPN
		if err := json.Unmarshal([]byte(bad), &q); err == nil {
			t.Errorf("unmarshal %s: accepted as %v", bad, q)
		}
	}
}
