//go:build linux

package gputcp

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRescan reads every process's descriptors of this host (the
// every-30-s scan); BenchmarkPoll a Poll between scans (the GPU
// processes' descriptors and their sockets: none here).
func BenchmarkRescan(b *testing.B) {
	l := New("/", 0)
	now := time.Unix(1_800_000_000, 0)
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(RescanEvery)
		if _, err := l.Poll(context.Background(), now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPoll(b *testing.B) {
	l := New("/", 0)
	now := time.Unix(1_800_000_000, 0)
	if _, err := l.Poll(context.Background(), now); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Second)
		if _, err := l.Poll(context.Background(), now); err != nil {
			b.Fatal(err)
		}
	}
}
