package proxytest

import (
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestKgoThroughProxy: kgo produces 1,000 records with each codec through
// the proxy to a 3-broker kfake cluster, consumes them in a group and
// commits; every broker is reached through its own proxy listener.
func TestKgoThroughProxy(t *testing.T) {
	const n, partitions = 1000, 3
	codecs := map[string]kgo.CompressionCodec{
		"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
		"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
	}
	var topics []string
	for name := range codecs {
		topics = append(topics, "kgo-"+name)
	}
	sort.Strings(topics)
	cluster, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(partitions, topics...))
	require.NoError(t, err)
	defer cluster.Close()
	p := startProxy(t, cluster.ListenAddrs()[0])
	ctx := withTimeout(t, 2*time.Minute)

	produced := map[string]bool{}
	for name, codec := range codecs {
		cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr), kgo.ProducerBatchCompression(codec),
			kgo.DefaultProduceTopic("kgo-"+name), kgo.ProducerLinger(5*time.Millisecond))
		require.NoError(t, err)
		var recs []*kgo.Record
		for i := range n {
			r := &kgo.Record{Key: fmt.Appendf(nil, "%s-%d", name, i), Value: fmt.Appendf(nil, "value %d of %s: kwire speaks kafka kwire speaks kafka", i, name)}
			recs = append(recs, r)
			produced["kgo-"+name+"/"+string(r.Key)+"="+string(r.Value)] = true
		}
		require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr(), name)
		cl.Close()
	}

	const group = "kgo-proxy-group"
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	require.NoError(t, err)
	consumed := map[string]bool{}
	for len(consumed) < len(produced) {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of %d", len(consumed), len(produced))
		fs.EachError(func(topic string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			k := r.Topic + "/" + string(r.Key) + "=" + string(r.Value)
			require.False(t, consumed[k], "consumed twice: %s", k)
			consumed[k] = true
		})
	}
	require.Equal(t, produced, consumed)
	require.NoError(t, cl.CommitUncommittedOffsets(ctx))

	// The committed offsets, read back through the proxy.
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	committed := int64(0)
	for _, tp := range resp.Topics {
		for _, pp := range tp.Partitions {
			require.Zero(t, pp.ErrorCode)
			committed += pp.Offset
		}
	}
	require.EqualValues(t, len(produced), committed, "sum of committed offsets")
	cl.Close()

	lines := p.Stop(t)
	byAPI := checkLog(t, lines)
	t.Logf("proxy log: %d lines; requests by API: %v", len(lines), byAPI)
	for _, api := range []string{"ApiVersions", "Metadata", "Produce", "Fetch", "FindCoordinator", "OffsetCommit", "OffsetFetch"} {
		require.NotZero(t, byAPI[api], "no %s request logged", api)
	}

	// One listener per broker, and the clients only ever heard of those.
	listeners := p.Listeners()
	require.Len(t, listeners, 3, "listeners: %v", listeners)
	for _, up := range cluster.ListenAddrs() {
		require.Contains(t, listeners, up)
	}
	local := map[string]bool{}
	for _, l := range listeners {
		local[l] = true
	}
	for _, l := range lines {
		if l.Dir != "response" || l.API != "Metadata" {
			continue
		}
		var md struct {
			Brokers []struct {
				Host string
				Port int32
			}
		}
		require.NoError(t, json.Unmarshal(l.Body, &md))
		require.Len(t, md.Brokers, 3)
		for _, b := range md.Brokers {
			addr := net.JoinHostPort(b.Host, fmt.Sprint(b.Port))
			require.True(t, local[addr], "a Metadata response names %s, not a proxy listener", addr)
		}
	}
}
