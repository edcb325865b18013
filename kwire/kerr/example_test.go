package kerr_test

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

func Example() {
	resp := &messages.ProduceResponse{Responses: []messages.ProduceResponseTopicProduceResponse{{
		Name: "orders",
		PartitionResponses: []messages.ProduceResponsePartitionProduceResponse{
			{Index: 0},
			{Index: 1, ErrorCode: 6},
		},
	}}}
	found, _ := kerr.Find(resp, 9)
	for _, f := range found {
		fmt.Println(f)
		err := fmt.Errorf("produce to %s: %w", f.Path, f.Code)
		fmt.Println(errors.Is(err, kerr.NotLeaderOrFollower), kerr.IsRetriable(err))
	}
	fmt.Println(kerr.Err(resp.Responses[0].PartitionResponses[0].ErrorCode))
	fmt.Println(kerr.UnknownTopicID.Error())
	// Output:
	// Responses[0].PartitionResponses[1].ErrorCode = NOT_LEADER_OR_FOLLOWER
	// true true
	// <nil>
	// UNKNOWN_TOPIC_ID (100): this broker does not know the topic id
}
