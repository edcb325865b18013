package kwire_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

// ParseUUID reads the hex form and the base64 form Kafka's tools print.
func ExampleParseUUID() {
	u, err := kwire.ParseUUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	fmt.Println(u, u.Base64(), err)
	same, err := kwire.ParseUUID(u.Base64())
	fmt.Println(same == u, err)
	// Output:
	// 6ba7b810-9dad-11d1-80b4-00c04fd430c8 a6e4EJ2tEdGAtADAT9QwyA <nil>
	// true <nil>
}
