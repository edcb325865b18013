package record_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire/record"
)

// Build writes one RecordBatch v2; the options set what a producer does.
func ExampleBuild() {
	data, err := record.Build([]record.Record{{Value: []byte("a")}, {Value: []byte("b")}},
		record.WithProducer(1000, 2, 17), record.WithBaseOffset(5))
	if err != nil {
		panic(err)
	}
	batches, _, err := record.ReadBatches(data)
	if err != nil {
		panic(err)
	}
	b := batches[0]
	fmt.Println(len(data), b.Magic, b.BaseOffset, b.LastOffset(), b.NumRecords, b.ProducerID, b.ProducerEpoch, b.BaseSequence)
	// Output:
	// 77 2 5 6 2 1000 2 17
}

// AppendBatch appends to a record set a producer is filling.
func ExampleAppendBatch() {
	var set []byte
	var err error
	for i, v := range []string{"a", "b"} {
		set, err = record.AppendBatch(set, []record.Record{{Value: []byte(v)}}, record.WithBaseOffset(int64(i)))
		if err != nil {
			panic(err)
		}
	}
	batches, partial, err := record.ReadBatches(set)
	fmt.Println(len(batches), partial, err)
	// Output:
	// 2 false <nil>
}

// AppendBatchLike writes a batch read elsewhere back with new records,
// keeping its header: a proxy that edits records does this.
func ExampleAppendBatchLike() {
	in, _ := record.Build([]record.Record{{Value: []byte("old")}}, record.WithProducer(7, 0, 0), record.WithCodec(record.CodecGzip))
	batches, _, err := record.ReadBatches(in)
	if err != nil {
		panic(err)
	}
	out, err := record.AppendBatchLike(nil, batches[0], []record.Record{{Value: []byte("new")}})
	if err != nil {
		panic(err)
	}
	again, _, _ := record.ReadBatches(out)
	recs, _ := again[0].Records()
	fmt.Println(again[0].ProducerID, again[0].Attributes.Codec(), string(recs[0].Value))
	// Output:
	// 7 gzip new
}
