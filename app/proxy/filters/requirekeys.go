package filters

import (
	"fmt"
	"io"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/record"
)

// RequireKeys refuses Produce records without a key (a null key) with
// INVALID_RECORD, partition by partition: what a compacted topic's
// broker does, enforced for every topic. A record set that does not
// parse is refused as CORRUPT_MESSAGE.
type RequireKeys struct{}

func (RequireKeys) Request(c *proxy.Conn, r *proxy.Request) proxy.Action {
	return RefuseProduce(r, func(topic string, _ kwire.UUID, partition int32, records []byte) *Refusal {
		rd := record.NewReader(records)
		for n := 0; ; {
			b, err := rd.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return &Refusal{kerr.CorruptMessage, err.Error()}
			}
			if refusal := requireKeys(b, &n, topic, partition); refusal != nil {
				return refusal
			}
		}
	})
}

// requireKeys checks one batch's records, counting them on n, and gives
// back its decompression buffer: nothing outlives the check.
func requireKeys(b *record.Batch, n *int, topic string, partition int32) *Refusal {
	defer b.Release()
	it := b.Iter()
	for it.Next() {
		if it.RecordWithoutHeaders().Key == nil {
			return &Refusal{kerr.InvalidRecord, fmt.Sprintf("record %d of %s-%d has no key; this proxy requires keys", *n, topic, partition)}
		}
		*n++
	}
	if err := it.Err(); err != nil {
		return &Refusal{kerr.CorruptMessage, err.Error()}
	}
	return nil
}

func (RequireKeys) Response(*proxy.Conn, *proxy.Response) proxy.Action { return proxy.Pass }
