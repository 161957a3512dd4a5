package flight

import (
	"os"
	"slices"
	"strings"
)

// diskAccount is the recorder's running account of the incidents in its
// directory other than the one being written: listed when the recorder
// starts and when it opens or finishes an incident (a few times an hour at
// most; the directory may have changed under it, an operator removing
// incidents), kept up to date in between by what the recorder removes.
// The bound on the incident being written is checked against it at every
// tick, without listing the directory. Only the incident writer uses it
// (and New, before the writer starts).
type diskAccount struct {
	dir    string
	stored []stored // oldest first
	bytes  int64    // theirs
}

// refresh lists the directory again, leaving out the incident whose
// recording is at skip (being written). A directory that cannot be read
// keeps the account as it was.
func (d *diskAccount) refresh(skip string) error {
	list, err := listStored(d.dir, skip)
	if err != nil {
		return err
	}
	d.stored, d.bytes = list, 0
	for _, s := range list {
		d.bytes += s.bytes
	}
	return nil
}

// makeRoom removes the oldest incidents until they and size more bytes
// fit maxDisk (0: no bound), and returns how many it removed.
func (d *diskAccount) makeRoom(maxDisk, size int64) (removed uint64) {
	for maxDisk > 0 && d.bytes+size > maxDisk && len(d.stored) > 0 {
		for _, f := range d.stored[0].files {
			os.Remove(f)
		}
		d.bytes -= d.stored[0].bytes
		d.stored = slices.Delete(d.stored, 0, 1)
		removed++
	}
	return removed
}

// partials are the incidents cut short by a crash: their recordings'
// paths.
func (d *diskAccount) partials() []string {
	var out []string
	for _, s := range d.stored {
		for _, f := range s.files {
			if strings.HasSuffix(f, partialExt) {
				out = append(out, f)
			}
		}
	}
	return out
}
