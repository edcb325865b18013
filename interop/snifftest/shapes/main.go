// Command shapes writes the packet captures bench.sh times kwire sniff
// and tshark on, one traffic shape each, made up rather than captured so
// that every run reads the same bytes:
//
//	small-produce  100,000 Produce requests of one small record (acks=1)
//	               and their responses, over 4 connections
//	large-fetch    200 Fetch responses of 256 KiB of records each
//	metadata       2,000 Metadata exchanges naming 50 topics of 6
//	               partitions
//
// Usage: shapes -shape NAME [-n COUNT] -o FILE.pcap
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

func main() {
	shape := flag.String("shape", "small-produce", "small-produce, large-fetch or metadata")
	n := flag.Int("n", 0, "exchanges (default: the shape's)")
	out := flag.String("o", "", "the capture to write")
	flag.Parse()
	if *out == "" {
		log.Fatal("shapes: -o FILE")
	}
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	c := capturetest.Stream(w)
	switch *shape {
	case "small-produce":
		smallProduce(c, or(*n, 100_000))
	case "large-fetch":
		largeFetch(c, or(*n, 200))
	case "metadata":
		metadata(c, or(*n, 2_000))
	default:
		log.Fatalf("shapes: no shape %q", *shape)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

func or(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

func must(b []byte, err error) []byte {
	if err != nil {
		log.Fatal(err)
	}
	return b
}

func smallProduce(c *capturetest.Capture, n int) {
	conns := make([]*capturetest.Conn, 4)
	for i := range conns {
		conns[i] = c.Dial(fmt.Sprintf("10.1.0.%d:4%04d", i+2, i), "10.1.0.1:9092", true)
	}
	id := "bench-producer"
	for i := range n {
		batch := must(record.Build([]record.Record{{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "value-%08d", i)}}))
		req := messages.NewProduceRequest()
		req.Acks, req.TimeoutMs = 1, 30000
		req.TopicData = []messages.ProduceRequestTopicProduceData{{Name: "bench-a",
			PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: int32(i % 6), Records: batch}}}}
		resp := messages.NewProduceResponse()
		resp.Responses = []messages.ProduceResponseTopicProduceResponse{{Name: "bench-a",
			PartitionResponses: []messages.ProduceResponsePartitionProduceResponse{{Index: int32(i % 6), BaseOffset: int64(i)}}}}
		k := conns[i%len(conns)]
		corr := int32(i / len(conns))
		k.Send(true, must(kwire.AppendRequest(nil, req, 9, corr, &id)), 1460)
		k.Send(false, must(kwire.AppendResponse(nil, resp, 9, corr)), 1460)
	}
	for _, k := range conns {
		k.Close()
	}
}

func largeFetch(c *capturetest.Capture, n int) {
	k := c.Dial("10.1.0.2:40000", "10.1.0.1:9092", true)
	id := "bench-consumer"
	var recs []record.Record
	for i := range 512 {
		recs = append(recs, record.Record{Key: fmt.Appendf(nil, "k%d", i), Value: make([]byte, 500)})
	}
	batch := must(record.Build(recs))
	for i := range n {
		req := messages.NewFetchRequest()
		req.MaxWaitMs, req.MaxBytes = 500, 1<<20
		req.Topics = []messages.FetchRequestTopic{{Topic: "bench-a",
			Partitions: []messages.FetchRequestPartition{{Partition: 0, FetchOffset: int64(i * 512), PartitionMaxBytes: 1 << 20}}}}
		resp := messages.NewFetchResponse()
		resp.Responses = []messages.FetchResponseFetchableTopicResponse{{Topic: "bench-a",
			Partitions: []messages.FetchResponsePartitionData{{PartitionIndex: 0, HighWatermark: int64(n * 512), Records: batch}}}}
		k.Send(true, must(kwire.AppendRequest(nil, req, 11, int32(i), &id)), 1460)
		k.Send(false, must(kwire.AppendResponse(nil, resp, 11, int32(i))), 1460)
	}
	k.Close()
}

func metadata(c *capturetest.Capture, n int) {
	k := c.Dial("10.1.0.2:40000", "10.1.0.1:9092", true)
	id := "bench-admin"
	resp := messages.NewMetadataResponse()
	resp.Brokers = []messages.MetadataResponseBroker{{NodeID: 1, Host: "broker-1", Port: 9092}}
	for t := range 50 {
		name := fmt.Sprintf("topic-%02d", t)
		topic := messages.MetadataResponseTopic{Name: &name}
		for p := range 6 {
			topic.Partitions = append(topic.Partitions, messages.MetadataResponsePartition{PartitionIndex: int32(p), LeaderID: 1,
				ReplicaNodes: []int32{1}, IsrNodes: []int32{1}})
		}
		resp.Topics = append(resp.Topics, topic)
	}
	for i := range n {
		k.Send(true, must(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 9, int32(i), &id)), 1460)
		k.Send(false, must(kwire.AppendResponse(nil, resp, 9, int32(i))), 1460)
	}
	k.Close()
}
