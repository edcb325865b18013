package kwiretest_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire/kwiretest"
)

// Check runs the codec's properties on one value; a value the version
// cannot hold is an error naming the field.
func ExampleCheck() {
	fmt.Println(kwiretest.Check(&Greeting{Names: []string{"ann"}}, 2))
	fmt.Println(kwiretest.Check(&Greeting{Mood: "sunny"}, 0))
	// Output:
	// <nil>
	// marshal: kwire: marshal kwiretest_test.Greeting.Mood: non-default value in a field this version lacks: version 0 does not have it
}
