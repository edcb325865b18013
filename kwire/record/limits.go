package record

import "math"

// Limits on what one batch may make the reader hold. A record is at least 7
// bytes on the wire and a header at least 2, but a Record is 96 bytes in
// memory and a Header 40, and compression lets a few KiB stand for 64 MiB
// of such minimal structures. The limits refuse a batch before it can make
// Records allocate more than a real batch would.
const (
	// DefaultMaxRecords is the per-batch record limit when the Reader sets
	// none. A broker with the default message.max.bytes (1 MiB) holds at
	// most about 150,000 uncompressed records in a batch, and librdkafka
	// caps batch.num.messages at 1,000,000; 1 Mi leaves room for batches
	// of tiny records that compress well. Materialised, 1 Mi records take
	// 96 MiB.
	DefaultMaxRecords = 1 << 20
	// DefaultMaxHeaders is the per-batch limit on headers, all records
	// together, when the Reader sets none: four per record of a batch at
	// DefaultMaxRecords (160 MiB materialised). Tracing and routing
	// headers come in ones and twos; segmentio/kafka-go refuses more than
	// 1,024 on one record.
	DefaultMaxHeaders = 4 << 20
)

// limits are a Reader's limits with the defaults filled in, and where its
// batches' buffers come from.
type limits struct {
	decompressed, records, headers int
	budget                         *Budget
	pool                           BufferPool
	lz4Ratio                       *int64 // the Reader's guess at its next LZ4 batch
}

func (r *Reader) limits() *limits {
	r.lim = limits{
		decompressed: min(orDefault(r.MaxDecompressedSize, DefaultMaxDecompressedSize), noLimit),
		records:      orDefault(r.MaxRecords, DefaultMaxRecords),
		headers:      orDefault(r.MaxHeaders, DefaultMaxHeaders),
		budget:       r.Budget,
		pool:         r.Buffers,
		lz4Ratio:     &r.lz4Ratio,
	}
	return &r.lim
}

// orDefault reads a limit field: <= 0 means the default; math.MaxInt, no
// limit, is taken as it is.
func orDefault(limit, def int) int {
	if limit <= 0 {
		return def
	}
	return limit
}

// noLimit is the largest limit the decompressors take: limit+1 must not
// overflow.
const noLimit = math.MaxInt - 1
