// Command benchcap makes Kafka traffic worth capturing: a one-broker
// kfake cluster on a fixed port, kgo producing records of random bytes
// with four codecs, then consuming them in a group and committing; it
// then keeps the broker up (-hold) for other clients (kcat,
// kafka-python) to talk to. bench.sh beside it captures the loopback
// with tcpdump meanwhile and times kwire sniff against tshark.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	port := flag.Int("port", 39092, "the broker's port")
	n := flag.Int("n", 40000, "records to produce and consume")
	size := flag.Int("size", 500, "bytes of each record's value")
	hold := flag.Duration("hold", 30*time.Second, "how long to keep the broker up afterwards")
	flag.Parse()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(*port), kfake.SeedTopics(6, "bench-a", "bench-b"))
	if err != nil {
		panic(err)
	}
	defer cluster.Close()
	fmt.Println("ready", cluster.ListenAddrs()[0])
	ctx := context.Background()
	codecs := []kgo.CompressionCodec{kgo.NoCompression(), kgo.Lz4Compression(), kgo.ZstdCompression(), kgo.SnappyCompression()}
	r := rand.New(rand.NewSource(1))
	for i, codec := range codecs {
		cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.ProducerBatchCompression(codec),
			kgo.ProducerLinger(time.Millisecond), kgo.ClientID(fmt.Sprintf("bench-producer-%d", i)), kgo.ProducerBatchMaxBytes(64<<10))
		if err != nil {
			panic(err)
		}
		topic := []string{"bench-a", "bench-b"}[i%2]
		for j := range *n / len(codecs) {
			val := make([]byte, *size)
			r.Read(val)
			cl.Produce(ctx, &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "k%d", j), Value: val}, nil)
		}
		if err := cl.Flush(ctx); err != nil {
			panic(err)
		}
		cl.Close()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.ConsumeTopics("bench-a", "bench-b"),
		kgo.ConsumerGroup("bench-group"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.ClientID("bench-consumer"), kgo.FetchMaxBytes(256<<10))
	if err != nil {
		panic(err)
	}
	for got := 0; got < *n; {
		got += cl.PollFetches(ctx).NumRecords()
		cl.CommitUncommittedOffsets(ctx)
	}
	cl.Close()
	fmt.Println("holding")
	time.Sleep(*hold)
}
