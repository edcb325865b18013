package record_test

import (
	"fmt"
	"io"

	"github.com/kwirelabs/kwire/kwire/record"
)

// A broker cuts the last batch of a Fetch response short at the fetch
// size: the reader stops before it and says so, without an error.
func ExampleReader_Partial() {
	one, _ := record.Build([]record.Record{{Value: []byte("whole")}})
	two, _ := record.Build([]record.Record{{Value: []byte("cut")}}, record.WithBaseOffset(1))
	fetched := append(append([]byte(nil), one...), two[:20]...)
	r := record.NewReader(fetched)
	b, err := r.Next()
	for ; err == nil; b, err = r.Next() {
		fmt.Println("batch at", b.BaseOffset)
	}
	fmt.Println(err == io.EOF, r.Partial(), r.Offset() == len(one))
	// Output:
	// batch at 0
	// true true true
}

// Records materialises a batch's records; Iter walks them allocating
// nothing beyond the decompressed bytes.
func ExampleBatch_Records() {
	data, _ := record.Build([]record.Record{
		{Key: []byte("k"), Value: []byte("v"), Headers: []record.Header{{Key: "h", Value: []byte("x")}}},
	}, record.WithCodec(record.CodecSnappy))
	batches, _, err := record.ReadBatches(data)
	if err != nil {
		panic(err)
	}
	recs, err := batches[0].Records()
	fmt.Printf("%s=%s %s=%s %v\n", recs[0].Key, recs[0].Value, recs[0].Headers[0].Key, recs[0].Headers[0].Value, err)
	// Output:
	// k=v h=x <nil>
}
