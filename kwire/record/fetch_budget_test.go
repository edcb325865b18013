package record

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/kwirelabs/kwire/messages"
)

// fetchBody is a FetchResponse v16 body of one topic with a partition per
// codec, each of batches copies of a batch holding about plain bytes of
// records, and the number of records in a batch.
func fetchBody(t *testing.T, codecs []Codec, batches, plain int) (body []byte, perBatch int) {
	var recs []Record
	for i := 0; i*140 < plain; i++ {
		recs = append(recs, Record{Key: fmt.Appendf(nil, "key-%06d", i), Value: fmt.Appendf(nil, "%0128d", i%997)})
	}
	resp := messages.FetchResponse{Responses: []messages.FetchResponseFetchableTopicResponse{{Topic: "t"}}}
	for p, codec := range codecs {
		batch, err := Build(recs, WithCodec(codec))
		if err != nil {
			t.Fatal(err)
		}
		var set []byte
		for i := range batches {
			at := len(set)
			set = append(set, batch...)
			wire.PutInt64(set[at:], int64(i*len(recs))) // the base offset, outside the CRC
		}
		resp.Responses[0].Partitions = append(resp.Responses[0].Partitions, messages.FetchResponsePartitionData{PartitionIndex: int32(p), HighWatermark: int64(batches * len(recs)), Records: set})
	}
	body, err := kwire.Marshal(&resp, 16)
	if err != nil {
		t.Fatal(err)
	}
	return body, len(recs)
}

// TestBudgetWholeFetchResponse reads a Fetch response of 100 MiB of
// records as a consumer does: kwire.Unmarshal of the body, then a Reader
// per partition, each on its own goroutine, all sharing one Budget of
// 16 MiB. A consumer that releases each batch once it has its records
// reads all of them, holding at most a batch a partition; one that keeps
// its batches is refused, with ErrTooLarge at the batch that would pass
// the budget and before decompressing it, and allocates about the budget,
// not the response.
func TestBudgetWholeFetchResponse(t *testing.T) {
	const batches, plain, budgetBytes = 25, 1 << 20, 16 << 20
	codecs := []Codec{CodecLZ4, CodecZstd, CodecSnappy, CodecGzip}
	body, perBatch := fetchBody(t, codecs, batches, plain)
	t.Logf("body: %d bytes; %d partitions × %d batches × %d records, about %d MiB of records", len(body), len(codecs), batches, perBatch, len(codecs)*batches*plain>>20)

	consume := func(budget *Budget, keep bool) (records []int, errs []error, alloc uint64) {
		records, errs = make([]int, len(codecs)), make([]error, len(codecs))
		alloc, _ = allocated(func() {
			var resp messages.FetchResponse
			if err := kwire.Unmarshal(body, &resp, 16); err != nil {
				t.Error(err)
				return
			}
			var wg sync.WaitGroup
			var kept [][]*Batch = make([][]*Batch, len(codecs))
			for i, p := range resp.Responses[0].Partitions {
				wg.Go(func() {
					r := &Reader{Budget: budget}
					r.Reset(p.Records)
					for {
						b, err := r.Next()
						if err != nil {
							errs[i] = err
							return
						}
						it := b.Iter()
						for it.Next() {
							records[i]++
						}
						if err := it.Err(); err != nil {
							errs[i] = err
							return
						}
						if keep {
							kept[i] = append(kept[i], b)
						} else {
							b.Release()
						}
					}
				})
			}
			wg.Wait()
			for _, bs := range kept {
				for _, b := range bs {
					b.Release()
				}
			}
		})
		return records, errs, alloc
	}

	budget := NewBudget(budgetBytes)
	records, errs, alloc := consume(budget, false)
	t.Logf("released: records %v, budget peak %d, %d bytes allocated", records, budget.Peak(), alloc)
	for i, err := range errs {
		if err != io.EOF || records[i] != batches*perBatch {
			t.Errorf("partition %d (%v): %d records of %d, then %v", i, codecs[i], records[i], batches*perBatch, err)
		}
	}
	// A batch a partition at once, each in a buffer of its size class.
	if budget.Peak() > len(codecs)*2*plain || budget.InUse() != 0 {
		t.Errorf("released: budget peak %d, in use %d", budget.Peak(), budget.InUse())
	}
	// Under the race detector sync.Pool drops released buffers at random.
	if alloc > budgetBytes && !raceEnabled {
		t.Errorf("released: %d bytes allocated", alloc)
	}

	budget = NewBudget(budgetBytes)
	records, errs, alloc = consume(budget, true)
	t.Logf("kept: records %v, errors %v, budget peak %d, %d bytes allocated", records, errs, budget.Peak(), alloc)
	refused := 0
	for i, err := range errs {
		var e *Error
		switch {
		case errors.Is(err, ErrTooLarge) && errors.As(err, &e) && records[i]%perBatch == 0:
			refused++
		case err == io.EOF && records[i] == batches*perBatch:
		default:
			t.Errorf("partition %d (%v): %d records, then %v; want ErrTooLarge at a batch's start", i, codecs[i], records[i], err)
		}
	}
	if refused == 0 || budget.Peak() > budgetBytes || budget.InUse() != 0 {
		t.Errorf("kept: %d partitions refused, budget peak %d of %d, in use %d", refused, budget.Peak(), budgetBytes, budget.InUse())
	}
	if alloc > budgetBytes+4<<20 {
		t.Errorf("kept: %d bytes allocated under a budget of %d", alloc, budgetBytes)
	}
}
