//go:build linux

package gputcp

import (
	"context"
	"net"
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

// BenchmarkDump10k dumps this namespace's TCP sockets with 5,000
// loopback connections open (10,000 sockets): the cost of a sample's dump
// on a host busy with connections, keeping every socket or, as for a GPU
// process's few among them, none.
func BenchmarkDump10k(b *testing.B) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 5000 {
		c, err := net.Dial("tcp4", ln.Addr().String())
		if err != nil {
			b.Skipf("cannot open 5,000 connections here: %v", err)
		}
		s, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c, s)
	}
	for _, c := range []struct {
		name string
		keep bool
		min  int
	}{{"keep all", true, 10000}, {"keep none", false, 0}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, err := dump(context.Background(), "", 0, func(uint32) bool { return c.keep })
				if err != nil || len(m) < c.min {
					b.Fatalf("%d sockets, %v", len(m), err)
				}
			}
		})
	}
}
