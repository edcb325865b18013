package record_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire/record"
)

func ExampleMakeAttributes() {
	a := record.MakeAttributes(record.CodecZstd, record.LogAppendTime, true, false, false)
	fmt.Println(int16(a), a.Codec(), a.TimestampType() == record.LogAppendTime, a.Transactional(), a.Control())
	// Output:
	// 28 zstd true true false
}
