package ethtool

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse: the typed view of a full mlx5 dump (195 counters).
func BenchmarkParse(b *testing.B) {
	raw := loadFixture(b, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt")
	b.ReportAllocs()
	for b.Loop() {
		_ = Parse(raw)
	}
}

// BenchmarkParseText: reading a saved `ethtool -S` dump.
func BenchmarkParseText(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseText(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
