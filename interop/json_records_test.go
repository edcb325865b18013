package interop

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// TestJSONRebuildsKgoBatches: the Produce requests kgo, an independent
// client, sends (batches of its making, in each codec) written as JSON
// and read back with ParseJSON: with WithRawRecords the same bytes; with
// WithRecords, where kwire rebuilds each batch, the same bytes when
// uncompressed, and the same batch headers and records when kwire
// compressed them again.
func TestJSONRebuildsKgoBatches(t *testing.T) {
	for _, c := range []struct {
		name  string
		codec kgo.CompressionCodec
		want  record.Codec
	}{
		{"none", kgo.NoCompression(), record.CodecNone}, {"gzip", kgo.GzipCompression(), record.CodecGzip},
		{"snappy", kgo.SnappyCompression(), record.CodecSnappy}, {"lz4", kgo.Lz4Compression(), record.CodecLZ4},
		{"zstd", kgo.ZstdCompression(), record.CodecZstd},
	} {
		t.Run(c.name, func(t *testing.T) {
			cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
			require.NoError(t, err)
			defer cluster.Close()
			var mu sync.Mutex
			var produced []*kmsg.ProduceRequest
			cluster.ControlKey(0, func(req kmsg.Request) (kmsg.Response, error, bool) {
				cluster.KeepControl()
				mu.Lock()
				defer mu.Unlock()
				produced = append(produced, req.(*kmsg.ProduceRequest))
				return nil, nil, false
			})
			cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.DefaultProduceTopic("orders"),
				kgo.ProducerBatchCompression(c.codec), kgo.ProducerLinger(50*time.Millisecond))
			require.NoError(t, err)
			var recs []*kgo.Record
			for i := range 40 {
				r := &kgo.Record{Value: bytes.Repeat([]byte(fmt.Sprintf("value %d ", i)), 8), Partition: int32(i % 2),
					Timestamp: time.UnixMilli(1700000000000 + int64(i*7))}
				if i%3 != 0 {
					r.Key = []byte{0xff, byte(i)}
				}
				if i%4 == 0 {
					r.Headers = []kgo.RecordHeader{{Key: "trace", Value: []byte("id")}, {Key: "empty"}}
				}
				recs = append(recs, r)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
			cl.Close()

			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, produced)
			batches := 0
			for _, req := range produced {
				v := req.Version
				body := req.AppendTo(nil)
				var msg messages.ProduceRequest
				require.NoError(t, kwire.Unmarshal(body, &msg, v))

				raw, err := pretty.JSON(&msg, v, pretty.WithRawRecords())
				require.NoError(t, err)
				var back messages.ProduceRequest
				require.NoError(t, pretty.ParseJSON(raw, &back, v))
				again, err := kwire.Marshal(&back, v)
				require.NoError(t, err)
				assert.Equal(t, body, again, "v%d, records as base64", v)

				full, err := pretty.JSON(&msg, v, pretty.WithRecords())
				require.NoError(t, err)
				back = messages.ProduceRequest{}
				require.NoError(t, pretty.ParseJSON(full, &back, v))
				for ti, topic := range msg.TopicData {
					for pi, part := range topic.PartitionData {
						rebuilt := back.TopicData[ti].PartitionData[pi].Records
						first, err := record.NewReader(part.Records).Next()
						require.NoError(t, err)
						require.Equal(t, c.want, first.Attributes.Codec(), "kgo's batch")
						if c.name == "none" {
							assert.Equal(t, part.Records, rebuilt, "v%d partition %d: the batch rebuilt", v, part.Index)
						}
						batches += sameBatches(t, part.Records, rebuilt)
					}
				}
			}
			t.Logf("%d Produce requests, %d batches of kgo's, read back from JSON", len(produced), batches)
		})
	}
}

// sameBatches checks that two record sets hold the same batches (headers
// but for length and CRC, which compression changes) and records, and
// returns how many.
func sameBatches(t *testing.T, want, got []byte) int {
	t.Helper()
	wr, gr := record.NewReader(want), record.NewReader(got)
	n := 0
	for {
		wb, werr := wr.Next()
		gb, gerr := gr.Next()
		if werr != nil || gerr != nil {
			assert.Equal(t, werr, gerr, "batch %d", n)
			return n
		}
		n++
		wrecs, grecs := records(t, wb), records(t, gb)
		assert.Equal(t, batchHeader(wb), batchHeader(gb), "batch %d header", n)
		assert.Equal(t, wrecs, grecs, "batch %d records", n)
	}
}

// batchHeader is a batch's header but for its length and CRC.
func batchHeader(b *record.Batch) [11]int64 {
	return [11]int64{b.BaseOffset, int64(b.PartitionLeaderEpoch), int64(b.Magic), int64(b.Attributes), int64(b.LastOffsetDelta),
		b.BaseTimestamp, b.MaxTimestamp, b.ProducerID, int64(b.ProducerEpoch), int64(b.BaseSequence), int64(b.NumRecords)}
}

func records(t *testing.T, b *record.Batch) []record.Record {
	var out []record.Record
	it := b.Iter()
	for it.Next() {
		r := *it.Record()
		r.Key, r.Value = bytes.Clone(r.Key), bytes.Clone(r.Value)
		out = append(out, r)
	}
	require.NoError(t, it.Err())
	return out
}
