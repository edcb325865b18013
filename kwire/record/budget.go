package record

import "sync/atomic"

// Budget is a consumer's memory budget, in bytes, for decompressed records:
// the Readers that share it (say, one per partition of a Fetch response,
// on as many goroutines) hold at most that many bytes of decompression
// buffers at once. A buffer counts from the Next that fills it until its
// Batch is released; Next refuses, with ErrTooLarge, a batch that would
// take the bytes held past the budget, before decompressing it wherever
// the compressed data says how large it is (snappy, lz4, zstd frames that
// carry their content size, gzip's size trailer), and otherwise as soon as
// its output passes it. Records that alias the Reader's input (an
// uncompressed batch) take nothing from the budget.
//
// A Budget is safe for concurrent use. The Readers' buffers must be
// released (Batch.Release) for their bytes to count no more: a budget
// whose batches are kept refuses every compressed batch once it is full.
type Budget struct {
	limit int64
	inUse atomic.Int64
	peak  atomic.Int64
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int) *Budget { return &Budget{limit: int64(limit)} }

// Limit is the budget's size in bytes.
func (b *Budget) Limit() int { return int(b.limit) }

// InUse is the number of bytes held now by batches not yet released.
func (b *Budget) InUse() int { return int(b.inUse.Load()) }

// Peak is the most bytes held at once since the budget was made.
func (b *Budget) Peak() int { return int(b.peak.Load()) }

// available is what the budget can still give.
func (b *Budget) available() int { return int(max(0, b.limit-b.inUse.Load())) }

// take reserves n bytes, if the budget has them.
func (b *Budget) take(n int) bool {
	for {
		used := b.inUse.Load()
		if int64(n) > b.limit-used {
			return false
		}
		if b.inUse.CompareAndSwap(used, used+int64(n)) {
			for p := b.peak.Load(); used+int64(n) > p && !b.peak.CompareAndSwap(p, used+int64(n)); p = b.peak.Load() {
			}
			return true
		}
	}
}

// give returns n bytes that take reserved.
func (b *Budget) give(n int) { b.inUse.Add(-int64(n)) }
