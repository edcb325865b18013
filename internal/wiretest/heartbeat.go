package wiretest

import "github.com/kwirelabs/kwire/kwire"

// Heartbeat has the shape of ConsumerGroupHeartbeatRequest v1.
type Heartbeat struct {
	_                    struct{}         `kafka:"api=68,versions=0-1,flexible=0+"`
	GroupID              string           `kafka:"v=0+"`
	MemberID             string           `kafka:"v=0+"`
	MemberEpoch          int32            `kafka:"v=0+"`
	InstanceID           *string          `kafka:"v=0+,nullable=0+,default=null"`
	RackID               *string          `kafka:"v=0+,nullable=0+,default=null"`
	RebalanceTimeoutMs   int32            `kafka:"v=0+,default=-1"`
	SubscribedTopicNames []string         `kafka:"v=0+,nullable=0+,default=null"`
	SubscribedTopicRegex *string          `kafka:"v=1+,nullable=1+,default=null"`
	ServerAssignor       *string          `kafka:"v=0+,nullable=0+,default=null"`
	TopicPartitions      []HeartbeatTopic `kafka:"v=0+,nullable=0+,default=null"`
	UnknownTags          kwire.UnknownTags
}

type HeartbeatTopic struct {
	TopicID     kwire.UUID `kafka:"v=0+"`
	Partitions  []int32    `kafka:"v=0+"`
	UnknownTags kwire.UnknownTags
}

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
