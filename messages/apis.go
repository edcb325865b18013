package messages

var apis = []API{
	{Key: 68, Name: "ConsumerGroupHeartbeat", MinVersion: 0, MaxVersion: 1, FlexibleFrom: 0,
		NewRequest:  func() any { return new(ConsumerGroupHeartbeatRequest) },
		NewResponse: func() any { return new(ConsumerGroupHeartbeatResponse) }},
}
