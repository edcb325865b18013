package kerr_test

import (
	"slices"
	"testing"

	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

func paths(t *testing.T, msg any, version int16) []string {
	t.Helper()
	found, err := kerr.Find(msg, version)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range found {
		out = append(out, f.String())
	}
	return out
}

func check(t *testing.T, msg any, version int16, want ...string) {
	t.Helper()
	if got := paths(t, msg, version); !slices.Equal(got, want) {
		t.Errorf("v%d:\n got %q\nwant %q", version, got, want)
	}
}

func TestFindFetchResponse(t *testing.T) {
	resp := &messages.FetchResponse{
		ErrorCode: int16(kerr.FetchSessionIDNotFound),
		Responses: []messages.FetchResponseFetchableTopicResponse{
			{Topic: "a", Partitions: []messages.FetchResponsePartitionData{{PartitionIndex: 0}, {PartitionIndex: 1}}},
			{Topic: "b", Partitions: []messages.FetchResponsePartitionData{
				{PartitionIndex: 0},
				{PartitionIndex: 1, ErrorCode: int16(kerr.NotLeaderOrFollower)},
				{PartitionIndex: 2, ErrorCode: int16(kerr.OffsetOutOfRange)},
			}},
		},
	}
	// The top-level ErrorCode is on the wire from v7 on: before, it is not
	// part of the message and must not be reported.
	check(t, resp, 4,
		"Responses[1].Partitions[1].ErrorCode = NOT_LEADER_OR_FOLLOWER",
		"Responses[1].Partitions[2].ErrorCode = OFFSET_OUT_OF_RANGE")
	check(t, resp, 16,
		"ErrorCode = FETCH_SESSION_ID_NOT_FOUND",
		"Responses[1].Partitions[1].ErrorCode = NOT_LEADER_OR_FOLLOWER",
		"Responses[1].Partitions[2].ErrorCode = OFFSET_OUT_OF_RANGE")
}

func TestFindProduceResponse(t *testing.T) {
	resp := &messages.ProduceResponse{Responses: []messages.ProduceResponseTopicProduceResponse{
		{Name: "t", PartitionResponses: []messages.ProduceResponsePartitionProduceResponse{
			{Index: 0},
			{Index: 1},
			{Index: 2, ErrorCode: int16(kerr.NotEnoughReplicas)},
		}},
		{Name: "u", PartitionResponses: []messages.ProduceResponsePartitionProduceResponse{
			{Index: 0, ErrorCode: int16(kerr.MessageTooLarge)},
		}},
	}}
	want := []string{
		"Responses[0].PartitionResponses[2].ErrorCode = NOT_ENOUGH_REPLICAS",
		"Responses[1].PartitionResponses[0].ErrorCode = MESSAGE_TOO_LARGE",
	}
	for _, v := range []int16{3, 9} {
		check(t, resp, v, want...)
	}
}

func TestFindMetadataResponse(t *testing.T) {
	name := "orders"
	resp := &messages.MetadataResponse{
		ErrorCode: int16(kerr.RebootstrapRequired),
		Topics: []messages.MetadataResponseTopic{
			{Name: &name, ErrorCode: int16(kerr.LeaderNotAvailable), Partitions: []messages.MetadataResponsePartition{
				{PartitionIndex: 0},
				{PartitionIndex: 1, ErrorCode: int16(kerr.ReplicaNotAvailable)},
			}},
			{ErrorCode: int16(kerr.UnknownTopicID)},
		},
	}
	check(t, resp, 12,
		"Topics[0].ErrorCode = LEADER_NOT_AVAILABLE",
		"Topics[0].Partitions[1].ErrorCode = REPLICA_NOT_AVAILABLE",
		"Topics[1].ErrorCode = UNKNOWN_TOPIC_ID")
	check(t, resp, 13,
		"Topics[0].ErrorCode = LEADER_NOT_AVAILABLE",
		"Topics[0].Partitions[1].ErrorCode = REPLICA_NOT_AVAILABLE",
		"Topics[1].ErrorCode = UNKNOWN_TOPIC_ID",
		"ErrorCode = REBOOTSTRAP_REQUIRED")
}

// Other int16 fields that hold error codes, and fields of nested structs.
func TestFindOtherErrorFields(t *testing.T) {
	resp := &messages.LeaderAndIsrResponse{
		ErrorCode: int16(kerr.StaleControllerEpoch),
		PartitionErrors: []messages.LeaderAndIsrResponsePartitionError{
			{TopicName: "t", PartitionIndex: 3, ErrorCode: int16(kerr.KafkaStorageError)},
		},
	}
	check(t, resp, 1,
		"ErrorCode = STALE_CONTROLLER_EPOCH",
		"PartitionErrors[0].ErrorCode = KAFKA_STORAGE_ERROR")

	// A tagged error field, present from v5: after the fixed fields.
	topics := &messages.CreateTopicsResponse{Topics: []messages.CreateTopicsResponseCreatableTopicResult{
		{Name: "t", ErrorCode: int16(kerr.PolicyViolation), TopicConfigErrorCode: int16(kerr.TopicAuthorizationFailed)},
	}}
	check(t, topics, 4, "Topics[0].ErrorCode = POLICY_VIOLATION")
	check(t, topics, 5, "Topics[0].ErrorCode = POLICY_VIOLATION", "Topics[0].TopicConfigErrorCode = TOPIC_AUTHORIZATION_FAILED")

	clean := messages.NewFetchResponse()
	check(t, clean, 12)
}

func TestFindNotAMessage(t *testing.T) {
	if _, err := kerr.Find(42, 0); err == nil {
		t.Fatal("Find accepted an int")
	}
	if _, err := kerr.Find(&messages.FetchResponse{}, 99); err == nil {
		t.Fatal("Find accepted a version the message lacks")
	}
}
