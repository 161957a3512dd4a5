//go:build !linux

package gputcp

import (
	"context"
	"time"
)

func dump(context.Context, string, time.Duration, func(uint32) bool) (map[uint32]tcpSock, error) {
	return nil, ErrNotSupported
}

func selfNetNS() string { return "" }
