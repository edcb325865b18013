package pretty_test

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// parseMemory parses data into a new message from newMsg and returns the
// bytes the call allocated in all (garbage included: encoding/json's
// Token leaves about 120 bytes for every number or string it reads) and
// the bytes the message holds afterwards.
func parseMemory(data []byte, newMsg func() any, v int16) (total, held int64, err error) {
	var before, after, kept runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	msg := newMsg()
	err = pretty.ParseJSON(data, msg, v)
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&kept)
	runtime.KeepAlive(msg)
	return int64(after.TotalAlloc - before.TotalAlloc), int64(kept.HeapAlloc) - int64(before.HeapAlloc), err
}

// hostileArray is prefix, n copies of elem joined by commas, and suffix.
func hostileArray(prefix, elem, suffix string, n int) []byte {
	b := make([]byte, 0, len(prefix)+n*(len(elem)+1)+len(suffix))
	b = append(b, prefix...)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, elem...)
	}
	return append(b, suffix...)
}

// Hostile JSON cannot make ParseJSON allocate much more than its own
// size: a million small objects, each of which becomes a Go value of up
// to 352 bytes (a StreamsGroupDescribe member), a record or a header, are
// either read within the bound or refused with ErrTooLarge before they
// are allocated. Before the bound, empty records took 171x the JSON's
// size and empty members 469x (allocated in all).
func TestParseJSONMemoryBoundedByInput(t *testing.T) {
	const n = 1 << 20
	// The budget is 16 bytes a byte; what it does not count is the
	// strings and bytes (at most the JSON's size) and the garbage.
	const maxHeld, maxTotal = 18, 80
	produce := `{"TopicData":[{"Name":"t","PartitionData":[{"Index":0,"Records":{"Batches":[{"Records":[`
	cases := []struct {
		name string
		data []byte
		msg  func() any
		v    int16
	}{
		{"empty records", hostileArray(produce, `{}`, `]}]}}]}]}`, n), func() any { return new(messages.ProduceRequest) }, 9},
		{"records with a key", hostileArray(produce, `{"Key":""}`, `]}]}}]}]}`, n/4), func() any { return new(messages.ProduceRequest) }, 9},
		{"empty headers", hostileArray(produce+`{"Headers":[`, `{}`, `]}]}]}}]}]}`, n), func() any { return new(messages.ProduceRequest) }, 9},
		{"empty structs", hostileArray(`{"Groups":[{"Members":[`, `{}`, `]}]}`, n), func() any { return new(messages.StreamsGroupDescribeResponse) }, 0},
		{"int32s", hostileArray(`{"Topics":[{"Name":"t","PartitionIndexes":[`, `0`, `]}]}`, n), func() any { return new(messages.DescribeProducersRequest) }, 0},
	}
	for _, c := range cases {
		total, held, err := parseMemory(c.data, c.msg, c.v)
		totalX, heldX := float64(total)/float64(len(c.data)), float64(held)/float64(len(c.data))
		t.Logf("%s: %d bytes of JSON; allocated %.1fx, held %.1fx; %v", c.name, len(c.data), totalX, heldX, err)
		if err != nil && !errors.Is(err, kwire.ErrTooLarge) {
			t.Errorf("%s: %v, want nil or ErrTooLarge", c.name, err)
		}
		if heldX > maxHeld || totalX > maxTotal {
			t.Errorf("%s: allocated %.1fx the JSON's size and held %.1fx, past %dx and %dx", c.name, totalX, heldX, maxTotal, maxHeld)
		}
	}
}

// The bound refuses nothing JSON writes: a batch of 50,000 empty records,
// as WithRecords writes it, is read back.
func TestParseJSONLargeRealInput(t *testing.T) {
	recs := make([]record.Record, 50_000)
	batch, err := record.Build(recs)
	if err != nil {
		t.Fatal(err)
	}
	req := &messages.ProduceRequest{Acks: -1, TopicData: []messages.ProduceRequestTopicProduceData{{Name: "t",
		PartitionData: []messages.ProduceRequestPartitionProduceData{{Records: batch}}}}}
	j, err := pretty.JSON(req, 9, pretty.WithRecords())
	if err != nil {
		t.Fatal(err)
	}
	var back messages.ProduceRequest
	if err := pretty.ParseJSON(j, &back, 9); err != nil {
		t.Fatal(err)
	}
	if got := back.TopicData[0].PartitionData[0].Records; !bytes.Equal(got, batch) {
		t.Fatalf("read back %d bytes, want the %d built", len(got), len(batch))
	}
}
