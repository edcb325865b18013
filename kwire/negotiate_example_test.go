package kwire_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

var (
	broker = []kwire.APIVersionRange{{APIKey: 3, MinVersion: 0, MaxVersion: 12}, {APIKey: 18, MinVersion: 0, MaxVersion: 3}}
	client = []kwire.APIVersionRange{{APIKey: 3, MinVersion: 4, MaxVersion: 13}, {APIKey: 18, MinVersion: 0, MaxVersion: 4},
		{APIKey: 68, MinVersion: 0, MaxVersion: 1}}
)

func ExampleIntersectVersions() {
	fmt.Println(kwire.IntersectVersions(broker, client))
	// Output:
	// [{3 4 12} {18 0 3}]
}

func ExampleHighestCommonVersion() {
	fmt.Println(kwire.HighestCommonVersion(broker, client, 3))
	fmt.Println(kwire.HighestCommonVersion(broker, client, 68)) // the broker lacks it
	// Output:
	// 12 true
	// 0 false
}

// A broker answers an ApiVersions request newer than it knows with v0
// and UNSUPPORTED_VERSION (35), naming the versions it reads, so the
// client retries with one of them.
func ExampleAppendUnsupportedAPIVersions() {
	frame := kwire.AppendUnsupportedAPIVersions(nil, 7, kwire.APIVersionRange{APIKey: 18, MaxVersion: 3})
	fmt.Printf("% x\n", frame)
	// Output:
	// 00 00 00 10 00 00 00 07 00 23 00 00 00 01 00 12 00 00 00 03
}
