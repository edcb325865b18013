package interop

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"reflect"
	"time"
	"unsafe"

	"github.com/IBM/sarama"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
	"github.com/rcrowley/go-metrics"
	kafkaprotocol "github.com/segmentio/kafka-go/protocol"
	kafkagoheartbeat "github.com/segmentio/kafka-go/protocol/heartbeat"
	kafkagometadata "github.com/segmentio/kafka-go/protocol/metadata"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A workload is one message with fixed content, built natively in each
// library. TestWorkloadsAgree checks that every library writes the same
// bytes for it before any benchmark trusts the comparison.
type workload struct {
	name    string // benchmark name: MetadataResponseV8
	key     int16
	version int16
	resp    bool

	kwire   func() any         // pointer to a messages struct
	kmsg    func() kmsgMessage // version set
	sarama  func() any         // pointer to a sarama struct, Version set; nil: sarama lacks the API or version
	kafkago func() kafkaprotocol.Message
	// saramaUnordered: sarama keeps this message's partitions in a map,
	// so its bytes match only up to partition order.
	saramaUnordered bool
}

const (
	benchClientID    = "kwire-bench"
	benchCorrelation = 0x2a
	benchCluster     = "kwire-bench-cluster"
	benchGroup       = "kwire-bench-group"
	benchMember      = "Xk3pQ9vLr2TzW8mNb4JcYa" // 22 characters, like a Kafka-assigned member id
	benchTopic       = "bench-topic"
	authOpsUnset     = -2147483648 // Kafka's INT32_MIN "not requested"
	benchTimestampMs = int64(1_700_000_000_000)
)

func benchUUID(i int) (u [16]byte) {
	for j := range u {
		u[j] = byte(i*31 + j*7 + 1)
	}
	return u
}

func benchHost(i int) string       { return fmt.Sprintf("broker-%d.kafka.internal", i) }
func benchTopicName(i int) string  { return fmt.Sprintf("topic-%03d", i) }
func replicas(p int) []int32       { return []int32{int32(p % 3), int32((p + 1) % 3), int32((p + 2) % 3)} }
func ptr[T any](v T) *T            { return &v }
func leader(p int) int32           { return int32(p % 3) }
func metadataTopicID(v int16) bool { return v >= 10 }

var workloads = []workload{
	metadataWorkload(8),
	metadataWorkload(12),
	cghWorkload(),
	heartbeatWorkload(),
	produceWorkload(9),
	produceWorkload(13),
	fetchWorkload(12),
	fetchWorkload(18),
}

// scalingWorkloads are MetadataResponse v12 at 1, 10, 100 and 1000 topics
// of 20 partitions each (BenchmarkScaling), to show how the ratio to kmsg
// moves with the size of a message.
var scalingWorkloads = []workload{
	metadataWorkloadN(12, 1, "MetadataResponseV12Topics1"),
	metadataWorkloadN(12, 10, "MetadataResponseV12Topics10"),
	metadataWorkloadN(12, 100, "MetadataResponseV12Topics100"),
	metadataWorkloadN(12, 1000, "MetadataResponseV12Topics1000"),
}

// ---- MetadataResponse: 3 brokers, 50 topics × 20 partitions, 3 replicas and 3 ISR ----

const metaBrokers, metaTopics, metaPartitions = 3, 50, 20

func metadataWorkload(v int16) workload {
	return metadataWorkloadN(v, metaTopics, fmt.Sprintf("MetadataResponseV%d", v))
}

func metadataWorkloadN(v int16, topics int, name string) workload {
	w := workload{name: name, key: 3, version: v, resp: true}
	w.kwire = func() any {
		m := messages.NewMetadataResponse()
		for i := 0; i < metaBrokers; i++ {
			m.Brokers = append(m.Brokers, messages.MetadataResponseBroker{NodeID: int32(i), Host: benchHost(i), Port: 9092})
		}
		m.ClusterID = ptr(benchCluster)
		m.ControllerID = 1
		for t := 0; t < topics; t++ {
			tp := messages.MetadataResponseTopic{Name: ptr(benchTopicName(t)), TopicAuthorizedOperations: authOpsUnset}
			if metadataTopicID(v) {
				tp.TopicID = benchUUID(t)
			}
			for p := 0; p < metaPartitions; p++ {
				tp.Partitions = append(tp.Partitions, messages.MetadataResponsePartition{
					PartitionIndex: int32(p), LeaderID: leader(p), LeaderEpoch: 7,
					ReplicaNodes: replicas(p), IsrNodes: replicas(p), OfflineReplicas: []int32{},
				})
			}
			m.Topics = append(m.Topics, tp)
		}
		return m
	}
	w.kmsg = func() kmsgMessage {
		m := kmsg.NewPtrMetadataResponse()
		m.Version = v
		for i := 0; i < metaBrokers; i++ {
			m.Brokers = append(m.Brokers, kmsg.MetadataResponseBroker{NodeID: int32(i), Host: benchHost(i), Port: 9092})
		}
		m.ClusterID = ptr(benchCluster)
		m.ControllerID = 1
		m.AuthorizedOperations = authOpsUnset
		for t := 0; t < topics; t++ {
			tp := kmsg.NewMetadataResponseTopic()
			tp.Topic = ptr(benchTopicName(t))
			if metadataTopicID(v) {
				tp.TopicID = benchUUID(t)
			}
			tp.AuthorizedOperations = authOpsUnset
			for p := 0; p < metaPartitions; p++ {
				tp.Partitions = append(tp.Partitions, kmsg.MetadataResponseTopicPartition{
					Partition: int32(p), Leader: leader(p), LeaderEpoch: 7,
					Replicas: replicas(p), ISR: replicas(p), OfflineReplicas: []int32{},
				})
			}
			m.Topics = append(m.Topics, tp)
		}
		return m
	}
	if v <= 11 { // sarama's MetadataResponse stops at v11
		w.sarama = func() any {
			m := &sarama.MetadataResponse{Version: v, ClusterID: ptr(benchCluster), ControllerID: 1, ClusterAuthorizedOperations: authOpsUnset}
			for i := 0; i < metaBrokers; i++ {
				m.AddBroker(fmt.Sprintf("%s:9092", benchHost(i)), int32(i)) // sarama cannot set a rack from outside: all racks null
			}
			for t := 0; t < topics; t++ {
				tp := &sarama.TopicMetadata{Version: v, Name: benchTopicName(t), TopicAuthorizedOperations: authOpsUnset}
				if metadataTopicID(v) {
					tp.Uuid = benchUUID(t)
				}
				for p := 0; p < metaPartitions; p++ {
					tp.Partitions = append(tp.Partitions, &sarama.PartitionMetadata{
						Version: v, ID: int32(p), Leader: leader(p), LeaderEpoch: 7,
						Replicas: replicas(p), Isr: replicas(p), OfflineReplicas: []int32{},
					})
				}
				m.Topics = append(m.Topics, tp)
			}
			return m
		}
	}
	if v <= 8 { // kafka-go's metadata messages stop at v8
		w.kafkago = func() kafkaprotocol.Message {
			m := &kafkagometadata.Response{ClusterID: benchCluster, ControllerID: 1, ClusterAuthorizedOperations: authOpsUnset}
			for i := 0; i < metaBrokers; i++ {
				m.Brokers = append(m.Brokers, kafkagometadata.ResponseBroker{NodeID: int32(i), Host: benchHost(i), Port: 9092})
			}
			for t := 0; t < topics; t++ {
				tp := kafkagometadata.ResponseTopic{Name: benchTopicName(t), TopicAuthorizedOperations: authOpsUnset}
				for p := 0; p < metaPartitions; p++ {
					tp.Partitions = append(tp.Partitions, kafkagometadata.ResponsePartition{
						PartitionIndex: int32(p), LeaderID: leader(p), LeaderEpoch: 7,
						ReplicaNodes: replicas(p), IsrNodes: replicas(p), OfflineReplicas: []int32{},
					})
				}
				m.Topics = append(m.Topics, tp)
			}
			return m
		}
	}
	return w
}

// ---- ConsumerGroupHeartbeatRequest v1: 3 subscribed topics, 3 owned topics × 4 partitions ----

func cghWorkload() workload {
	subscribed := []string{"orders", "payments", "shipments"}
	w := workload{name: "ConsumerGroupHeartbeatRequestV1", key: 68, version: 1}
	w.kwire = func() any {
		m := messages.NewConsumerGroupHeartbeatRequest()
		m.GroupID, m.MemberID, m.MemberEpoch, m.RebalanceTimeoutMs = benchGroup, benchMember, 12, 300000
		m.SubscribedTopicNames = append([]string(nil), subscribed...)
		m.ServerAssignor = ptr("uniform")
		for t := 0; t < 3; t++ {
			m.TopicPartitions = append(m.TopicPartitions, messages.ConsumerGroupHeartbeatRequestTopicPartitions{
				TopicID: benchUUID(t), Partitions: []int32{0, 1, 2, 3}})
		}
		return m
	}
	w.kmsg = func() kmsgMessage {
		m := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		m.Version = 1
		m.Group, m.MemberID, m.MemberEpoch, m.RebalanceTimeoutMillis = benchGroup, benchMember, 12, 300000
		m.SubscribedTopicNames = append([]string(nil), subscribed...)
		m.ServerAssignor = ptr("uniform")
		for t := 0; t < 3; t++ {
			m.Topics = append(m.Topics, kmsg.ConsumerGroupHeartbeatRequestTopic{TopicID: benchUUID(t), Partitions: []int32{0, 1, 2, 3}})
		}
		return m
	}
	return w // neither sarama nor kafka-go has ConsumerGroupHeartbeat
}

// ---- HeartbeatRequest v4 ----

func heartbeatWorkload() workload {
	w := workload{name: "HeartbeatRequestV4", key: 12, version: 4}
	w.kwire = func() any {
		return &messages.HeartbeatRequest{GroupID: benchGroup, GenerationID: 12, MemberID: benchMember}
	}
	w.kmsg = func() kmsgMessage {
		m := kmsg.NewPtrHeartbeatRequest()
		m.Version, m.Group, m.Generation, m.MemberID = 4, benchGroup, 12, benchMember
		return m
	}
	w.sarama = func() any {
		return &sarama.HeartbeatRequest{Version: 4, GroupId: benchGroup, GenerationId: 12, MemberId: benchMember}
	}
	w.kafkago = func() kafkaprotocol.Message {
		return &kafkagoheartbeat.Request{GroupID: benchGroup, GenerationID: 12, MemberID: benchMember}
	}
	return w
}

// ---- record batches: opaque bytes to kwire and kmsg, parsed by sarama ----

// batchSpec is an uncompressed RecordBatch v2: records with null keys and
// the given values, all at one timestamp, offsets 0..n-1.
type batchSpec struct {
	values [][]byte
}

// newBatchSpec makes n records whose batch is exactly total bytes.
func newBatchSpec(n, total int) batchSpec {
	s := batchSpec{values: make([][]byte, n)}
	per := (total-61)/n - 8
	for i := range s.values {
		s.values[i] = make([]byte, per)
		for j := range s.values[i] {
			s.values[i][j] = byte('a' + (i+j)%26)
		}
	}
	for try := 0; try < 8; try++ {
		d := total - len(s.bytes())
		if d == 0 {
			return s
		}
		last := &s.values[n-1]
		*last = append((*last)[:0:0], (*last)[:len(*last)+d]...)
	}
	panic("cannot size the batch")
}

func (s batchSpec) bytes() []byte {
	var recs []byte
	for i, v := range s.values {
		var r []byte
		r = append(r, 0)              // attributes
		r = binary.AppendVarint(r, 0) // timestamp delta
		r = binary.AppendVarint(r, int64(i))
		r = binary.AppendVarint(r, -1) // null key
		r = binary.AppendVarint(r, int64(len(v)))
		r = append(r, v...)
		r = binary.AppendVarint(r, 0) // no headers
		recs = binary.AppendVarint(recs, int64(len(r)))
		recs = append(recs, r...)
	}
	n := len(s.values)
	b := make([]byte, 61, 61+len(recs))
	binary.BigEndian.PutUint32(b[8:], uint32(49+len(recs))) // batch length
	b[16] = 2                                               // magic
	binary.BigEndian.PutUint32(b[23:], uint32(n-1))         // last offset delta
	binary.BigEndian.PutUint64(b[27:], uint64(benchTimestampMs))
	binary.BigEndian.PutUint64(b[35:], uint64(benchTimestampMs))
	binary.BigEndian.PutUint64(b[43:], ^uint64(0)) // producer id -1
	binary.BigEndian.PutUint16(b[51:], ^uint16(0)) // producer epoch -1
	binary.BigEndian.PutUint32(b[53:], ^uint32(0)) // base sequence -1
	binary.BigEndian.PutUint32(b[57:], uint32(n))
	b = append(b, recs...)
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

func (s batchSpec) sarama() *sarama.RecordBatch {
	ts := time.UnixMilli(benchTimestampMs)
	b := &sarama.RecordBatch{Version: 2, LastOffsetDelta: int32(len(s.values) - 1), FirstTimestamp: ts, MaxTimestamp: ts,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1}
	for i, v := range s.values {
		b.Records = append(b.Records, &sarama.Record{OffsetDelta: int64(i), Value: v})
	}
	return b
}

// ---- ProduceRequest v9 and v13: one partition, 1 KiB of records ----

// produceTopicID names the topic in versions 13+, which send ids.
var produceTopicID = benchUUID(99)

func produceWorkload(v int16) workload {
	spec := newBatchSpec(4, 1024)
	records := spec.bytes()
	w := workload{name: fmt.Sprintf("ProduceRequestV%d", v), key: 0, version: v}
	w.kwire = func() any {
		td := messages.ProduceRequestTopicProduceData{Name: benchTopic,
			PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: records}}}
		if v >= 13 {
			td.Name, td.TopicID = "", produceTopicID
		}
		return &messages.ProduceRequest{Acks: -1, TimeoutMs: 30000, TopicData: []messages.ProduceRequestTopicProduceData{td}}
	}
	w.kmsg = func() kmsgMessage {
		m := kmsg.NewPtrProduceRequest()
		m.Version, m.Acks, m.TimeoutMillis = v, -1, 30000
		t := kmsg.ProduceRequestTopic{Topic: benchTopic, Partitions: []kmsg.ProduceRequestTopicPartition{{Partition: 0, Records: records}}}
		if v >= 13 {
			t.Topic, t.TopicID = "", produceTopicID
		}
		m.Topics = []kmsg.ProduceRequestTopic{t}
		return m
	}
	if v <= 9 {
		w.sarama = func() any {
			m := &sarama.ProduceRequest{Version: v, RequiredAcks: sarama.WaitForAll, Timeout: 30000}
			m.AddBatch(benchTopic, 0, spec.sarama())
			return m
		}
	}
	return w // kafka-go's produce messages stop at v8
}

// ---- FetchResponse v12 and v18: 10 partitions × 16 KiB of records ----

const fetchPartitions = 10

// fetchTopicID names the topic in versions 13+, which send ids.
var fetchTopicID = benchUUID(98)

func fetchWorkload(v int16) workload {
	spec := newBatchSpec(16, 16384)
	records := spec.bytes()
	w := workload{name: fmt.Sprintf("FetchResponseV%d", v), key: 1, version: v, resp: true, saramaUnordered: true}
	w.kwire = func() any {
		m := messages.NewFetchResponse()
		tp := messages.FetchResponseFetchableTopicResponse{Topic: benchTopic}
		if v >= 13 {
			tp.Topic, tp.TopicID = "", fetchTopicID
		}
		for p := 0; p < fetchPartitions; p++ {
			pd := messages.FetchResponsePartitionData{}
			pd.Default()
			pd.PartitionIndex, pd.HighWatermark, pd.LastStableOffset, pd.LogStartOffset = int32(p), 1000, 1000, 0
			pd.AbortedTransactions = []messages.FetchResponseAbortedTransaction{} // empty, not null: sarama cannot say null
			pd.Records = records
			tp.Partitions = append(tp.Partitions, pd)
		}
		m.Responses = []messages.FetchResponseFetchableTopicResponse{tp}
		return m
	}
	w.kmsg = func() kmsgMessage {
		m := kmsg.NewPtrFetchResponse()
		m.Version = v
		tp := kmsg.NewFetchResponseTopic()
		tp.Topic = benchTopic
		if v >= 13 {
			tp.Topic, tp.TopicID = "", fetchTopicID
		}
		for p := 0; p < fetchPartitions; p++ {
			pd := kmsg.NewFetchResponseTopicPartition()
			pd.Partition, pd.HighWatermark, pd.LastStableOffset, pd.LogStartOffset = int32(p), 1000, 1000, 0
			pd.AbortedTransactions = []kmsg.FetchResponseTopicPartitionAbortedTransaction{}
			pd.RecordBatches = records
			tp.Partitions = append(tp.Partitions, pd)
		}
		m.Topics = []kmsg.FetchResponseTopic{tp}
		return m
	}
	if v == 12 {
		w.sarama = func() any {
			// sarama's Records type has unexported fields and its Add*
			// helpers build one batch per record, so the instance is what
			// sarama's own decoder makes of the canonical bytes.
			body, err := kwire.Marshal(w.kwire(), v)
			if err != nil {
				panic(err)
			}
			m := &sarama.FetchResponse{Version: v}
			if err := saramaDecode(body, m, v); err != nil {
				panic(err)
			}
			return m
		}
	}
	return w // kafka-go's fetch messages stop at v11
}

// ---- reaching sarama's codec ----

// sarama's encode and decode entry points are unexported: each message has
// encode(packetEncoder) and decode(packetDecoder, int16) methods, driven by
// the package functions encode(encoder, metrics.Registry) and
// versionedDecode([]byte, versionedDecoder, int16, metrics.Registry). They
// are reached here with go:linkname. Their interface parameters are passed
// as the two machine words of an interface value (the Go ABI lays out an
// interface like a struct of two pointers); the words come from a value of
// sarama's own interface type, found by reflection on exported API
// (RequestResponse.Response is an `encoder`, MockWrapper.For takes a
// `versionedDecoder`), so the method tables are sarama's. TestWorkloadsAgree
// checks the bytes this produces.
type ifaceWords struct{ tab, data unsafe.Pointer }

//go:linkname saramaEncodeRaw github.com/IBM/sarama.encode
func saramaEncodeRaw(e ifaceWords, reg metrics.Registry) ([]byte, error)

//go:linkname saramaVersionedDecodeRaw github.com/IBM/sarama.versionedDecode
func saramaVersionedDecodeRaw(buf []byte, in ifaceWords, version int16, reg metrics.Registry) error

var (
	saramaEncoderType          = reflect.TypeOf(sarama.RequestResponse{}).Field(1).Type // sarama.encoder
	saramaVersionedDecoderType = reflect.TypeOf((*sarama.MockWrapper).For).In(1)        // sarama.versionedDecoder
)

// saramaIface returns msg as a value of sarama's interface type t, as words.
func saramaIface(msg any, t reflect.Type) ifaceWords {
	v := reflect.New(t)
	v.Elem().Set(reflect.ValueOf(msg))
	return *(*ifaceWords)(v.UnsafePointer())
}

// saramaEncoder holds a message ready for sarama's encode, so the
// benchmark loop does not pay for the reflection.
type saramaEncoder struct{ words ifaceWords }

func newSaramaEncoder(msg any) saramaEncoder {
	return saramaEncoder{saramaIface(msg, saramaEncoderType)}
}

func (e saramaEncoder) encode() ([]byte, error) { return saramaEncodeRaw(e.words, nil) }

func saramaDecode(b []byte, msg any, version int16) error {
	return saramaVersionedDecodeRaw(b, saramaIface(msg, saramaVersionedDecoderType), version, nil)
}
