package record_test

import (
	"bytes"
	"fmt"

	"github.com/kwirelabs/kwire/kwire/record"
)

func ExampleCompress() {
	plain := bytes.Repeat([]byte("kafka "), 100)
	packed, err := record.Compress(nil, record.CodecLZ4, plain)
	if err != nil {
		panic(err)
	}
	back, err := record.Decompress(nil, record.CodecLZ4, packed, 1<<20)
	fmt.Println(len(plain), len(packed) < len(plain), bytes.Equal(back, plain), err)
	_, err = record.Decompress(nil, record.CodecLZ4, packed, 100) // more out than the limit allows
	fmt.Println(err)
	// Output:
	// 600 true true <nil>
	// record: decompressed size of lz4 data at byte 0: past a decoding limit
}
