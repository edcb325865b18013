package kwire_test

import (
	"fmt"
	"reflect"

	"github.com/kwirelabs/kwire/kwire"
)

func ExampleSchemaOf() {
	s, err := kwire.SchemaOf(&Heartbeat{}, 1)
	if err != nil {
		panic(err)
	}
	for _, f := range s.Fields {
		fmt.Println(f.Name, f.Wire, f.Nullable, f.Compact, f.Tag)
	}
	// Output:
	// GroupID string false true -1
	// MemberEpoch int32 false false -1
	// InstanceID nullable_string true true -1
	// Regex nullable_string true true -1
	// Owned array true true -1
	// Rack string false true 0
}

// MessageInfoOf reads a message's `_ struct{}` tag: its API key, versions
// and flexible versions.
func ExampleMessageInfoOf() {
	info, err := kwire.MessageInfoOf((*Heartbeat)(nil))
	fmt.Println(info.APIKey, info.Versions, info.Flexible, err)
	// Output:
	// 68 0-1 0+ <nil>
}

func ExampleWalk() {
	h := &Heartbeat{GroupID: "g", Owned: []Owned{{Partitions: []int32{1, 2}}, {}}}
	err := kwire.Walk(h, 1, func(path *kwire.Path, f *kwire.Field, v reflect.Value) error {
		fmt.Println(path, f.Wire, path.Depth())
		return nil
	})
	fmt.Println(err)
	// Output:
	// GroupID string 0
	// MemberEpoch int32 0
	// InstanceID nullable_string 0
	// Regex nullable_string 0
	// Owned array 0
	// Owned[0].TopicID uuid 1
	// Owned[0].Partitions array 1
	// Owned[1].TopicID uuid 1
	// Owned[1].Partitions array 1
	// Rack string 0
	// <nil>
}
