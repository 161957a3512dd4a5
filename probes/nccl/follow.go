package nccl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Batch is what one Poll read of a followed log: whole lines, oldest
// first. It is recorded as is, so that a replay reads the same lines.
type Batch struct {
	Lines []string `json:"lines,omitempty"`
	// Skipped counts bytes not read: the part of the log before the
	// tail read at the start, and what a Poll could not keep up with.
	Skipped int64 `json:"skipped_bytes,omitempty"`
	// Reopened is set when the log was replaced (rotated) or truncated
	// since the last Poll, and read again from its start.
	Reopened bool `json:"reopened,omitempty"`
}

// Source gives the lines appended to a log since the last Poll.
type Source interface {
	Poll() (Batch, error)
}

// Fake replays batches, one per Poll, then empty ones.
type Fake struct{ Batches []Batch }

// Poll returns the next batch.
func (f *Fake) Poll() (Batch, error) {
	if len(f.Batches) == 0 {
		return Batch{}, nil
	}
	b := f.Batches[0]
	f.Batches = f.Batches[1:]
	return b, nil
}

// Bounds of a Follower.
const (
	// FollowTail is how much of a log already there is read at the
	// start: the warnings that paged the reader are in it, and a job's
	// log of days is not.
	FollowTail = 1 << 20
	// FollowMax is what one Poll reads at most; a log growing faster
	// (NCCL_DEBUG=TRACE) is skipped ahead, and Skipped says by how much.
	FollowMax = 4 << 20
	// maxLine bounds a line without its newline: NCCL's longest (a
	// completion error with both GIDs) is a few hundred bytes.
	maxLine = 64 << 10
)

// Follower follows a log file as `tail -F` does: it reads what was
// appended since the last Poll, opens the file again when it is replaced
// (rotation) or truncated, and waits for a file that is not there yet.
// Not safe for concurrent use.
type Follower struct {
	path       string
	f          *os.File
	st         os.FileInfo // of f, to tell a replaced file (os.SameFile)
	off        int64
	partial    []byte // a line not ended yet
	skipToLine bool   // reading starts mid-line: drop up to its end
	started    bool
	buf        []byte
}

// Follow follows path. Nothing is opened until the first Poll.
func Follow(path string) *Follower { return &Follower{path: path} }

// Close closes the file.
func (fl *Follower) Close() error {
	if fl.f == nil {
		return nil
	}
	err := fl.f.Close()
	fl.f = nil
	return err
}

// Poll returns the whole lines appended since the last Poll. A log that
// does not exist yet is an error naming it (the job may not have started);
// a later Poll opens it once it appears.
func (fl *Follower) Poll() (Batch, error) {
	var b Batch
	st, err := os.Stat(fl.path)
	if err != nil {
		if fl.f != nil && errors.Is(err, os.ErrNotExist) {
			// Rotated away and not replaced yet: finish the old file.
			return b, fl.read(&b)
		}
		return b, fmt.Errorf("NCCL log: %w", err)
	}
	if !st.Mode().IsRegular() {
		return b, fmt.Errorf("NCCL log %s: not a regular file (%s)", fl.path, st.Mode().Type())
	}
	switch {
	case fl.f != nil && !os.SameFile(st, fl.st):
		// Replaced: what the old file still had, then the new one.
		if err := fl.read(&b); err != nil {
			return b, err
		}
		fl.flush(&b)
		fl.Close()
		b.Reopened = true
	case fl.f != nil && st.Size() < fl.off:
		fl.off, fl.partial, fl.skipToLine = 0, fl.partial[:0], false
		b.Reopened = true
	}
	if fl.f == nil {
		f, err := os.Open(fl.path)
		if err != nil {
			return b, fmt.Errorf("NCCL log: %w", err)
		}
		fl.f, fl.st, fl.off, fl.partial, fl.skipToLine = f, st, 0, fl.partial[:0], false
		if !fl.started && st.Size() > FollowTail {
			fl.off = st.Size() - FollowTail
			b.Skipped += fl.off
			fl.skipToLine = true
		}
		fl.started = true
	}
	return b, fl.read(&b)
}

// read reads from fl.off to the end of the file, at most FollowMax.
func (fl *Follower) read(b *Batch) error {
	st, err := fl.f.Stat()
	if err != nil {
		return fmt.Errorf("NCCL log: %w", err)
	}
	end := st.Size()
	if skip := end - fl.off - FollowMax; skip > 0 {
		b.Skipped += skip + int64(len(fl.partial))
		fl.off += skip
		fl.partial, fl.skipToLine = fl.partial[:0], true
	}
	n := int(end - fl.off)
	if n <= 0 {
		return nil
	}
	if cap(fl.buf) < n {
		fl.buf = make([]byte, n)
	}
	k, err := fl.f.ReadAt(fl.buf[:n], fl.off)
	fl.off += int64(k)
	data := fl.buf[:k]
	if fl.skipToLine {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			b.Skipped += int64(len(data))
			data = nil
		} else {
			b.Skipped += int64(i + 1)
			data, fl.skipToLine = data[i+1:], false
		}
	}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		if len(fl.partial) > 0 {
			fl.partial = append(fl.partial, data[:i]...)
			b.Lines = append(b.Lines, string(fl.partial))
			fl.partial = fl.partial[:0]
		} else {
			b.Lines = append(b.Lines, string(data[:i]))
		}
		data = data[i+1:]
	}
	fl.partial = append(fl.partial, data...)
	if len(fl.partial) > maxLine {
		// No newline in sight: keep the start as a line, drop the rest.
		b.Lines = append(b.Lines, string(fl.partial[:maxLine]))
		b.Skipped += int64(len(fl.partial) - maxLine)
		fl.partial, fl.skipToLine = fl.partial[:0], true
	}
	if err != nil && err != io.EOF {
		return fmt.Errorf("NCCL log: %w", err)
	}
	return nil
}

// flush hands over a last line the file did not end.
func (fl *Follower) flush(b *Batch) {
	if len(fl.partial) > 0 {
		b.Lines = append(b.Lines, string(fl.partial))
		fl.partial = fl.partial[:0]
	}
}
