package messages_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// NewTracker pairs a connection's responses with its requests for every
// API in the registry.
func ExampleNewTracker() {
	tracker := messages.NewTracker(64)
	req, _ := kwire.AppendRequest(nil, &messages.HeartbeatRequest{GroupID: "g", MemberID: "m"}, 4, 7, nil)
	if _, err := tracker.Request(req); err != nil {
		panic(err)
	}
	resp, _ := kwire.AppendResponse(nil, &messages.HeartbeatResponse{ErrorCode: 27}, 4, 7)
	sent, _, body, err := tracker.ReadResponse(resp)
	fmt.Println(sent.APIKey, sent.APIVersion, body.(*messages.HeartbeatResponse).ErrorCode, err)
	// Output:
	// 12 4 27 <nil>
}

func ExampleVersions() {
	for _, v := range messages.Versions(false) {
		if v.APIKey == 18 {
			fmt.Println(v.MinVersion, v.MaxVersion)
		}
	}
	// Output:
	// 0 5
}

// Clamp cuts a broker's ApiVersions answer to what this package reads,
// so a client behind a proxy never picks a version the proxy cannot
// decode.
func ExampleApiVersionsResponse_Clamp() {
	resp := &messages.ApiVersionsResponse{ApiKeys: []messages.ApiVersionsResponseApiVersion{
		{ApiKey: 12, MinVersion: 0, MaxVersion: 99},  // newer than this package
		{ApiKey: 9999, MinVersion: 0, MaxVersion: 1}, // unknown here
	}}
	fmt.Println(resp.Clamp(nil), resp.Versions())
	// Output:
	// true [{12 0 4}]
}
