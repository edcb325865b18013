package kwire_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

func ExampleAppendRequest() {
	client := "app"
	frame, err := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g"}, 1, 7, &client)
	fmt.Printf("size % x\nheader % x\nbody % x\n%v\n", frame[:4], frame[4:18], frame[18:], err)
	// Output:
	// size 00 00 00 18
	// header 00 44 00 01 00 00 00 07 00 03 61 70 70 00
	// body 02 67 00 00 00 00 00 00 00 00
	// <nil>
}

// A proxy passes a request on with the header it read, tagged fields
// included.
func ExampleAppendRequestWithHeader() {
	client := "app"
	in, err := kwire.AppendRequestWithHeader(nil, kwire.RequestHeader{APIVersion: 1, CorrelationID: 7, ClientID: &client,
		UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 3, Data: []byte{1}})}, &Heartbeat{GroupID: "g"})
	if err != nil {
		panic(err)
	}
	hdr, body, err := kwire.ReadRequest(in, func(int16, int16) (any, error) { return new(Heartbeat), nil })
	if err != nil {
		panic(err)
	}
	out, err := kwire.AppendRequestWithHeader(nil, hdr, body)
	fmt.Println(hdr.Version, hdr.UnknownTags, string(out) == string(in), err)
	// Output:
	// 2 [tag 3: 01] true <nil>
}

func ExampleAppendResponse() {
	frame, err := kwire.AppendResponse(nil, &Heartbeat{GroupID: "g"}, 1, 7)
	fmt.Printf("size % x\nheader % x\nbody % x\n%v\n", frame[:4], frame[4:9], frame[9:], err)
	// Output:
	// size 00 00 00 0f
	// header 00 00 00 07 00
	// body 02 67 00 00 00 00 00 00 00 00
	// <nil>
}

func ExampleAppendResponseWithHeader() {
	h := kwire.ResponseHeader{CorrelationID: 7, UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 0, Data: []byte{9}})}
	frame, err := kwire.AppendResponseWithHeader(nil, h, &Heartbeat{GroupID: "g"}, 1)
	if err != nil {
		panic(err)
	}
	var body Heartbeat
	back, err := kwire.ReadResponse(frame, &body, 1)
	fmt.Println(back.Version, back.CorrelationID, back.UnknownTags, err)
	// Output:
	// 1 7 [tag 0: 09] <nil>
}

func ExampleReadRequest() {
	frame, err := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g", MemberEpoch: 5}, 1, 7, nil)
	if err != nil {
		panic(err)
	}
	// newBody picks the struct from the header's API key and version.
	newBody := func(key, version int16) (any, error) {
		if key != 68 {
			return nil, kwire.ErrUnknownAPI
		}
		return new(Heartbeat), nil
	}
	hdr, body, err := kwire.ReadRequest(frame, newBody)
	fmt.Println(hdr.Version, hdr.APIKey, hdr.APIVersion, hdr.CorrelationID, hdr.ClientID == nil, body.(*Heartbeat).MemberEpoch, err)

	_, _, err = kwire.ReadRequest(frame[:len(frame)-1], newBody) // the size prefix no longer matches
	fmt.Println(err)
	// Output:
	// 2 68 1 7 true 5 <nil>
	// kwire: frame at offset 0: invalid length: size prefix 21, 20 bytes follow
}

func ExampleReadResponse() {
	frame, err := kwire.AppendResponse(nil, &Heartbeat{GroupID: "g"}, 1, 7)
	if err != nil {
		panic(err)
	}
	var h Heartbeat // a response names no API: the caller knows what it asked
	hdr, err := kwire.ReadResponse(frame, &h, 1)
	fmt.Println(hdr.Version, hdr.CorrelationID, h.GroupID, err)
	// Output:
	// 1 7 g <nil>
}

// The first 12 bytes of a request frame say what it is before the body
// has arrived.
func ExamplePeekRequest() {
	frame, err := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g"}, 1, 7, nil)
	if err != nil {
		panic(err)
	}
	key, version, corr, err := kwire.PeekRequest(frame[:12])
	fmt.Println(key, version, corr, err)
	_, _, _, err = kwire.PeekRequest(frame[:10])
	fmt.Println(err)
	// Output:
	// 68 1 7 <nil>
	// kwire: frame RequestHeader.CorrelationID at offset 8: truncated input: need 4 bytes, have 2
}

func ExamplePeekResponse() {
	frame, err := kwire.AppendResponse(nil, &Heartbeat{GroupID: "g"}, 1, 7)
	if err != nil {
		panic(err)
	}
	corr, err := kwire.PeekResponse(frame[:8])
	fmt.Println(corr, err)
	// Output:
	// 7 <nil>
}
