package termtext

import "testing"

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"ib_write_bw":                 "ib_write_bw",
		"evil\x1b]0;pwned\x07\x1b[2J": "evil?]0;pwned??[2J",
		"a\nb\tc":                     "a b c",
		"csi\u009b31m":                "csi?31m",
		"bidi\u202egnp.exe":           "bidi?gnp.exe",
		"bad\xffutf8":                 "bad?utf8",
		"ünïcode ok":                  "ünïcode ok",
		"del\x7f":                     "del?",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
