package messages_test

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// EchoRequest and EchoResponse are a program's own API, key 1000.
type EchoRequest struct {
	_           struct{} `kafka:"api=1000,versions=0-1,flexible=1+"`
	Text        string   `kafka:"v=0+"`
	Times       int32    `kafka:"v=1+,varint,default=1"`
	UnknownTags kwire.UnknownTags
}

type EchoResponse struct {
	_           struct{} `kafka:"api=1000,versions=0-1,flexible=1+"`
	Texts       []string `kafka:"v=0+"`
	UnknownTags kwire.UnknownTags
}

// A custom API registered under its key is read by ReadRequest (and so by
// kwire decode and anything else using messages.Default) like Kafka's.
// A program that wants its own table uses a Registry value instead.
func ExampleRegister() {
	api, err := messages.NewAPI("Echo", func() any { return new(EchoRequest) }, func() any { return new(EchoResponse) })
	if err != nil {
		panic(err)
	}
	fmt.Println(api.Key, api.MinVersion, api.MaxVersion, api.FlexibleFrom)

	mine := messages.NewRegistry() // Kafka's APIs; Register adds to this one only
	if err := mine.Register(api); err != nil {
		panic(err)
	}
	frame, err := kwire.AppendRequest(nil, &EchoRequest{Text: "hi", Times: 3}, 1, 7, nil)
	if err != nil {
		panic(err)
	}
	_, body, err := mine.ReadRequest(frame)
	fmt.Println(body.(*EchoRequest).Text, body.(*EchoRequest).Times, err)

	_, _, err = messages.ReadRequest(frame) // the Default registry does not know it yet
	fmt.Println(errors.Is(err, kwire.ErrUnknownAPI))
	if err := messages.Register(api); err != nil { // usually in an init func
		panic(err)
	}
	hdr, body, err := messages.ReadRequest(frame)
	fmt.Println(hdr.APIKey, body.(*EchoRequest).Text, err)
	// Output:
	// 1000 0 1 1
	// hi 3 <nil>
	// true
	// 1000 hi <nil>
}
