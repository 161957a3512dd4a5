package nccl

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func poll(t *testing.T, fl *Follower, want ...string) Batch {
	t.Helper()
	b, err := fl.Poll()
	if err != nil {
		t.Fatalf("poll: %v", err)
	}
	if !slices.Equal(b.Lines, want) && (len(b.Lines) > 0 || len(want) > 0) {
		t.Fatalf("lines %q, want %q", b.Lines, want)
	}
	return b
}

// The follower behaves as tail -F: a log not there yet, lines written in
// pieces, rotation by rename, truncation.
func TestFollowerLikeTailF(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.log")
	fl := Follow(path)
	defer fl.Close()
	if _, err := fl.Poll(); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "job.log") {
		t.Fatalf("missing log: %v", err)
	}
	appendFile(t, path, "a\nb\nhalf")
	poll(t, fl, "a", "b")
	poll(t, fl)
	appendFile(t, path, " done\nc\n")
	poll(t, fl, "half done", "c")

	// logrotate's rename-and-create: the old file's last lines first,
	// then the new file from its start.
	appendFile(t, path, "last of old\nno newline")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	b := poll(t, fl, "last of old") // rotated away, not replaced yet
	appendFile(t, path, "first of new\n")
	b = poll(t, fl, "no newline", "first of new")
	if !b.Reopened {
		t.Error("rotation not reported")
	}
	// copytruncate: the same file, shorter than where reading was.
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, "after\n")
	if b = poll(t, fl, "after"); !b.Reopened {
		t.Error("truncation not reported")
	}
}

// A long log is read from its tail, starting at a line; a log that
// grows faster than a Poll reads is skipped ahead, and both say by how
// much.
func TestFollowerBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.log")
	line := strings.Repeat("x", 99) + "\n"
	big := strings.Repeat(line, FollowTail/len(line)+1000) // more than the tail
	appendFile(t, path, big)
	fl := Follow(path)
	defer fl.Close()
	b, err := fl.Poll()
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(len(b.Lines)*len(line)) + b.Skipped; got != int64(len(big)) {
		t.Errorf("%d lines + %d skipped bytes ≠ %d bytes", len(b.Lines), b.Skipped, len(big))
	}
	if b.Skipped < int64(len(big)-FollowTail) || len(b.Lines) == 0 || b.Lines[0] != line[:len(line)-1] {
		t.Errorf("tail: skipped %d, %d lines, first %.20q", b.Skipped, len(b.Lines), b.Lines)
	}
	more := strings.Repeat(line, FollowMax/len(line)+500)
	appendFile(t, path, more)
	if b, err = fl.Poll(); err != nil {
		t.Fatal(err)
	}
	if got := int64(len(b.Lines)*len(line)) + b.Skipped; got != int64(len(more)) || b.Skipped == 0 {
		t.Errorf("burst: %d lines + %d skipped ≠ %d bytes", len(b.Lines), b.Skipped, len(more))
	}
	// A line with no end in sight is cut, not kept growing.
	appendFile(t, path, strings.Repeat("y", maxLine+10))
	b, _ = fl.Poll()
	appendFile(t, path, "z\nnext\n")
	b2, _ := fl.Poll()
	if len(b.Lines) != 1 || len(b.Lines[0]) != maxLine || !slices.Equal(b2.Lines, []string{"next"}) {
		t.Errorf("endless line: %d lines, then %q", len(b.Lines), b2.Lines)
	}
}

// A directory is not a log.
func TestFollowerNotAFile(t *testing.T) {
	fl := Follow(t.TempDir())
	if _, err := fl.Poll(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
}
