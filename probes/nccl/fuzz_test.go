package nccl

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzParser: any text, line by line, never panics; a line taken as a
// warning or a choice yields an event of a known kind whose detail is the
// line's own text and whose numbers are ones the line holds.
func FuzzParser(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/nccl/*.log")
	for _, path := range files {
		fh, err := os.Open(path)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			f.Add(sc.Text())
		}
		fh.Close()
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := NewParser()
		for _, line := range strings.Split(text, "\n") {
			ev, ok := p.Line(line)
			if !ok {
				continue
			}
			switch ev.Kind {
			case KindCompletion, KindAsync, KindModifyQP, KindWarn, KindLinkLocalGID,
				KindNetwork, KindNoRDMA, KindNetDevices, KindGDR, KindChannel, KindSetting, KindGraph, KindVersion:
			default:
				t.Fatalf("kind %q", ev.Kind)
			}
			if ev.Source != "nccl" || ev.NCCL == nil || ev.NCCL.Host == "" {
				t.Fatalf("event %+v", ev)
			}
			if !strings.Contains(unlink(line), ev.Detail) {
				t.Fatalf("detail %q is not the line's text %q", ev.Detail, line)
			}
			if n := ev.NCCL.Status; n != nil && (*n < 0 || !strings.Contains(unlink(line), strconv.Itoa(*n))) {
				t.Fatalf("status %d not in %q", *n, line)
			}
		}
	})
}
