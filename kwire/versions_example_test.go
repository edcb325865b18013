package kwire_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

func ExampleParseVersionRange() {
	for _, s := range []string{"0+", "3-5", "7", "none", "5-3"} {
		r, err := kwire.ParseVersionRange(s)
		fmt.Println(r, r.Contains(4), r.Empty(), err)
	}
	// Output:
	// 0+ true false <nil>
	// 3-5 true false <nil>
	// 7 false false <nil>
	// none false true <nil>
	// none false true version range "5-3" is backwards
}
