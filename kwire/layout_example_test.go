package kwire_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

func ExampleLayoutRequest() {
	client := "app"
	frame, tree, err := kwire.LayoutRequest(&Heartbeat{GroupID: "g"}, 0, 7, &client)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(frame))
	fmt.Print(tree.Format())
	// Output:
	// 27
	// Heartbeat message v0 [0x0000, 27B]
	// +-- Frame size-delimited [0x0000, 4B]
	// |   +-- size int32 = 23 [0x0000, 4B]
	// +-- RequestHeader v2 [0x0004, 14B]
	// |   +-- request_api_key int16 = 68 [0x0004, 2B]
	// |   +-- request_api_version int16 = 0 [0x0006, 2B]
	// |   +-- correlation_id int32 = 7 [0x0008, 4B]
	// |   +-- client_id nullable_string = "app" (int16 len=3) [0x000c, 5B]
	// |   +-- tagged_fields uvarint = 0 [0x0011, 1B]
	// +-- Heartbeat struct v0 [0x0012, 9B]
	//     +-- GroupID string = "g" (compact, len+1=2) [0x0012, 2B]
	//     +-- MemberEpoch int32 = 0 [0x0014, 4B]
	//     +-- InstanceID nullable_string = null [0x0018, 1B]
	//     +-- Owned []Owned = null [0x0019, 1B]
	//     |   +-- length uvarint = 0 (compact, n+1) [0x0019, 1B]
	//     +-- tagged_fields uvarint = 0 [0x001a, 1B]
}

func ExampleLayoutResponse() {
	_, tree, err := kwire.LayoutResponse(&Heartbeat{GroupID: "g", Owned: []Owned{{Partitions: []int32{0}}}}, 0, 7)
	if err != nil {
		panic(err)
	}
	body := tree.Children[2]
	for _, n := range body.Children {
		fmt.Println(n.Name, n.Type, n.Value, n.Offset, n.Size)
	}
	// Output:
	// GroupID string "g" (compact, len+1=2) 9 2
	// MemberEpoch int32 0 11 4
	// InstanceID nullable_string null 15 1
	// Owned []Owned 1 element 16 23
	// tagged_fields uvarint 0 39 1
}

// A trace of bytes someone else wrote stops where decoding would, with
// the same error.
func ExampleTraceRequest() {
	frame, _ := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g"}, 0, 7, nil)
	frame[len(frame)-1] = 5 // the body's tagged-field count: 5 fields that are not there
	newBody := func(int16, int16) (any, error) { return new(Heartbeat), nil }
	_, err := kwire.TraceRequest(frame, newBody)
	fmt.Println(err)
	_, _, err = kwire.ReadRequest(frame, newBody)
	fmt.Println(err)
	// Output:
	// kwire: layout kwire_test.Heartbeat at offset 23: invalid length: 5 tagged fields in 0 bytes
	// kwire: unmarshal kwire_test.Heartbeat at offset 23: invalid length: 5 tagged fields in 0 bytes
}

func ExampleTraceResponse() {
	frame, _ := kwire.AppendResponse(nil, &Heartbeat{GroupID: "g"}, 1, 7)
	tree, err := kwire.TraceResponse(frame, new(Heartbeat), 1)
	if err != nil {
		panic(err)
	}
	fmt.Print(tree.Children[1].Format())
	// Output:
	// ResponseHeader v1 [0x0004, 5B]
	// +-- correlation_id int32 = 7 [0x0004, 4B]
	// +-- tagged_fields uvarint = 0 [0x0008, 1B]
}

func ExampleLayoutNode_Format() {
	tree := &kwire.LayoutNode{Name: "Example", Type: "message v0", Size: 6, Children: []*kwire.LayoutNode{
		{Name: "A", Type: "int16", Value: "1", Size: 2},
		{Name: "B", Type: "int32", Value: "2", Offset: 2, Size: 4},
	}}
	fmt.Print(tree.Format())
	// Output:
	// Example message v0 [0x0000, 6B]
	// +-- A int16 = 1 [0x0000, 2B]
	// +-- B int32 = 2 [0x0002, 4B]
}
