package record_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire/record"
)

// The transaction marker a coordinator asks a partition leader to write,
// and how a reader tells it from data.
func ExampleAppendEndTxnBatch() {
	data, err := record.AppendEndTxnBatch(nil, record.ControlCommit, 3, 1700000000000, record.WithProducer(1000, 2, -1))
	if err != nil {
		panic(err)
	}
	batches, _, _ := record.ReadBatches(data)
	b := batches[0]
	recs, _ := b.Records()
	key, _ := record.ParseControlKey(recs[0].Key)
	marker, _ := record.ParseEndTxnMarker(recs[0].Value)
	fmt.Println(b.Attributes.Control(), b.Attributes.Transactional(), key.Type == record.ControlCommit, marker.CoordinatorEpoch)
	// Output:
	// true true true 3
}
