package record

import (
	"math/bits"
	"sync"
)

// BufferPool supplies the buffers a Reader decompresses batches into, and
// takes each back when its batch is released (Batch.Release). A Reader
// whose Buffers is nil uses the package's pool, shared by all Readers. An
// implementation must be safe for concurrent use if its Readers run
// concurrently.
type BufferPool interface {
	// Get returns a buffer of length 0 and capacity at least size.
	Get(size int) []byte
	// Put takes back a buffer Get returned, once no record aliases it.
	Put(buf []byte)
}

// The package's pool keeps buffers in size classes, eight to a doubling
// (2^d times 1, 1.125, ... 1.875), so that a buffer sized for a batch
// wastes under an eighth of itself, and a batch's buffer, released, serves
// the next batch of about its size. Buffers travel in holders so that
// getBuffer and putBuffer allocate nothing.

const (
	minClassBits     = 8 // the smallest class is 256 bytes
	stepsPerDoubling = 8
	classCount       = (bits.UintSize - 1 - minClassBits) * stepsPerDoubling
)

var bufferClasses [classCount]sync.Pool // of *[]byte

// classSize is the capacity of class c's buffers.
func classSize(c int) int {
	d := c/stepsPerDoubling + minClassBits
	return 1<<d + c%stepsPerDoubling*(1<<d/stepsPerDoubling)
}

// classFor is the smallest class whose size is at least n.
func classFor(n int) int {
	if n <= 1<<minClassBits {
		return 0
	}
	d := bits.Len(uint(n-1)) - 1 // 2^d < n <= 2^(d+1)
	step := 1 << d / stepsPerDoubling
	j := (n - 1<<d + step - 1) / step // 1..8
	return (d-minClassBits)*stepsPerDoubling + j
}

// classBelow is the largest class whose size is at most n, -1 if none: a
// buffer of capacity n can serve it.
func classBelow(n int) int {
	if n < 1<<minClassBits {
		return -1
	}
	d := bits.Len(uint(n)) - 1 // 2^d <= n < 2^(d+1)
	step := 1 << d / stepsPerDoubling
	return (d-minClassBits)*stepsPerDoubling + (n-1<<d)/step
}

// getBuffer returns a holder of a buffer of length 0 and capacity at least
// n from the package's pool.
func getBuffer(n int) *[]byte {
	c := classFor(n)
	if n < 1<<minClassBits || c >= classCount {
		b := make([]byte, 0, n)
		return &b
	}
	if h, _ := bufferClasses[c].Get().(*[]byte); h != nil {
		return h
	}
	b := make([]byte, 0, classSize(c))
	return &b
}

// putBuffer gives a holder's buffer back to the package's pool.
func putBuffer(h *[]byte) {
	if c := classBelow(cap(*h)); c >= 0 && c < classCount {
		*h = (*h)[:0]
		bufferClasses[c].Put(h)
	}
}
