package messages_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// ReadRequest decodes a request frame of any API into its struct.
func ExampleReadRequest() {
	client := "app"
	frame, err := kwire.AppendRequest(nil, &messages.HeartbeatRequest{GroupID: "g", GenerationID: 3, MemberID: "m"}, 4, 7, &client)
	if err != nil {
		panic(err)
	}
	hdr, body, err := messages.ReadRequest(frame)
	if err != nil {
		panic(err)
	}
	req := body.(*messages.HeartbeatRequest)
	fmt.Println(hdr.APIKey, hdr.APIVersion, hdr.CorrelationID, *hdr.ClientID, req.GroupID, req.GenerationID, req.GroupInstanceID)
	// Output:
	// 12 4 7 app g 3 <nil>
}

// A response frame names no API: the caller says which it answers.
func ExampleReadResponse() {
	frame, err := kwire.AppendResponse(nil, &messages.HeartbeatResponse{ErrorCode: 27}, 4, 7)
	if err != nil {
		panic(err)
	}
	hdr, body, err := messages.ReadResponse(frame, 12, 4)
	fmt.Println(hdr.CorrelationID, body.(*messages.HeartbeatResponse).ErrorCode, err)
	// Output:
	// 7 27 <nil>
}

func ExampleTraceRequest() {
	frame, err := kwire.AppendRequest(nil, &messages.HeartbeatRequest{GroupID: "g", MemberID: "m"}, 0, 7, nil)
	if err != nil {
		panic(err)
	}
	tree, err := messages.TraceRequest(frame)
	if err != nil {
		panic(err)
	}
	fmt.Print(tree.Children[2].Format())
	// Output:
	// HeartbeatRequest struct v0 [0x000e, 10B]
	// +-- GroupID string = "g" (int16 len=1) [0x000e, 3B]
	// +-- GenerationID int32 = 0 [0x0011, 4B]
	// +-- MemberID string = "m" (int16 len=1) [0x0015, 3B]
}
