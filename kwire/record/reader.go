package record

import (
	"io"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// Reader reads the entries of a record set — the Records field of a Fetch
// response partition or of a Produce request — one Batch at a time. Entries
// may mix magic values. A broker cuts the last entry short when it reaches
// the fetch size limit; the Reader stops before such a tail and reports it
// through Partial instead of failing.
//
// Batches alias data: keep data alive and unchanged while they are in use.
type Reader struct {
	// MaxDecompressedSize limits the decompressed size of one batch (or
	// legacy wrapper); <= 0 means DefaultMaxDecompressedSize and
	// math.MaxInt no limit.
	MaxDecompressedSize int
	// MaxRecords limits the records of one batch (the inner messages of a
	// legacy wrapper); <= 0 means DefaultMaxRecords. Next refuses a batch
	// that claims more before decompressing it.
	MaxRecords int
	// MaxHeaders limits the headers of one batch, all its records
	// together; <= 0 means DefaultMaxHeaders. The batch's iterator (and
	// Records) stops at the record that passes it.
	MaxHeaders int
	// Budget, if set, bounds the decompressed bytes held at once by the
	// batches of every Reader that shares it (see Budget).
	Budget *Budget
	// Buffers supplies the buffers compressed batches are decompressed
	// into, and takes them back on Batch.Release; nil is the package's
	// pool.
	Buffers BufferPool

	lim      limits
	lz4Ratio int64 // sixteenths: the last LZ4 batch's expansion, an eighth over
	data     []byte
	pos      int
	partial  bool
	err      error
}

// NewReader returns a Reader over data.
func NewReader(data []byte) *Reader { return &Reader{data: data} }

// Next returns the next complete entry, verified (CRC, lengths) and, if
// compressed, decompressed. At the end of data, including before a partial
// tail, it returns io.EOF. After an error it keeps returning that error:
// the entry boundaries past a corrupt one cannot be trusted.
func (r *Reader) Next() (*Batch, error) {
	if r.err != nil {
		return nil, r.err
	}
	rest := r.data[r.pos:]
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if len(rest) < entryOverhead {
		r.partial = true
		return nil, io.EOF
	}
	length := wire.Int32(rest[8:])
	if length < 0 {
		r.err = errAt(r.pos+8, ErrInvalidLength, "entry length %d", length)
		return nil, r.err
	}
	if int64(length) > int64(len(rest)-entryOverhead) {
		r.partial = true // cut short by the fetch size limit
		return nil, io.EOF
	}
	entry := rest[: entryOverhead+int(length) : entryOverhead+int(length)]
	if len(entry) <= magicPos {
		r.err = errAt(r.pos+8, ErrInvalidLength, "entry length %d (too short for a magic byte)", length)
		return nil, r.err
	}
	var b *Batch
	switch magic := int8(entry[magicPos]); magic {
	case 2:
		b, r.err = parseBatchV2(entry, r.pos, r.limits())
	case 0, 1:
		b, r.err = parseLegacy(entry, r.pos, r.limits())
	default:
		r.err = errAt(r.pos+magicPos, ErrUnknownMagic, "magic %d", magic)
	}
	if r.err != nil {
		return nil, r.err
	}
	r.pos += len(entry)
	return b, nil
}

// Partial reports whether data ended with an incomplete entry, which Next
// skipped. Kafka brokers do that on purpose; a consumer fetches again from
// the offset after the last complete batch.
func (r *Reader) Partial() bool { return r.partial }

// Offset is the number of bytes of data consumed by complete entries.
func (r *Reader) Offset() int { return r.pos }

// ReadBatches reads every complete entry of data with the default limits.
// partial reports an incomplete tail, which is not an error.
func ReadBatches(data []byte) (batches []*Batch, partial bool, err error) {
	r := NewReader(data)
	for {
		b, err := r.Next()
		if err == io.EOF {
			return batches, r.Partial(), nil
		}
		if err != nil {
			return batches, r.Partial(), err
		}
		batches = append(batches, b)
	}
}

// Reset makes r read data from its start, keeping its limits, Budget and
// Buffers: one Reader serves fetch after fetch without allocating.
func (r *Reader) Reset(data []byte) {
	r.data, r.pos, r.partial, r.err = data, 0, false, nil
}
