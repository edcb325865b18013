package record_test

import (
	"fmt"
	"io"

	"github.com/kwirelabs/kwire/kwire/record"
)

func Example() {
	// Build the Records field of a Produce request ...
	data, err := record.Build([]record.Record{
		{Key: []byte("k1"), Value: []byte("hello"), Timestamp: 1700000000000},
		{Key: nil, Value: []byte("world"), Timestamp: 1700000000005,
			Headers: []record.Header{{Key: "trace", Value: []byte("abc")}}},
	}, record.WithCodec(record.CodecZstd), record.WithBaseOffset(40))
	if err != nil {
		panic(err)
	}

	// ... and read it back as a consumer reads a Fetch response's.
	r := record.NewReader(data)
	for {
		batch, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		it := batch.Iter()
		for it.Next() {
			rec := it.Record()
			fmt.Printf("%d %d key=%q value=%q headers=%d\n", rec.Offset, rec.Timestamp, rec.Key, rec.Value, len(rec.Headers))
		}
		if err := it.Err(); err != nil {
			panic(err)
		}
	}
	fmt.Println("partial tail:", r.Partial())
	// Output:
	// 40 1700000000000 key="k1" value="hello" headers=0
	// 41 1700000000005 key="" value="world" headers=1
	// partial tail: false
}
