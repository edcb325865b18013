package kwire_test

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

// A tracker pairs each response with the request it answers, which is
// how a response frame, naming only a correlation id, gets decoded.
func ExampleNewTracker() {
	tracker := kwire.NewTracker(16, func(key, version int16) (any, error) { return new(Heartbeat), nil })
	req, _ := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g"}, 1, 7, nil)
	expect, err := tracker.Request(req)
	fmt.Println(expect, err, tracker.InFlight())

	resp, _ := kwire.AppendResponse(nil, &Heartbeat{GroupID: "answer"}, 1, 7)
	sent, hdr, body, err := tracker.ReadResponse(resp)
	fmt.Println(sent.APIKey, sent.APIVersion, hdr.CorrelationID, body.(*Heartbeat).GroupID, err, tracker.InFlight())
	// Output:
	// true <nil> 1
	// 68 1 7 answer <nil> 0
}

// Kafka answers a connection's requests in order; a response to a later
// request is paired all the same, and says so.
func ExampleTracker_Response() {
	tracker := kwire.NewTracker(16, func(key, version int16) (any, error) { return new(Heartbeat), nil })
	for corr := int32(1); corr <= 2; corr++ {
		req, _ := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g"}, 1, corr, nil)
		if _, err := tracker.Request(req); err != nil {
			panic(err)
		}
	}
	resp, _ := kwire.AppendResponse(nil, &Heartbeat{}, 1, 2)
	sent, err := tracker.Response(resp)
	fmt.Println(sent.CorrelationID, errors.Is(err, kwire.ErrOutOfOrder), tracker.InFlight())
	_, err = tracker.Response(resp) // answered already
	fmt.Println(errors.Is(err, kwire.ErrUnknownCorrelation))
	// Output:
	// 2 true 1
	// true
}

// What a caller keeps with a request comes back with its response, in
// the order the connection's requests were sent.
func ExampleTracker_RequestWith() {
	tracker := kwire.NewTracker(16, func(key, version int16) (any, error) { return new(Heartbeat), nil })
	for corr, note := range []string{"first", "second"} {
		req, _ := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g"}, 1, int32(corr), nil)
		if _, err := tracker.RequestWith(req, note); err != nil {
			panic(err)
		}
	}
	for corr := range int32(2) {
		resp, _ := kwire.AppendResponse(nil, &Heartbeat{}, 1, corr)
		sent, err := tracker.Response(resp)
		fmt.Println(sent.CorrelationID, sent.Data, err)
	}
	// Output:
	// 0 first <nil>
	// 1 second <nil>
}
