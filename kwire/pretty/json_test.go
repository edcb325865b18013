package pretty_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

func str(s string) *string { return &s }

var topicID = kwire.UUID{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}

func expectJSON(t *testing.T, msg any, version int16, want string, opts ...pretty.Option) {
	t.Helper()
	got, err := pretty.JSON(msg, version, opts...)
	if err != nil {
		t.Fatalf("v%d: %v", version, err)
	}
	if !json.Valid(got) {
		t.Fatalf("v%d: not valid JSON: %s", version, got)
	}
	if string(got) != want {
		t.Errorf("v%d:\n got %s\nwant %s", version, got, want)
	}
}

func TestJSONMetadataResponseByVersion(t *testing.T) {
	resp := &messages.MetadataResponse{
		ThrottleTimeMs: 5,
		Brokers:        []messages.MetadataResponseBroker{{NodeID: 1, Host: "b1", Port: 9092, Rack: str("r1")}},
		ClusterID:      nil,
		ControllerID:   1,
		Topics: []messages.MetadataResponseTopic{{
			ErrorCode: 3, Name: nil, TopicID: topicID, IsInternal: true,
			Partitions: []messages.MetadataResponsePartition{{PartitionIndex: 0, LeaderID: 1, LeaderEpoch: 7,
				ReplicaNodes: []int32{1, 2}, IsrNodes: []int32{1}, OfflineReplicas: []int32{}}},
			TopicAuthorizedOperations: -2147483648,
		}},
		ClusterAuthorizedOperations: -2147483648,
	}
	// v0: no throttle, rack, cluster id, controller, internal flag, epoch,
	// offline replicas, topic id; the topic name is not nullable, so a nil
	// name is "" on the wire (JSON shows what the struct holds: null is
	// only legal from v12, where it is tested below).
	resp0 := *resp
	resp0.Topics = []messages.MetadataResponseTopic{resp.Topics[0]}
	resp0.Topics[0].Name = str("orders")
	expectJSON(t, &resp0, 0, `{"Brokers":[{"NodeID":1,"Host":"b1","Port":9092}],`+
		`"Topics":[{"ErrorCode":3,"Name":"orders","Partitions":[{"ErrorCode":0,"PartitionIndex":0,"LeaderID":1,"ReplicaNodes":[1,2],"IsrNodes":[1]}]}]}`)
	expectJSON(t, &resp0, 1, `{"Brokers":[{"NodeID":1,"Host":"b1","Port":9092,"Rack":"r1"}],"ControllerID":1,`+
		`"Topics":[{"ErrorCode":3,"Name":"orders","IsInternal":true,"Partitions":[{"ErrorCode":0,"PartitionIndex":0,"LeaderID":1,"ReplicaNodes":[1,2],"IsrNodes":[1]}]}]}`)
	// v8: cluster and topic authorized operations arrive; ClusterID (v2+) is null.
	expectJSON(t, &resp0, 8, `{"ThrottleTimeMs":5,"Brokers":[{"NodeID":1,"Host":"b1","Port":9092,"Rack":"r1"}],"ClusterID":null,"ControllerID":1,`+
		`"Topics":[{"ErrorCode":3,"Name":"orders","IsInternal":true,"Partitions":[{"ErrorCode":0,"PartitionIndex":0,"LeaderID":1,"LeaderEpoch":7,"ReplicaNodes":[1,2],"IsrNodes":[1],"OfflineReplicas":[]}],"TopicAuthorizedOperations":-2147483648}],`+
		`"ClusterAuthorizedOperations":-2147483648}`)
	// v12: topic ids (canonical text), null topic names; no cluster
	// authorized operations (v8-10 only).
	expectJSON(t, resp, 12, `{"ThrottleTimeMs":5,"Brokers":[{"NodeID":1,"Host":"b1","Port":9092,"Rack":"r1"}],"ClusterID":null,"ControllerID":1,`+
		`"Topics":[{"ErrorCode":3,"Name":null,"TopicID":"12345678-9abc-def0-0123-456789abcdef","IsInternal":true,"Partitions":[{"ErrorCode":0,"PartitionIndex":0,"LeaderID":1,"LeaderEpoch":7,"ReplicaNodes":[1,2],"IsrNodes":[1],"OfflineReplicas":[]}],"TopicAuthorizedOperations":-2147483648}]}`)
}

func TestJSONNullableStructsAndUnknownTags(t *testing.T) {
	resp := &messages.ConsumerGroupHeartbeatResponse{ErrorCode: 0, MemberID: str("m-1"), MemberEpoch: 4, HeartbeatIntervalMs: 5000}
	expectJSON(t, resp, 0, `{"ThrottleTimeMs":0,"ErrorCode":0,"ErrorMessage":null,"MemberID":"m-1","MemberEpoch":4,"HeartbeatIntervalMs":5000,"Assignment":null}`)

	resp.Assignment = &messages.ConsumerGroupHeartbeatResponseAssignment{
		TopicPartitions: []messages.ConsumerGroupHeartbeatResponseTopicPartitions{{TopicID: topicID, Partitions: []int32{0, 2}}},
		UnknownTags:     kwire.NewUnknownTags(kwire.TaggedField{Tag: 9, Data: []byte{1, 2, 3}}),
	}
	resp.UnknownTags = kwire.NewUnknownTags(kwire.TaggedField{Tag: 5, Data: []byte("hi")}, kwire.TaggedField{Tag: 7, Data: []byte{}})
	expectJSON(t, resp, 1, `{"ThrottleTimeMs":0,"ErrorCode":0,"ErrorMessage":null,"MemberID":"m-1","MemberEpoch":4,"HeartbeatIntervalMs":5000,`+
		`"Assignment":{"TopicPartitions":[{"TopicID":"12345678-9abc-def0-0123-456789abcdef","Partitions":[0,2]}],"UnknownTags":[{"Tag":9,"Data":"AQID"}]},`+
		`"UnknownTags":[{"Tag":5,"Data":"aGk="},{"Tag":7,"Data":""}]}`)
}

func TestJSONStringsAndNullArrays(t *testing.T) {
	req := &messages.ConsumerGroupHeartbeatRequest{GroupID: "g\"\\\n\x01<é>\u2028", MemberID: "\xff", MemberEpoch: -1,
		RebalanceTimeoutMs: -1, SubscribedTopicNames: []string{"a", "b"}, SubscribedTopicRegex: str("^x.*")}
	expectJSON(t, req, 0, `{"GroupID":"g\"\\\n\u0001<é>\u2028","MemberID":"\ufffd","MemberEpoch":-1,"InstanceID":null,"RackID":null,`+
		`"RebalanceTimeoutMs":-1,"SubscribedTopicNames":["a","b"],"ServerAssignor":null,"TopicPartitions":null}`)
	expectJSON(t, req, 1, `{"GroupID":"g\"\\\n\u0001<é>\u2028","MemberID":"\ufffd","MemberEpoch":-1,"InstanceID":null,"RackID":null,`+
		`"RebalanceTimeoutMs":-1,"SubscribedTopicNames":["a","b"],"SubscribedTopicRegex":"^x.*","ServerAssignor":null,"TopicPartitions":null}`)
	// encoding/json reads our strings back to what they were (bar invalid UTF-8).
	out, _ := pretty.JSON(req, 1)
	var back messages.ConsumerGroupHeartbeatRequest
	if err := json.Unmarshal(out, &back); err != nil || back.GroupID != req.GroupID || *back.SubscribedTopicRegex != "^x.*" {
		t.Fatalf("read back: %v %q", err, back.GroupID)
	}
}

// produceRecords is two batches: two uncompressed records (one with a
// header and a null key, one with a binary value), then one gzip record.
func produceRecords(t testing.TB) (records []byte, crc uint32) {
	t.Helper()
	b1, err := record.Build([]record.Record{
		{Timestamp: 1700000000000, Key: nil, Value: []byte("hello"), Headers: []record.Header{{Key: "trace", Value: []byte("t-1")}, {Key: "n", Value: nil}}},
		{Timestamp: 1700000000005, Key: []byte("k2"), Value: []byte{0xff, 0x00}},
	}, record.WithProducer(42, 1, 7))
	if err != nil {
		t.Fatal(err)
	}
	b2, err := record.Build([]record.Record{{Timestamp: 1700000000009, Key: []byte("k3"), Value: []byte("v3")}},
		record.WithCodec(record.CodecGzip), record.WithBaseOffset(2))
	if err != nil {
		t.Fatal(err)
	}
	return append(b1, b2...), binary.BigEndian.Uint32(b1[17:21])
}

func TestJSONRecordsSummaryAndDetail(t *testing.T) {
	recs, crc := produceRecords(t)
	req := &messages.ProduceRequest{TransactionalID: nil, Acks: -1, TimeoutMs: 30000, TopicData: []messages.ProduceRequestTopicProduceData{
		{Name: "orders", TopicID: topicID, PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: recs}, {Index: 1, Records: nil}}},
	}}
	summary := fmt.Sprintf(`{"Batches":2,"Records":3,"Codec":"none,gzip","Bytes":%d}`, len(recs))
	// v2 has no transactional id; v3 brings it; v13 names topics by id.
	expectJSON(t, req, 2, `{"Acks":-1,"TimeoutMs":30000,"TopicData":[{"Name":"orders","PartitionData":[{"Index":0,"Records":`+summary+`},{"Index":1,"Records":null}]}]}`)
	expectJSON(t, req, 3, `{"TransactionalID":null,"Acks":-1,"TimeoutMs":30000,"TopicData":[{"Name":"orders","PartitionData":[{"Index":0,"Records":`+summary+`},{"Index":1,"Records":null}]}]}`)
	expectJSON(t, req, 13, `{"TransactionalID":null,"Acks":-1,"TimeoutMs":30000,"TopicData":[{"TopicID":"12345678-9abc-def0-0123-456789abcdef","PartitionData":[{"Index":0,"Records":`+summary+`},{"Index":1,"Records":null}]}]}`)

	// Detail: every batch's header and every record.
	single := &messages.ProduceRequestPartitionProduceData{Index: 0, Records: recs}
	got, err := pretty.JSON(single, 9, pretty.WithRecords())
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Records struct {
			Bytes   int
			Batches []json.RawMessage
		}
	}
	if err := json.Unmarshal(got, &parsed); err != nil || len(parsed.Records.Batches) != 2 {
		t.Fatalf("detail: %v, %s", err, got)
	}
	want1 := fmt.Sprintf(`{"BaseOffset":0,"Magic":2,"Codec":"none","TimestampType":"CreateTime","Transactional":false,"Control":false,`+
		`"PartitionLeaderEpoch":-1,"ProducerID":42,"ProducerEpoch":1,"BaseSequence":7,"LastOffsetDelta":1,`+
		`"BaseTimestamp":1700000000000,"MaxTimestamp":1700000000005,"CRC":%d,"NumRecords":2,"Records":[`+
		`{"Offset":0,"Timestamp":1700000000000,"Key":null,"Value":"hello","Headers":[{"Key":"trace","Value":"t-1"},{"Key":"n","Value":null}]},`+
		`{"Offset":1,"Timestamp":1700000000005,"Key":"k2","Value":{"Base64":"/wA="},"Headers":[]}]}`, crc)
	if string(parsed.Records.Batches[0]) != want1 {
		t.Errorf("batch 0:\n got %s\nwant %s", parsed.Records.Batches[0], want1)
	}
	var b2 struct {
		BaseOffset int64
		Codec      string
		Records    []struct {
			Offset     int64
			Key, Value string
		}
	}
	if err := json.Unmarshal(parsed.Records.Batches[1], &b2); err != nil || b2.Codec != "gzip" || b2.BaseOffset != 2 ||
		len(b2.Records) != 1 || b2.Records[0].Offset != 2 || b2.Records[0].Key != "k3" || b2.Records[0].Value != "v3" {
		t.Errorf("batch 1: %v %+v", err, b2)
	}
	if parsed.Records.Bytes != len(recs) {
		t.Errorf("Bytes = %d, want %d", parsed.Records.Bytes, len(recs))
	}
}

// fetchOf is a v4 Fetch response with one partition holding records.
func fetchOf(records []byte) *messages.FetchResponse {
	return &messages.FetchResponse{Responses: []messages.FetchResponseFetchableTopicResponse{
		{Topic: "t", Partitions: []messages.FetchResponsePartitionData{{Records: records}}},
	}}
}

func TestJSONRecordsPartialAndCorrupt(t *testing.T) {
	recs, _ := produceRecords(t)
	// v4 has LastStableOffset but not yet LogStartOffset (v5).
	part := fetchOf(recs[:len(recs)-5]) // the gzip batch cut short, as a broker does
	expectJSON(t, part, 4, fmt.Sprintf(`{"ThrottleTimeMs":0,"Responses":[{"Topic":"t","Partitions":[`+
		`{"PartitionIndex":0,"ErrorCode":0,"HighWatermark":0,"LastStableOffset":0,"AbortedTransactions":null,`+
		`"Records":{"Batches":1,"Records":2,"Codec":"none","Bytes":%d,"Partial":true}}]}]}`, len(recs)-5))

	bad := append([]byte(nil), recs...)
	bad[30] ^= 0xff // inside the first batch: its CRC no longer matches
	type parsed[T any] struct {
		Responses []struct{ Partitions []struct{ Records T } }
	}
	got, err := pretty.JSON(fetchOf(bad), 4)
	if err != nil {
		t.Fatal(err)
	}
	var summary parsed[struct {
		Batches int
		Error   string
	}]
	if err := json.Unmarshal(got, &summary); err != nil || summary.Responses[0].Partitions[0].Records.Batches != 0 ||
		!strings.Contains(summary.Responses[0].Partitions[0].Records.Error, "crc mismatch") {
		t.Errorf("corrupt records: %v %s", err, got)
	}
	got, _ = pretty.JSON(fetchOf(bad), 4, pretty.WithRecords())
	var detail parsed[struct {
		Batches []any
		Error   string
	}]
	if err := json.Unmarshal(got, &detail); err != nil || len(detail.Responses[0].Partitions[0].Records.Batches) != 0 ||
		!strings.Contains(detail.Responses[0].Partitions[0].Records.Error, "crc mismatch") {
		t.Errorf("corrupt detail: %v %s", err, got)
	}
}

func TestJSONErrors(t *testing.T) {
	if _, err := pretty.JSON(42, 0); err == nil {
		t.Error("JSON of an int")
	}
	if _, err := pretty.JSON(&messages.ProduceRequest{}, 99); err == nil {
		t.Error("JSON at a version the message lacks")
	}
	if _, err := pretty.JSON((*messages.ProduceRequest)(nil), 3); err == nil {
		t.Error("JSON of a nil pointer")
	}
}
