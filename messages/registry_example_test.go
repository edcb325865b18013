package messages_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

func ExampleAPIs() {
	apis := messages.APIs()
	fmt.Println(apis[0].Key, apis[0].Name, apis[1].Name)
	// Output:
	// 0 Produce Fetch
}

func ExampleLookup() {
	api, ok := messages.Lookup(68)
	fmt.Println(ok, api.Name, api.MinVersion, api.MaxVersion, api.IsFlexible(0))
	_, ok = messages.Lookup(-1)
	fmt.Println(ok)
	// Output:
	// true ConsumerGroupHeartbeat 0 1 true
	// false
}

// MaxStable is the newest version a client or broker should offer by
// default: MaxVersion, or the one before it when that is unstable.
func ExampleAPI_MaxStable() {
	for _, api := range messages.APIs() {
		if api.LatestVersionUnstable {
			fmt.Println(api.Name, api.MaxVersion, api.MaxStable())
		}
	}
	// Output:
	// InitProducerId 6 5
}

func ExampleAPI_IsFlexible() {
	api, _ := messages.Lookup(3) // Metadata
	fmt.Println(api.FlexibleFrom, api.IsFlexible(8), api.IsFlexible(9))
	// Output:
	// 9 false true
}

// A Registry of its own lets a program add APIs without touching Default.
func ExampleNewRegistry() {
	r := messages.NewRegistry()
	req, err := r.RequestFor(12, 4)
	fmt.Printf("%T %v\n", req, err)
	_, err = r.RequestFor(-1, 0)
	fmt.Println(err)
	// Output:
	// *messages.HeartbeatRequest <nil>
	// kwire: frame: unknown API key: key -1
}

// A tool adds its own APIs to a clone of Default, leaving Default as it was.
func ExampleRegistry_Clone() {
	tool := messages.Default.Clone()
	before := tool.Clone() // a clone does not see what its source registers later
	api, err := messages.NewAPI("Probe", func() any { return new(probeRequest) }, func() any { return new(probeResponse) })
	fmt.Println(err, tool.Register(api))
	_, inTool := tool.Lookup(1002)
	_, inDefault := messages.Lookup(1002)
	_, inBefore := before.Lookup(1002)
	fmt.Println(inTool, inDefault, inBefore, len(tool.APIs()) == len(messages.APIs())+1)
	// Output:
	// <nil> <nil>
	// true false false true
}

type probeRequest struct {
	_           struct{} `kafka:"api=1002,versions=0,flexible=0+"`
	UnknownTags kwire.UnknownTags
}

type probeResponse struct {
	_           struct{} `kafka:"api=1002,versions=0,flexible=0+"`
	UnknownTags kwire.UnknownTags
}
