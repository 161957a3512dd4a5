package main

import (
	"runtime"
	"slices"
	"sync"
)

// elemChunk is how many elements one goroutine encodes at a time: large
// enough that handing a chunk over costs nothing next to encoding it.
const elemChunk = 512

// elemsOf adds n elements to the open array, elem(i) being the i-th,
// encoded on every core in chunks and written in order: the same bytes as
// n calls of elem. A replay of 100,000 QPs ends by encoding 65,536 flows,
// a tenth of its time on one core; the others are idle by then.
func (s *jsonStream) elemsOf(n int, elem func(i int) any) {
	workers := min(runtime.GOMAXPROCS(0), (n+elemChunk-1)/elemChunk)
	if workers < 2 {
		for i := range n {
			s.elem(elem(i))
		}
		return
	}
	after := s.elems > 0 // the first element follows others: a comma
	type encoded struct {
		b   []byte
		err error // the element that failed ended the chunk
	}
	type chunk struct {
		start int
		out   chan encoded // its encoding, one value
	}
	// At most 2 chunks per worker are encoded ahead of the writer:
	// memory stays a few chunks, whatever n is.
	jobs := make(chan chunk, 2*workers)
	queue := make(chan chunk, 2*workers)
	free := make(chan []byte, 3*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			enc := newElemEncoder()
			for c := range jobs {
				var b []byte
				select {
				case b = <-free:
				default:
				}
				b, err := enc.appendElems(b[:0], c.start, min(c.start+elemChunk, n), after, elem)
				c.out <- encoded{b, err}
			}
		})
	}
	go func() {
		for start := 0; start < n; start += elemChunk {
			c := chunk{start: start, out: make(chan encoded, 1)}
			jobs <- c
			queue <- c
		}
		close(jobs)
		close(queue)
	}()
	for c := range queue {
		e := <-c.out
		if e.err != nil && s.err == nil {
			s.err = e.err
		}
		s.write(e.b)
		if s.err == nil {
			s.err = s.w.Flush()
		}
		select {
		case free <- e.b:
		default:
		}
	}
	wg.Wait()
	s.elems += n
}

// appendElems appends elements start to end-1 to dst, each after the
// comma and indent that elem would write before it, up to the first
// that fails.
func (e *elemEncoder) appendElems(dst []byte, start, end int, after bool, elem func(i int) any) ([]byte, error) {
	for i := start; i < end; i++ {
		if i > 0 || after {
			dst = append(dst, ',')
		}
		dst = append(dst, "\n    "...)
		var err error
		if dst, err = e.appendTo(dst, elem(i)); err != nil {
			return dst, err
		}
		if i == start {
			dst = growForChunk(dst, end-start)
		}
	}
	return dst, nil
}

// growForChunk grows a chunk's buffer, holding its first element, once
// to what all n elements take if they are alike (a flow table's are,
// within a few opcodes), and an eighth more. Grown by append instead,
// a fresh buffer went through some twenty sizes on its way to a chunk's
// 0.8 MB, each new memory from the kernel: the JSON of 65,536 flows
// took 21 MB of page faults for buffers a few of which are ever in use.
func growForChunk(dst []byte, n int) []byte {
	want := len(dst) * n * 9 / 8
	if cap(dst) >= want {
		return dst // a recycled buffer, large enough
	}
	return slices.Grow(dst, want-len(dst))
}
