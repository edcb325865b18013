package kwire_test

import (
	"fmt"
	"math/rand"

	"github.com/kwirelabs/kwire/kwire"
)

func ExampleFillMinimal() {
	var h Heartbeat
	if err := kwire.FillMinimal(&h, 1); err != nil {
		panic(err)
	}
	fmt.Printf("%q %q %d %v\n", h.GroupID, *h.InstanceID, len(h.Owned), h.Owned[0].Partitions)
	body, _ := kwire.Marshal(&h, 1)
	fmt.Printf("% x\n", body)
	// Output:
	// "" "" 1 [0]
	// 01 00 00 00 00 01 01 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00
}

// A random legal instance at a version, for property tests: it encodes,
// and decodes back to an equal value.
func ExampleFillRandom() {
	r := rand.New(rand.NewSource(1))
	var h Heartbeat
	if err := kwire.FillRandom(r, &h, 1, kwire.RandomOptions{MaxLen: 4}); err != nil {
		panic(err)
	}
	body, err := kwire.Marshal(&h, 1)
	if err != nil {
		panic(err)
	}
	var back Heartbeat
	fmt.Println(kwire.Unmarshal(body, &back, 1))
	again, _ := kwire.Marshal(&back, 1)
	fmt.Println(string(again) == string(body))
	// Output:
	// <nil>
	// true
}

func ExampleEmptyRecordBatch() {
	b := kwire.EmptyRecordBatch()
	fmt.Println(len(b))
	fmt.Printf("% x\n", b[:21])
	// Output:
	// 61
	// 00 00 00 00 00 00 00 00 00 00 00 31 00 00 00 00 02 59 5f b7 dd
}
