package record

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"
)

// The three decompression-amplification bombs of issue #9: a few KiB on the
// wire that decompress to DefaultMaxDecompressedSize of the smallest
// structures the format allows.

// minimalRecordV2 is the smallest v2 record: length 6, attributes 0, both
// deltas 0, null key, null value, no headers.
var minimalRecordV2 = []byte{0x0c, 0, 0, 0, 0x01, 0x01, 0}

// v2BatchOf wraps an already encoded records section (plain) in a batch of
// the given codec that claims count records.
func v2BatchOf(t testing.TB, codec Codec, plain []byte, count int32) []byte {
	t.Helper()
	entry := make([]byte, batchHeaderLen, batchHeaderLen+len(plain)/8)
	entry, err := Compress(entry, codec, plain)
	if err != nil {
		t.Fatal(err)
	}
	putBatchHeader(entry, &Batch{
		PartitionLeaderEpoch: -1, Attributes: MakeAttributes(codec, CreateTime, false, false, false),
		LastOffsetDelta: count - 1, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, NumRecords: count,
	})
	return entry
}

type bomb struct {
	data         []byte
	decompressed int // what its records decompress to
}

// bombRecords: a zstd batch claiming 9.59 M minimal records.
var bombRecords = sync.OnceValue(func() bomb {
	n := DefaultMaxDecompressedSize / len(minimalRecordV2)
	plain := bytes.Repeat(minimalRecordV2, n)
	return bomb{v2BatchOf(panicTB{}, CodecZstd, plain, int32(n)), len(plain)}
})

// bombHeaders: a zstd batch of one record with 33.5 M empty headers.
var bombHeaders = sync.OnceValue(func() bomb {
	n := (DefaultMaxDecompressedSize - 16) / 2
	body := []byte{0, 0, 0, 0x01, 0x01}                 // attributes, deltas, null key and value
	body = binary.AppendVarint(body, int64(n))          // header count
	body = append(body, make([]byte, 2*n)...)           // each: empty key, empty value
	plain := binary.AppendVarint(nil, int64(len(body))) // record length
	plain = append(plain, body...)
	return bomb{v2BatchOf(panicTB{}, CodecZstd, plain, 1), len(plain)}
})

// bombLegacy: a gzip legacy wrapper of 2.58 M minimal magic 0 messages.
var bombLegacy = sync.OnceValue(func() bomb {
	n := DefaultMaxDecompressedSize / minLegacyEntryV0
	inner := make([]byte, 0, n*minLegacyEntryV0)
	for range n {
		inner = appendLegacyMessage(inner, 0, 0, 0, -1, nil, nil)
	}
	compressed, err := Compress(nil, CodecGzip, inner)
	if err != nil {
		panic(err)
	}
	return bomb{appendLegacyMessage(nil, 0, 0, int8(CodecGzip), -1, nil, compressed), len(inner)}
})

// panicTB lets the sync.OnceValue builders use helpers that take a testing.TB.
type panicTB struct{ testing.TB }

func (panicTB) Helper()               {}
func (panicTB) Fatal(args ...any)     { panic(args) }
func (panicTB) Fatalf(string, ...any) { panic("fatal") }

// allocated runs f once with the collector off and returns the bytes it
// allocated (TotalAlloc delta) and how long it took.
func allocated(f func()) (uint64, time.Duration) {
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, took
}

// readAll reads every batch of r, materialising each with Records, or only
// iterating without building anything, and returns the first error.
func readAll(r *Reader, materialise bool) error {
	for {
		b, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if materialise {
			if _, err := b.Records(); err != nil {
				return err
			}
			continue
		}
		it := b.Iter()
		for it.Next() {
			_ = it.RecordWithoutHeaders()
			for h := it.Headers(); h.Next(); {
				_ = h.Key()
			}
		}
		if err := it.Err(); err != nil {
			return err
		}
	}
}

var bombs = []struct {
	name string
	b    func() bomb
}{{"records", bombRecords}, {"headers", bombHeaders}, {"legacy", bombLegacy}}

// TestBombs: the default limits refuse each bomb, and what it costs before
// the refusal is at most 8 times what it decompresses to. The bomb that
// claims its count in the batch header is refused before decompression.
func TestBombs(t *testing.T) {
	for _, c := range bombs {
		b := c.b()
		for _, materialise := range []bool{true, false} {
			var err error
			if c.name == "records" {
				// Refused in microseconds: warm fmt's pooled buffers first.
				_ = readAll(NewReader(b.data), materialise)
			}
			n, took := allocated(func() { err = readAll(NewReader(b.data), materialise) })
			if c.name == "records" {
				// A few KiB is within the noise of other goroutines (the
				// test runner's); the least of three runs is the read's cost.
				for range 2 {
					if m, _ := allocated(func() { _ = readAll(NewReader(b.data), materialise) }); m < n {
						n = m
					}
				}
			}
			t.Logf("%s bomb (%d bytes, %d decompressed), materialise %v: %d bytes allocated in %v: %v",
				c.name, len(b.data), b.decompressed, materialise, n, took, err)
			wantErr(t, err, ErrTooLarge, -1)
			bound := uint64(8*b.decompressed + 4<<10)
			if c.name == "records" {
				bound = 4 << 10
			}
			if n > bound {
				t.Errorf("%s bomb: %d bytes allocated, want at most %d", c.name, n, bound)
			}
		}
	}
}

// TestBombsWithoutLimits: with the count limits lifted, iterating reads
// each bomb to the end for the cost of its decompressed bytes.
func TestBombsWithoutLimits(t *testing.T) {
	for _, c := range bombs {
		b := c.b()
		r := NewReader(b.data)
		r.MaxRecords, r.MaxHeaders = math.MaxInt, math.MaxInt
		var err error
		n, took := allocated(func() { err = readAll(r, false) })
		t.Logf("%s bomb without count limits, iterated: %.1f MiB allocated in %v", c.name, float64(n)/(1<<20), took)
		if err != nil {
			t.Fatalf("%s bomb: %v", c.name, err)
		}
		if bound := uint64(8*b.decompressed + 4<<10); n > bound {
			t.Errorf("%s bomb: %d bytes allocated, want at most %d", c.name, n, bound)
		}
	}
}

// BenchmarkBombs: the time and memory each bomb costs with the default
// limits, materialised with Records.
func BenchmarkBombs(b *testing.B) {
	for _, c := range bombs {
		bm := c.b()
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := readAll(NewReader(bm.data), true); err == nil {
					b.Fatal("bomb read without error")
				}
			}
		})
	}
}
