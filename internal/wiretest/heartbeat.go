package wiretest

import (
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Heartbeat is ConsumerGroupHeartbeatRequest (v0-1: flexible, with
// nullable strings, an array of strings and one of structs holding a
// UUID), under a short name for the engine's and kwire's tests.
type Heartbeat = messages.ConsumerGroupHeartbeatRequest

// HeartbeatTopic is an element of Heartbeat.TopicPartitions.
type HeartbeatTopic = messages.ConsumerGroupHeartbeatRequestTopicPartitions

// NewHeartbeat is a Heartbeat of three topics of four partitions.
func NewHeartbeat() *Heartbeat {
	h := &Heartbeat{
		GroupID:              "payments-consumers",
		MemberID:             "aB3dE5fG7hI9jK1lM3nO5p",
		MemberEpoch:          12,
		RebalanceTimeoutMs:   45000,
		SubscribedTopicNames: []string{"orders", "payments", "refunds"},
	}
	for i := 0; i < 3; i++ {
		h.TopicPartitions = append(h.TopicPartitions, HeartbeatTopic{TopicID: kwire.UUID{byte(i + 1)}, Partitions: []int32{0, 1, 2, 3}})
	}
	return h
}
