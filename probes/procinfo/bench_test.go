package procinfo

import "testing"

func BenchmarkMemory(b *testing.B) {
	f := fixture(b, realRoot)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Memory(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFragmentation(b *testing.B) {
	f := fixture(b, realRoot)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Fragmentation(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProcess(b *testing.B) {
	f := fixture(b, realRoot)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Process(15232); err != nil {
			b.Fatal(err)
		}
	}
}
