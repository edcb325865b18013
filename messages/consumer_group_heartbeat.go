package messages

import "github.com/kwirelabs/kwire/kwire"

// ConsumerGroupHeartbeatRequest is API key 68, versions 0-1, flexible from 0.
type ConsumerGroupHeartbeatRequest struct {
	_                    struct{}                                       `kafka:"api=68,versions=0-1,flexible=0+"`
	GroupID              string                                         `kafka:"v=0+"`
	MemberID             string                                         `kafka:"v=0+"`
	MemberEpoch          int32                                          `kafka:"v=0+"`
	InstanceID           *string                                        `kafka:"v=0+,nullable=0+,default=null"`
	RackID               *string                                        `kafka:"v=0+,nullable=0+,default=null"`
	RebalanceTimeoutMs   int32                                          `kafka:"v=0+,default=-1"`
	SubscribedTopicNames []string                                       `kafka:"v=0+,nullable=0+,default=null"`
	SubscribedTopicRegex *string                                        `kafka:"v=1+,nullable=1+,default=null"`
	ServerAssignor       *string                                        `kafka:"v=0+,nullable=0+,default=null"`
	TopicPartitions      []ConsumerGroupHeartbeatRequestTopicPartitions `kafka:"v=0+,nullable=0+,default=null"`
	UnknownTags          kwire.UnknownTags
}

// ConsumerGroupHeartbeatRequestTopicPartitions is an element of
// ConsumerGroupHeartbeatRequest.TopicPartitions.
type ConsumerGroupHeartbeatRequestTopicPartitions struct {
	TopicID     kwire.UUID `kafka:"v=0+"`
	Partitions  []int32    `kafka:"v=0+"`
	UnknownTags kwire.UnknownTags
}

// ConsumerGroupHeartbeatResponse is API key 68, versions 0-1, flexible from 0.
type ConsumerGroupHeartbeatResponse struct {
	_                   struct{}                                  `kafka:"api=68,versions=0-1,flexible=0+"`
	ThrottleTimeMs      int32                                     `kafka:"v=0+"`
	ErrorCode           int16                                     `kafka:"v=0+"`
	ErrorMessage        *string                                   `kafka:"v=0+,nullable=0+,default=null"`
	MemberID            *string                                   `kafka:"v=0+,nullable=0+,default=null"`
	MemberEpoch         int32                                     `kafka:"v=0+"`
	HeartbeatIntervalMs int32                                     `kafka:"v=0+"`
	Assignment          *ConsumerGroupHeartbeatResponseAssignment `kafka:"v=0+,nullable=0+,default=null"`
	UnknownTags         kwire.UnknownTags
}

// ConsumerGroupHeartbeatResponseAssignment is the type of
// ConsumerGroupHeartbeatResponse.Assignment.
type ConsumerGroupHeartbeatResponseAssignment struct {
	TopicPartitions []ConsumerGroupHeartbeatResponseTopicPartitions `kafka:"v=0+"`
	UnknownTags     kwire.UnknownTags
}

// ConsumerGroupHeartbeatResponseTopicPartitions is a common struct of
// ConsumerGroupHeartbeatResponse.
type ConsumerGroupHeartbeatResponseTopicPartitions struct {
	TopicID     kwire.UUID `kafka:"v=0+"`
	Partitions  []int32    `kafka:"v=0+"`
	UnknownTags kwire.UnknownTags
}
