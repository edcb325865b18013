package kwire_test

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

// A Decoder bounds what one call may allocate: a frame whose lengths are
// all honest can still ask for more than a server wants to spend on it.
func ExampleDecoder() {
	h := &Heartbeat{GroupID: string(make([]byte, 1000))}
	frame, err := kwire.AppendRequest(nil, h, 1, 7, nil)
	if err != nil {
		panic(err)
	}
	newBody := func(int16, int16) (any, error) { return new(Heartbeat), nil }
	_, _, err = kwire.Decoder{MaxAlloc: 512}.ReadRequest(frame, newBody)
	fmt.Println(errors.Is(err, kwire.ErrTooLarge))
	_, _, err = kwire.Decoder{MaxAlloc: 4096}.ReadRequest(frame, newBody)
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}

// An exact decode refuses what Kafka's Java reader takes but encoding
// would not write back: here a varint spelled in two bytes where one
// does (0x82 0x00 is 2, the group id's length plus one).
func ExampleDecoder_Unmarshal() {
	overlong := []byte{0x82, 0x00, 'g', 0, 0, 0, 1, 0, 0, 0}
	var h Heartbeat
	fmt.Println(kwire.Unmarshal(overlong, &h, 0))
	fmt.Println(kwire.Decoder{Exact: true}.Unmarshal(overlong, &h, 0))
	// Output:
	// <nil>
	// kwire: unmarshal kwire_test.Heartbeat.GroupID at offset 0: malformed varint: overlong varint: 2 bytes for 2
}

func ExampleDecoder_ReadRequest() {
	client := "app"
	frame, err := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g"}, 1, 7, &client)
	if err != nil {
		panic(err)
	}
	dec := kwire.Decoder{MaxAlloc: 1 << 20, Exact: true}
	hdr, body, err := dec.ReadRequest(frame, func(key, version int16) (any, error) { return new(Heartbeat), nil })
	fmt.Println(hdr.APIKey, hdr.APIVersion, hdr.CorrelationID, *hdr.ClientID, body.(*Heartbeat).GroupID, err)
	// Output:
	// 68 1 7 app g <nil>
}

func ExampleDecoder_ReadResponse() {
	frame, err := kwire.AppendResponse(nil, &Heartbeat{GroupID: "g"}, 1, 7)
	if err != nil {
		panic(err)
	}
	var h Heartbeat
	hdr, err := kwire.Decoder{Exact: true}.ReadResponse(frame, &h, 1)
	fmt.Println(hdr.Version, hdr.CorrelationID, h.GroupID, err)
	// Output:
	// 1 7 g <nil>
}
