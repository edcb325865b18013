package kwire_test

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

// An *Error says where decoding stopped: the field path and the byte
// offset, with a sentinel for errors.Is.
func ExampleError() {
	h := &Heartbeat{GroupID: "g", Owned: []Owned{{Partitions: []int32{1, 2}}}}
	body, _ := kwire.Marshal(h, 0)
	err := kwire.Unmarshal(body[:len(body)-2], new(Heartbeat), 0)
	var e *kwire.Error
	if errors.As(err, &e) {
		fmt.Println(e.Op, e.Type, e.Path, e.Offset, errors.Is(err, kwire.ErrTruncated))
	}
	fmt.Println(err)
	// Output:
	// unmarshal kwire_test.Heartbeat Owned[0] 33 true
	// kwire: unmarshal kwire_test.Heartbeat.Owned[0] at offset 33: truncated input: need 1 bytes, have 0
}
