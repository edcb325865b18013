package kwire_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

func ExampleRequestHeaderVersion() {
	fmt.Println(kwire.RequestHeaderVersion(3, 12, true)) // Metadata v12: flexible
	fmt.Println(kwire.RequestHeaderVersion(3, 8, false)) // Metadata v8
	fmt.Println(kwire.RequestHeaderVersion(7, 0, false)) // ControlledShutdown v0: no client id
	// Output:
	// 2
	// 1
	// 0
}

func ExampleResponseHeaderVersion() {
	fmt.Println(kwire.ResponseHeaderVersion(3, true))  // Metadata, flexible
	fmt.Println(kwire.ResponseHeaderVersion(18, true)) // ApiVersions: always 0
	// Output:
	// 1
	// 0
}
