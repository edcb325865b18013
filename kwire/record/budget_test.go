package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
)

// exactPool is a BufferPool that allocates exactly what is asked and
// counts its calls.
type exactPool struct {
	mu       sync.Mutex
	gets     int
	puts     int
	outbytes int
}

func (p *exactPool) Get(n int) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gets++
	p.outbytes += n
	return make([]byte, 0, n)
}

func (p *exactPool) Put(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.puts++
	p.outbytes -= cap(b)
}

// budgetSet is n batches of codec, each of records that decompress to
// about size bytes, with consecutive offsets; plain is one batch's
// decompressed records.
func budgetSet(t testing.TB, codec Codec, n, size int) (set []byte, starts []int, plain int) {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	var recs []Record
	for total := 0; total < size; total += 100 + 12 {
		recs = append(recs, Record{Key: []byte("key"), Value: compressible(rng, 100)})
	}
	batch, err := Build(recs, WithCodec(codec))
	if err != nil {
		t.Fatal(err)
	}
	plainBatch, _ := Build(recs)
	for i := range n {
		starts = append(starts, len(set))
		set = append(set, batch...)
		// The base offset is outside the CRC: each copy gets its own.
		binary.BigEndian.PutUint64(set[starts[i]:], uint64(i*len(recs)))
	}
	return set, starts, len(plainBatch) - batchHeaderLen
}

// A budget of two and a half batches takes two kept batches and refuses
// the third, at its offset and before asking for its buffer: the sizes
// the compressed data declares are known in advance. Released, the bytes
// come back and the rest of the set reads.
func TestBudgetRefusesTheBatchThatWouldPassIt(t *testing.T) {
	for _, codec := range []Codec{CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			set, starts, plain := budgetSet(t, codec, 6, 20_000)
			pool := new(exactPool)
			budget := NewBudget(plain*5/2 + 10)
			r := &Reader{Budget: budget, Buffers: pool}
			r.Reset(set)
			var kept []*Batch
			for range 2 {
				b, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				kept = append(kept, b)
			}
			_, err := r.Next()
			var e *Error
			if !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.Offset != starts[2]+batchHeaderLen {
				t.Fatalf("third batch: %v, want ErrTooLarge at %d", err, starts[2]+batchHeaderLen)
			}
			if pool.gets != 2 {
				t.Fatalf("%d buffers asked for, want 2: the refused batch must not get one", pool.gets)
			}
			if got := budget.InUse(); got < 2*plain || got > 2*plain+2 {
				t.Fatalf("in use %d, want the two batches' %d", got, 2*plain)
			}
			for _, b := range kept {
				b.Release()
				b.Release() // a second Release does nothing
			}
			if budget.InUse() != 0 || pool.puts != 2 || pool.outbytes != 0 {
				t.Fatalf("after Release: in use %d, %d buffers back, %d bytes out", budget.InUse(), pool.puts, pool.outbytes)
			}
			r = &Reader{Budget: budget, Buffers: pool}
			r.Reset(set[starts[2]:])
			for {
				b, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := readAll(NewReader(b.Raw), true); err != nil {
					t.Fatal(err)
				}
				b.Release()
			}
			if budget.InUse() != 0 || budget.Peak() > budget.Limit() {
				t.Fatalf("in use %d, peak %d of %d", budget.InUse(), budget.Peak(), budget.Limit())
			}
		})
	}
}

// A zstd frame that does not state its size (Java's producer streams them)
// is refused as soon as its output passes the budget.
func TestBudgetStreamedZstd(t *testing.T) {
	recs := benchRecords()
	plain, _ := Build(recs)
	section := plain[batchHeaderLen:]
	streamed := zstdStreamed(t, section)
	if c, err := zstdClaim(streamed); err != nil || c.exact() {
		t.Fatalf("claim %+v, %v: want inexact", c, err)
	}
	batch := v2BatchOf(t, CodecNone, nil, 0)
	batch = append(batch[:batchHeaderLen], streamed...)
	putBatchHeader(batch, &Batch{Attributes: MakeAttributes(CodecZstd, CreateTime, false, false, false),
		LastOffsetDelta: int32(len(recs) - 1), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, NumRecords: int32(len(recs))})
	for _, limit := range []int{len(section) / 2, len(section) * 2} {
		budget := NewBudget(limit)
		r := &Reader{Budget: budget}
		r.Reset(batch)
		b, err := r.Next()
		if fits := limit > len(section); fits != (err == nil) {
			t.Fatalf("budget %d for %d bytes: %v", limit, len(section), err)
		}
		if err == nil {
			got, err := b.Records()
			if err != nil || len(got) != len(recs) {
				t.Fatalf("%d records, %v", len(got), err)
			}
			b.Release()
		} else if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("budget %d: %v, want ErrTooLarge", limit, err)
		}
		if budget.InUse() != 0 || budget.Peak() > limit {
			t.Fatalf("budget %d: in use %d, peak %d", limit, budget.InUse(), budget.Peak())
		}
	}
}

// Readers on several goroutines share one budget; the bytes held never
// pass it, and all come back.
func TestBudgetShared(t *testing.T) {
	set, _, plain := budgetSet(t, CodecLZ4, 20, 30_000)
	budget := NewBudget(6 * plain)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &Reader{Budget: budget}
			for pass := range 20 {
				r.Reset(set)
				var held []*Batch
				for {
					b, err := r.Next()
					if err == io.EOF {
						break
					}
					if errors.Is(err, ErrTooLarge) {
						break // the others hold the budget: this fetch stops, as a consumer's would
					}
					if err != nil {
						mu.Lock()
						errs = append(errs, fmt.Errorf("goroutine %d pass %d: %w", g, pass, err))
						mu.Unlock()
						return
					}
					if _, err := b.Records(); err != nil {
						t.Error(err)
					}
					if held = append(held, b); len(held) == 2 {
						held[0].Release()
						held = held[1:]
					}
				}
				for _, b := range held {
					b.Release()
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if budget.InUse() != 0 || budget.Peak() > budget.Limit() {
		t.Fatalf("in use %d, peak %d of %d", budget.InUse(), budget.Peak(), budget.Limit())
	}
}

// A released batch's records cannot be read; an uncompressed batch's,
// which alias the input, still can.
func TestReleasedBatch(t *testing.T) {
	recs := benchRecords()[:10]
	for _, codec := range []Codec{CodecNone, CodecLZ4} {
		data, _ := Build(recs, WithCodec(codec))
		b, err := NewReader(data).Next()
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
		got, err := b.Records()
		if codec == CodecNone && (err != nil || len(got) != len(recs)) {
			t.Fatalf("none: %d records, %v", len(got), err)
		}
		if codec != CodecNone && !errors.Is(err, ErrReleased) {
			t.Fatalf("%v: %v, want ErrReleased", codec, err)
		}
	}
}

// Released buffers are reused: a Reader that releases its batches reads
// set after set without allocating buffers again.
func TestReleasedBuffersAreReused(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool drops what it is given at random")
	}
	set, _, plain := budgetSet(t, CodecLZ4, 10, 40_000)
	var r Reader
	pass := func() {
		r.Reset(set)
		for {
			b, err := r.Next()
			if err != nil {
				break
			}
			b.Release()
		}
	}
	pass()
	if got := allocPerRun(pass); got > 10*400 {
		t.Fatalf("%d bytes a pass of 10 batches of %d bytes, want only the Batch values", got, plain)
	}
}

func zstdStreamed(t testing.TB, plain []byte) []byte {
	var out bytes.Buffer
	w := zstdStreamWriter(&out)
	// Flushing before the end writes the header before the size is known.
	half := len(plain) / 2
	if _, err := w.Write(plain[:half]); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(plain[half:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// A 100 MiB fetch (100 lz4 batches of 1 MiB of records each) under a
// 32 MiB budget: a consumer that keeps its batches is refused at the batch
// that would pass 32 MiB, having allocated no more than the budget; one
// that releases each batch reads all 100 holding one batch's buffer at a
// time. The figures are logged (go test -run Budget100MiB -v).
func TestBudget100MiBFetch(t *testing.T) {
	const batches, budgetBytes = 100, 32 << 20
	set, starts, plain := budgetSet(t, CodecLZ4, batches, 1<<20)
	t.Logf("fetch: %d batches, %d bytes compressed, %d decompressed", batches, len(set), batches*plain)
	charge := classSize(classFor(plain))

	budget := NewBudget(budgetBytes)
	var kept []*Batch
	var refusal error
	alloc, _ := allocated(func() {
		r := &Reader{Budget: budget}
		r.Reset(set)
		for {
			b, err := r.Next()
			if err != nil {
				refusal = err
				return
			}
			kept = append(kept, b)
		}
	})
	var e *Error
	if !errors.As(refusal, &e) || !errors.Is(refusal, ErrTooLarge) || len(kept) != budgetBytes/charge || e.Offset != starts[len(kept)]+batchHeaderLen {
		t.Fatalf("kept: %d batches, then %v; want ErrTooLarge at batch %d", len(kept), refusal, budgetBytes/charge)
	}
	t.Logf("kept, budget %d: %d batches read, batch %d refused (%v); %d bytes allocated, budget peak %d", budgetBytes, len(kept), len(kept), refusal, alloc, budget.Peak())
	if alloc > budgetBytes+1<<20 {
		t.Errorf("kept: %d bytes allocated under a budget of %d", alloc, budgetBytes)
	}
	for _, b := range kept {
		b.Release()
	}

	budget = NewBudget(budgetBytes)
	n := 0
	var err error
	alloc, _ = allocated(func() {
		r := &Reader{Budget: budget}
		r.Reset(set)
		for {
			var b *Batch
			if b, err = r.Next(); err != nil {
				return
			}
			var recs []Record
			if recs, err = b.Records(); err != nil {
				return
			}
			n += len(recs)
			b.Release()
		}
	})
	if err != io.EOF || budget.Peak() > charge || budget.InUse() != 0 {
		t.Fatalf("released: %d records, %v; peak %d (one batch: %d), in use %d", n, err, budget.Peak(), charge, budget.InUse())
	}
	t.Logf("released, budget %d: all %d records read; %d bytes allocated (the Records slices %d), budget peak %d", budgetBytes, n, alloc, n*recordStructBytes, budget.Peak())
	// Under the race detector sync.Pool drops released buffers at random.
	if alloc > uint64(n*recordStructBytes)+2*uint64(charge)+1<<20 && !raceEnabled {
		t.Errorf("released: %d bytes allocated", alloc)
	}

	alloc, _ = allocated(func() {
		r := NewReader(set)
		for {
			if _, err := r.Next(); err != nil {
				return
			}
		}
	})
	t.Logf("no budget, kept: %d bytes allocated", alloc)
}
