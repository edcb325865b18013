package pretty_test

import (
	"bytes"
	"testing"

	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// benchProduce is a Produce request with one zstd batch of 1,000 records
// of 1 KiB, about what a busy producer sends.
func benchProduce(b *testing.B) *messages.ProduceRequest {
	recs := make([]record.Record, 1000)
	for i := range recs {
		recs[i] = record.Record{Key: []byte("key"), Value: bytes.Repeat([]byte{byte('a' + i%26)}, 1024)}
	}
	data, err := record.Build(recs, record.WithCodec(record.CodecZstd))
	if err != nil {
		b.Fatal(err)
	}
	return &messages.ProduceRequest{Acks: -1, TimeoutMs: 30000, TopicData: []messages.ProduceRequestTopicProduceData{
		{Name: "bench", PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: data}}},
	}}
}

func BenchmarkSummaryProduce1000(b *testing.B) {
	req := benchProduce(b)
	b.ReportAllocs()
	b.SetBytes(1000 * 1024)
	for b.Loop() {
		_ = pretty.Summary(req, 9)
	}
}

func BenchmarkJSONProduce1000(b *testing.B) {
	req := benchProduce(b)
	b.ReportAllocs()
	b.SetBytes(1000 * 1024)
	var buf []byte
	for b.Loop() {
		buf, _ = pretty.AppendJSON(buf[:0], req, 9)
	}
}

func BenchmarkJSONMetadataResponse(b *testing.B) {
	resp := &messages.MetadataResponse{}
	for i := 0; i < 20; i++ {
		name := "topic"
		t := messages.MetadataResponseTopic{Name: &name}
		for p := int32(0); p < 10; p++ {
			t.Partitions = append(t.Partitions, messages.MetadataResponsePartition{PartitionIndex: p, ReplicaNodes: []int32{1, 2, 3}, IsrNodes: []int32{1, 2, 3}})
		}
		resp.Topics = append(resp.Topics, t)
	}
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf, _ = pretty.AppendJSON(buf[:0], resp, 12)
	}
}
