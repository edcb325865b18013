package pretty_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

// Summary is one line for a log: the message, its version, its scalar
// fields, how many elements each array holds, and non-zero error codes.
func ExampleSummary() {
	resp := &messages.HeartbeatResponse{ThrottleTimeMs: 5, ErrorCode: 27}
	fmt.Println(pretty.Summary(resp, 4))
	// Output:
	// HeartbeatResponse v4 ThrottleTimeMs=5 errors=ErrorCode=REBALANCE_IN_PROGRESS
}
