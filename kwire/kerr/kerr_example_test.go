package kerr_test

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire/kerr"
)

// Err turns a response's error code into an error, nil for 0.
func ExampleErr() {
	fmt.Println(kerr.Err(0))
	err := kerr.Err(15)
	fmt.Println(err, errors.Is(err, kerr.CoordinatorNotAvailable), kerr.IsRetriable(err))
	// Output:
	// <nil>
	// COORDINATOR_NOT_AVAILABLE (15): the coordinator is not available true true
}

// A code from a broker newer than the table still works as an error.
func ExampleCode_Known() {
	c := kerr.Code(999)
	fmt.Println(c.Known(), c.Name(), c.Retriable())
	// Output:
	// false UNKNOWN_ERROR_CODE_999 false
}

func ExampleByName() {
	c, ok := kerr.ByName("NOT_COORDINATOR")
	fmt.Println(int16(c), ok, c.Retriable(), c.Description())
	// Output:
	// 16 true true this broker is not the coordinator for the group or transaction; find the coordinator again
}

func ExampleCodes() {
	codes := kerr.Codes()
	fmt.Println(len(codes), codes[0].Name(), codes[len(codes)-1].Name())
	// Output:
	// 138 UNKNOWN_SERVER_ERROR CONTROLLER_ID_NOT_REGISTERED
}

func ExampleIsRetriable() {
	wrapped := fmt.Errorf("fetch: %w", kerr.Err(6))
	fmt.Println(kerr.IsRetriable(wrapped), kerr.IsRetriable(errors.New("other")))
	// Output:
	// true false
}
