package pretty_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// parseMemory parses data into a new message from newMsg and returns the
// bytes the call allocated in all (garbage included) and the bytes the
// message holds afterwards.
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
// are allocated.
func TestParseJSONMemoryBoundedByInput(t *testing.T) {
	const n = 1 << 20
	// The budget is 16 bytes a byte; what it does not count is the
	// strings and bytes (at most the JSON's size) and the garbage, which
	// is little: a token costs its string only (encoding/json's Decoder
	// left about 120 bytes for each, 62 times the size of "0,").
	const maxHeld, maxTotal = 18, 24
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

// Records in full are bounded by the records' bytes: a zstd batch of
// 16 MiB of zeros, 1.9 KB on the wire, is 96 MiB of JSON. The set stops
// with an Error once the budget is spent; a batch within it is shown
// whole.
func TestRecordsInFullBoundedByTheirBytes(t *testing.T) {
	var bombs []byte
	for range 8 {
		var err error
		bombs, err = record.AppendBatch(bombs, []record.Record{{Value: make([]byte, 16<<20)}}, record.WithCodec(record.CodecZstd))
		require.NoError(t, err)
	}
	small, err := record.AppendBatch(nil, []record.Record{{Value: bytes.Repeat([]byte("fits "), 100_000)}}, record.WithCodec(record.CodecZstd))
	require.NoError(t, err)
	fetch := &messages.FetchResponse{Responses: []messages.FetchResponseFetchableTopicResponse{{Topic: "t",
		Partitions: []messages.FetchResponsePartitionData{{PartitionIndex: 0, Records: small}, {PartitionIndex: 1, Records: bombs}}}}}
	var j []byte
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	j, err = pretty.JSON(fetch, 12, pretty.WithRecords())
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	t.Logf("%d bytes of records, %d of JSON, %d allocated", len(small)+len(bombs), len(j), after.TotalAlloc-before.TotalAlloc)
	assert.Less(t, len(j), 16<<20, "JSON")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "allocated")
	assert.Contains(t, string(j), strings.Repeat("fits ", 1000), "the batch within the budget, whole")
	assert.Contains(t, string(j), `"Error":"the rest is left out: records in full may take 8 MiB of JSON`)
}

// The budget (16 bytes a byte) leaves room for everything JSON writes:
// for every array of structs of every API and version, a default element
// takes at most 3 bytes of Go for each byte of its JSON and comma (the
// most is UpdateMetadata v1's LiveBrokers, 72 bytes for 23 of JSON), so
// JSON's output of any size is read back. Elements whose tagged fields
// cannot be planned outside a flexible message (64 of 1,052) are left out.
func TestParseJSONBudgetCoversWhatJSONWrites(t *testing.T) {
	worst, where, measured, alone := 0.0, "", 0, 0
	var walk func(s *kwire.Schema, v int16, path string)
	walk = func(s *kwire.Schema, v int16, path string) {
		for _, f := range s.Fields {
			switch {
			case f.Elem != nil && f.Elem.Struct != nil:
				e := reflect.New(f.Elem.Type)
				if d, ok := e.Interface().(interface{ Default() }); ok {
					d.Default()
				}
				j, err := pretty.JSON(e.Interface(), v)
				if err != nil { // an element with tagged fields cannot be planned on its own before its message is flexible
					alone++
					continue
				}
				measured++
				if r := float64(f.Elem.Type.Size()) / float64(len(j)+1); r > worst {
					worst, where = r, fmt.Sprintf("%s.%s v%d: %d bytes, %d of JSON", path, f.Name, v, f.Elem.Type.Size(), len(j))
				}
				walk(f.Elem.Struct, v, path+"."+f.Name)
			case f.Struct != nil:
				walk(f.Struct, v, path+"."+f.Name)
			}
		}
	}
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			for _, m := range []any{api.NewRequest(), api.NewResponse()} {
				s, err := kwire.SchemaOf(m, v)
				require.NoError(t, err)
				walk(s, v, fmt.Sprintf("%T", m))
			}
		}
	}
	t.Logf("%d element types at a version, %d not measurable alone; the most Go bytes for a byte of JSON: %.1f (%s)", measured, alone, worst, where)
	assert.LessOrEqual(t, worst, 4.0, "the budget's 16 bytes a byte must cover what JSON writes, nested arrays included")
}
