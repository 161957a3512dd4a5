//go:build linux

package kmsg

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/probes"
)

// Path is the kernel log device.
const Path = "/dev/kmsg"

// bufSize holds the largest record: the kernel refuses a read() into a
// buffer smaller than the next record (EINVAL); records are at most
// PRINTKRB_RECORD_MAX (1 KiB of text, escaped up to 4×) plus dictionary.
const bufSize = 16 << 10

// Reader reads /dev/kmsg without blocking. It is not safe for concurrent
// use.
type Reader struct {
	fd   int
	read func(fd int, p []byte) (int, error)
	buf  []byte
	max  int
	seq  seqTracker
}

// Open opens /dev/kmsg read-only and non-blocking, positioned at the end
// of the buffer unless opts.ReadExisting.
func Open(opts Options) (*Reader, error) {
	return openPath(Path, opts)
}

func openPath(path string, opts Options) (*Reader, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, openError(path, err)
	}
	whence := unix.SEEK_END
	if opts.ReadExisting {
		whence = unix.SEEK_SET
	}
	if _, err := unix.Seek(fd, 0, whence); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("seek %s: %w", path, err)
	}
	return newReader(fd, unix.Read, opts), nil
}

func newReader(fd int, read func(int, []byte) (int, error), opts Options) *Reader {
	max := opts.MaxRecords
	if max <= 0 {
		max = 10000
	}
	return &Reader{fd: fd, read: read, buf: make([]byte, bufSize), max: max}
}

func openError(path string, err error) error {
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return fmt.Errorf("read %s: %w", path, &probes.PermissionError{What: "CAP_SYSLOG or kernel.dmesg_restrict=0", Err: err})
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENXIO), errors.Is(err, unix.ENODEV):
		return fmt.Errorf("%s: %v (no kernel log device here, e.g. in a container without it): %w", path, err, probes.ErrNotSupported)
	}
	return fmt.Errorf("open %s: %w", path, err)
}

// Poll returns the records available now, without waiting: an empty
// batch means nothing new (EAGAIN). After an overrun (EPIPE) it goes on
// with the oldest record still available and counts the gap.
func (r *Reader) Poll() (Batch, error) {
	var b Batch
	epipes := 0
	for len(b.Raw) < r.max {
		n, err := r.read(r.fd, r.buf)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return b, nil
		case errors.Is(err, unix.EPIPE):
			// The kernel moves us to the oldest record and says so once;
			// more in a row means something else is wrong.
			b.Overrun = true
			if epipes++; epipes > 3 {
				return b, fmt.Errorf("read %s: %w (repeatedly)", Path, err)
			}
			continue
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
			return b, fmt.Errorf("read %s: %w", Path, &probes.PermissionError{What: "CAP_SYSLOG or kernel.dmesg_restrict=0", Err: err})
		case err != nil:
			return b, fmt.Errorf("read %s: %w", Path, err)
		case n == 0:
			return b, nil
		}
		epipes = 0
		rec := strings.TrimSuffix(string(r.buf[:n]), "\n")
		if seq, ok := seqOf(rec); ok {
			b.Lost += r.seq.next(seq)
		}
		b.Raw = append(b.Raw, rec)
	}
	return b, nil
}

// Close closes the device.
func (r *Reader) Close() error {
	if r.fd < 0 {
		return nil
	}
	err := unix.Close(r.fd)
	r.fd = -1
	return err
}
