package kwire_test

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

func ExampleMarshal() {
	body, err := kwire.Marshal(&Heartbeat{GroupID: "g", MemberEpoch: 1}, 0)
	fmt.Printf("% x %v\n", body, err)
	// Output:
	// 02 67 00 00 00 01 00 00 00 <nil>
}

// Append reuses the buffer it is given: a loop that encodes into the
// same buffer allocates nothing once it has grown.
func ExampleAppend() {
	buf := make([]byte, 0, 64)
	for epoch := int32(1); epoch <= 2; epoch++ {
		var err error
		buf, err = kwire.Append(buf[:0], &Heartbeat{GroupID: "g", MemberEpoch: epoch}, 0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("% x\n", buf)
	}
	// Output:
	// 02 67 00 00 00 01 00 00 00
	// 02 67 00 00 00 02 00 00 00
}

func ExampleSize() {
	h := &Heartbeat{GroupID: "payments", Rack: "r1"}
	for v := int16(0); v <= 1; v++ {
		n, err := kwire.Size(&Heartbeat{GroupID: "payments"}, v)
		fmt.Println(v, n, err)
	}
	_, err := kwire.Size(h, 0) // Rack is tagged from v1: v0 cannot hold it
	fmt.Println(errors.Is(err, kwire.ErrFieldNotInVersion))
	// Output:
	// 0 16 <nil>
	// 1 17 <nil>
	// true
}

func ExampleUnmarshal() {
	var h Heartbeat
	err := kwire.Unmarshal([]byte{0x02, 'g', 0, 0, 0, 1, 0, 0, 0}, &h, 0)
	fmt.Printf("%q %d %v %v\n", h.GroupID, h.MemberEpoch, h.InstanceID, err)

	// The same bytes with one byte too many, and cut short.
	err = kwire.Unmarshal([]byte{0x02, 'g', 0, 0, 0, 1, 0, 0, 0, 9}, &h, 0)
	fmt.Println(err)
	err = kwire.Unmarshal([]byte{0x02, 'g', 0, 0}, &h, 0)
	fmt.Println(err)
	// Output:
	// "g" 1 <nil> <nil>
	// kwire: unmarshal kwire_test.Heartbeat at offset 9: trailing bytes after message: 1 bytes
	// kwire: unmarshal kwire_test.Heartbeat.MemberEpoch at offset 2: truncated input: need 4 bytes, have 2
}
