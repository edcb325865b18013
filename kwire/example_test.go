package kwire_test

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

// Heartbeat is a user's own message: the README's example.
type Heartbeat struct {
	_           struct{} `kafka:"api=68,versions=0-1,flexible=0+"`
	GroupID     string   `kafka:"v=0+"`
	MemberEpoch int32    `kafka:"v=0+"`
	InstanceID  *string  `kafka:"v=0+,nullable=0+,default=null"`
	Regex       *string  `kafka:"v=1+,nullable=1+,default=null"`
	Owned       []Owned  `kafka:"v=0+,nullable=0+,compact"`
	Rack        string   `kafka:"v=1+,tag=0,tagged=1+"`
	UnknownTags kwire.UnknownTags
}

type Owned struct {
	TopicID     kwire.UUID `kafka:"v=0+"`
	Partitions  []int32    `kafka:"v=0+"`
	UnknownTags kwire.UnknownTags
}

func Example() {
	h := &Heartbeat{GroupID: "payments", MemberEpoch: 3, Rack: "r1"}

	body, err := kwire.Marshal(h, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("body % x\n", body)

	var back Heartbeat
	if err := kwire.Unmarshal(body, &back, 1); err != nil {
		panic(err)
	}
	fmt.Println(back.GroupID, back.MemberEpoch, back.Rack, back.InstanceID == nil)

	client := "my-app"
	frame, err := kwire.AppendRequest(nil, h, 1, 42, &client)
	if err != nil {
		panic(err)
	}
	hdr, msg, err := kwire.ReadRequest(frame, func(key, v int16) (any, error) { return new(Heartbeat), nil })
	if err != nil {
		panic(err)
	}
	fmt.Println(len(frame), hdr.APIKey, hdr.APIVersion, hdr.CorrelationID, *hdr.ClientID, msg.(*Heartbeat).GroupID)

	// Version 0 has no Rack: a value there is an error, not silently lost.
	_, err = kwire.Marshal(h, 0)
	fmt.Println(err)
	// Output:
	// body 09 70 61 79 6d 65 6e 74 73 00 00 00 03 00 00 00 01 00 03 03 72 31
	// payments 3 r1 true
	// 43 68 1 42 my-app payments
	// kwire: marshal kwire_test.Heartbeat.Rack: non-default value in a field this version lacks: version 0 does not have it
}

// A tag mistake is found at the first use of the type, whatever version is
// used: here the string is declared nullable, which only *string can be.
func ExampleValidate() {
	type Join struct {
		_        struct{} `kafka:"api=1000,versions=0-2,flexible=2+"`
		GroupID  string   `kafka:"v=0+"`
		Instance string   `kafka:"v=1+,nullable=1+"`
	}
	fmt.Println(kwire.Validate(&Join{}))

	_, err := kwire.Marshal(&Join{GroupID: "g"}, 0) // version 0 lacks the field: still an error
	fmt.Println(errors.Is(err, kwire.ErrInvalidSpec))

	fmt.Println(kwire.Validate(&Heartbeat{}))
	// Output:
	// kwire: plan kwire_test.Join.Instance: invalid kafka struct tag: key "nullable" at version 1: type string cannot be null (null needs *string, []byte, a slice or a pointer to a struct)
	// true
	// <nil>
}
