package kwire_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

// metadata has the shape of MetadataResponse v12.
type metadata struct {
	_            struct{}         `kafka:"api=3,versions=0-13,flexible=9+"`
	Throttle     int32            `kafka:"v=3+,ignorable"`
	Brokers      []metadataBroker `kafka:"v=0+"`
	ClusterID    *string          `kafka:"v=2+,nullable=2+,default=null,ignorable"`
	ControllerID int32            `kafka:"v=1+,default=-1,ignorable"`
	Topics       []metadataTopic  `kafka:"v=0+"`
	ClusterOps   int32            `kafka:"v=8-10,default=-2147483648"`
	ErrorCode    int16            `kafka:"v=13+,ignorable"`
	UnknownTags  kwire.UnknownTags
}

type metadataBroker struct {
	NodeID      int32   `kafka:"v=0+"`
	Host        string  `kafka:"v=0+"`
	Port        int32   `kafka:"v=0+"`
	Rack        *string `kafka:"v=1+,nullable=1+,default=null,ignorable"`
	UnknownTags kwire.UnknownTags
}

type metadataTopic struct {
	ErrorCode   int16               `kafka:"v=0+"`
	Name        *string             `kafka:"v=0+,nullable=12+"`
	TopicID     kwire.UUID          `kafka:"v=10+,ignorable"`
	IsInternal  bool                `kafka:"v=1+,default=false,ignorable"`
	Partitions  []metadataPartition `kafka:"v=0+"`
	TopicOps    int32               `kafka:"v=8+,default=-2147483648"`
	UnknownTags kwire.UnknownTags
}

type metadataPartition struct {
	ErrorCode       int16   `kafka:"v=0+"`
	PartitionIndex  int32   `kafka:"v=0+"`
	LeaderID        int32   `kafka:"v=0+"`
	LeaderEpoch     int32   `kafka:"v=7+,default=-1,ignorable"`
	ReplicaNodes    []int32 `kafka:"v=0+"`
	IsrNodes        []int32 `kafka:"v=0+"`
	OfflineReplicas []int32 `kafka:"v=5+,ignorable"`
	UnknownTags     kwire.UnknownTags
}

// newMetadata: 3 brokers, 50 topics of 20 partitions, 3 replicas and 3
// ISR each.
func newMetadata() *metadata {
	cluster := "kwire-bench-cluster"
	m := &metadata{ClusterID: &cluster, ControllerID: 1}
	for b := int32(0); b < 3; b++ {
		rack := fmt.Sprintf("rack-%d", b)
		m.Brokers = append(m.Brokers, metadataBroker{NodeID: b, Host: fmt.Sprintf("broker-%d.kafka.internal", b), Port: 9092, Rack: &rack})
	}
	for t := 0; t < 50; t++ {
		name := fmt.Sprintf("topic-%03d", t)
		topic := metadataTopic{Name: &name, TopicID: kwire.UUID{byte(t), 1}, TopicOps: -2147483648}
		for p := int32(0); p < 20; p++ {
			topic.Partitions = append(topic.Partitions, metadataPartition{
				PartitionIndex: p, LeaderID: p % 3, LeaderEpoch: 7,
				ReplicaNodes: []int32{0, 1, 2}, IsrNodes: []int32{0, 1, 2}, OfflineReplicas: []int32{},
			})
		}
		m.Topics = append(m.Topics, topic)
	}
	return m
}

// startBench fails b on a setup error, else reports the bytes of one
// operation (in's length) and the allocations, and starts the timing.
func startBench(b *testing.B, in []byte, err error) {
	require.NoError(b, err)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
}

func benchEncode(b *testing.B, msg any, v int16) {
	buf, err := kwire.Marshal(msg, v)
	startBench(b, buf, err)
	for i := 0; i < b.N; i++ {
		buf, err = kwire.Append(buf[:0], msg, v)
		if err != nil {
			b.Fatal(err)
		}
	}
}

func benchDecode[T any](b *testing.B, msg *T, v int16) {
	in, err := kwire.Marshal(msg, v)
	startBench(b, in, err)
	for i := 0; i < b.N; i++ {
		var out T
		if err := kwire.Unmarshal(in, &out, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeHeartbeatV1(b *testing.B)    { benchEncode(b, wiretest.NewHeartbeat(), 1) }
func BenchmarkDecodeHeartbeatV1(b *testing.B)    { benchDecode(b, wiretest.NewHeartbeat(), 1) }
func BenchmarkEncodeMetadataV12(b *testing.B)    { benchEncode(b, newMetadata(), 12) }
func BenchmarkDecodeMetadataV12(b *testing.B)    { benchDecode(b, newMetadata(), 12) }
func BenchmarkEncodeMetadataV8(b *testing.B)     { benchEncode(b, newMetadata(), 8) }
func BenchmarkDecodeMetadataV8(b *testing.B)     { benchDecode(b, newMetadata(), 8) }
func BenchmarkSizeMetadataV12(b *testing.B)      { benchSize(b, newMetadata(), 12) }
func BenchmarkEncodeFrameHeartbeat(b *testing.B) { benchFrame(b, wiretest.NewHeartbeat(), 1) }

func benchSize(b *testing.B, msg any, v int16) {
	_, err := kwire.Size(msg, v) // builds the plan outside the timing
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := kwire.Size(msg, v); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFrame(b *testing.B, msg any, v int16) {
	client := "bench"
	buf, err := kwire.AppendRequest(nil, msg, v, 1, &client)
	startBench(b, buf, err)
	for i := 0; i < b.N; i++ {
		if buf, err = kwire.AppendRequest(buf[:0], msg, v, int32(i), &client); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEncodeIntoReusedBufferAllocatesNothing holds the codec to its
// promise: with a pointer and a buffer with room, encoding allocates
// nothing, frames included.
func TestEncodeIntoReusedBufferAllocatesNothing(t *testing.T) {
	client := "c"
	for name, c := range map[string]struct {
		msg any
		v   int16
	}{"heartbeat v1": {wiretest.NewHeartbeat(), 1}, "metadata v12": {newMetadata(), 12}, "metadata v8": {newMetadata(), 8}} {
		buf := make([]byte, 0, 1<<20)
		allocs := testing.AllocsPerRun(50, func() {
			var err error
			if _, err = kwire.Append(buf[:0], c.msg, c.v); err != nil {
				t.Fatal(err)
			}
			if _, err = kwire.AppendRequest(buf[:0], c.msg, c.v, 1, &client); err != nil {
				t.Fatal(err)
			}
			if _, err = kwire.Size(c.msg, c.v); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, name)
	}
}

// TestDecodeAllocatesInBulk: decoding the 50×20 metadata response takes
// far fewer allocations than it has values (strings and small arrays are
// carved from shared chunks).
func TestDecodeAllocatesInBulk(t *testing.T) {
	in, err := kwire.Marshal(newMetadata(), 12)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(20, func() {
		var out metadata
		if err := kwire.Unmarshal(in, &out, 12); err != nil {
			t.Fatal(err)
		}
	})
	assert.Less(t, allocs, 60.0, "1,000 partitions and 3,000 int32 arrays")
}

// TestConcurrentUse builds plans and codes messages from many goroutines
// at once (run with -race to check the plan cache).
func TestConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for v := int16(0); v <= 13; v++ {
				m := newMetadata()
				b, err := kwire.Marshal(m, v)
				if err != nil {
					t.Error(err)
					return
				}
				var back metadata
				if err := kwire.Unmarshal(b, &back, v); err != nil {
					t.Error(err)
					return
				}
				if _, err := kwire.Marshal(wiretest.NewHeartbeat(), int16(g%2)); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
}
