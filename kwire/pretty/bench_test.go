package pretty_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
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

// benchMetadataJSON is a Metadata v12 response of 500 topics of 10
// partitions (3 replicas each) as JSON writes it: about 0.9 MB of keys
// and small numbers, what a large cluster answers.
func benchMetadataJSON(b *testing.B) []byte {
	resp := &messages.MetadataResponse{}
	for i := range 500 {
		name := fmt.Sprintf("topic-%d", i)
		t := messages.MetadataResponseTopic{Name: &name, TopicID: kwire.UUID{byte(i), 1}}
		for p := range int32(10) {
			t.Partitions = append(t.Partitions, messages.MetadataResponsePartition{PartitionIndex: p, LeaderID: p % 3, LeaderEpoch: 7,
				ReplicaNodes: []int32{0, 1, 2}, IsrNodes: []int32{0, 1, 2}, OfflineReplicas: []int32{}})
		}
		resp.Topics = append(resp.Topics, t)
	}
	data, err := pretty.JSON(resp, 12)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkParseJSONMetadataResponse(b *testing.B) {
	data := benchMetadataJSON(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := pretty.ParseJSON(data, new(messages.MetadataResponse), 12); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseJSONFetchRecords: a Fetch v16 response with one batch
// of 1,000 small records written in full (WithRecords), as kwire encode
// reads an edited `kwire decode -json -records` line.
func BenchmarkParseJSONFetchRecords(b *testing.B) {
	recs := make([]record.Record, 1000)
	for i := range recs {
		recs[i] = record.Record{Key: fmt.Appendf(nil, "key-%d", i), Value: fmt.Appendf(nil, "value %d", i),
			Headers: []record.Header{{Key: "h", Value: []byte("v")}}}
	}
	batch, err := record.Build(recs)
	if err != nil {
		b.Fatal(err)
	}
	resp := &messages.FetchResponse{Responses: []messages.FetchResponseFetchableTopicResponse{{TopicID: kwire.UUID{1},
		Partitions: []messages.FetchResponsePartitionData{{PartitionIndex: 0, HighWatermark: 1000, Records: batch}}}}}
	data, err := pretty.JSON(resp, 16, pretty.WithRecords())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := pretty.ParseJSON(data, new(messages.FetchResponse), 16); err != nil {
			b.Fatal(err)
		}
	}
}
