package sampler

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkGuard: what the guard adds to healthy reads of small files (a
// sysfs attribute read is a few microseconds), per file: read directly,
// one at a time through a sample's view of the guard (one hand-off each),
// and as a run of 64 (a port's counters: one hand-off for the run).
func BenchmarkGuard(b *testing.B) {
	dir := b.TempDir()
	var names []string
	for i := range 64 {
		n := "c" + strconv.Itoa(i)
		if err := os.WriteFile(filepath.Join(dir, n), []byte("123456789\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		names = append(names, n)
	}
	fsys := os.DirFS(dir)
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, n := range names {
				if _, err := fs.ReadFile(fsys, n); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(names)), "ns/file")
	})
	b.Run("one-by-one", func(b *testing.B) {
		v := newFileGuard().view(context.Background(), fsys, time.Now(), fileWait)
		defer v.close()
		b.ReportAllocs()
		for b.Loop() {
			for _, n := range names {
				if _, err := v.ReadFile(n); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(names)), "ns/file")
	})
	b.Run("run", func(b *testing.B) {
		v := newFileGuard().view(context.Background(), fsys, time.Now(), fileWait)
		defer v.close()
		contents, errs := make([][]byte, len(names)), make([]error, len(names))
		b.ReportAllocs()
		for b.Loop() {
			v.ReadFiles(names, contents, errs)
			for _, err := range errs {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(names)), "ns/file")
	})
}
