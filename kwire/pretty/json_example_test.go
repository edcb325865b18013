package pretty_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// JSON writes only the fields the version has: Heartbeat v0 has no
// GroupInstanceID.
func ExampleJSON() {
	req := &messages.HeartbeatRequest{GroupID: "g", GenerationID: 3, MemberID: "m"}
	v0, _ := pretty.JSON(req, 0)
	v3, _ := pretty.JSON(req, 3)
	fmt.Println(string(v0))
	fmt.Println(string(v3))
	// Output:
	// {"GroupID":"g","GenerationID":3,"MemberID":"m"}
	// {"GroupID":"g","GenerationID":3,"MemberID":"m","GroupInstanceID":null}
}

// WithRecords writes each record of a records field, not a count.
func ExampleWithRecords() {
	records, _ := record.Build([]record.Record{{Key: []byte("k"), Value: []byte("v"), Timestamp: 1700000000000}})
	part := &messages.FetchResponse{Responses: []messages.FetchResponseFetchableTopicResponse{{
		Topic: "orders", Partitions: []messages.FetchResponsePartitionData{{Records: records}},
	}}}
	body, err := pretty.JSON(part, 4, pretty.WithRecords())
	fmt.Println(string(body), err)
	// Output:
	// {"ThrottleTimeMs":0,"Responses":[{"Topic":"orders","Partitions":[{"PartitionIndex":0,"ErrorCode":0,"HighWatermark":0,"LastStableOffset":0,"AbortedTransactions":null,"Records":{"Bytes":70,"Batches":[{"BaseOffset":0,"Magic":2,"Codec":"none","TimestampType":"CreateTime","Transactional":false,"Control":false,"PartitionLeaderEpoch":-1,"ProducerID":-1,"ProducerEpoch":-1,"BaseSequence":-1,"LastOffsetDelta":0,"BaseTimestamp":1700000000000,"MaxTimestamp":1700000000000,"CRC":3919285720,"NumRecords":1,"Records":[{"Offset":0,"Timestamp":1700000000000,"Key":"k","Value":"v","Headers":[]}]}]}}]}]} <nil>
}

// AppendJSON writes into a buffer the caller keeps.
func ExampleAppendJSON() {
	buf := []byte("request: ")
	buf, err := pretty.AppendJSON(buf, &messages.HeartbeatRequest{GroupID: "g"}, 0)
	fmt.Println(string(buf), err)
	// Output:
	// request: {"GroupID":"g","GenerationID":0,"MemberID":""} <nil>
}
