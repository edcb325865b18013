package record

import (
	"hash/crc32"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// RecordBatch v2 header layout. Every entry of a record set, whatever its
// magic, starts with an int64 offset and an int32 length of the bytes that
// follow, and has its magic byte at offset 16; the reader relies on that.
const (
	entryOverhead   = 12 // offset + length, not counted in the length
	magicPos        = 16
	batchCRCPos     = 17
	batchAttrsPos   = 21 // the CRC covers from here to the end
	batchHeaderLen  = 61
	batchCountPos   = batchHeaderLen - 4
	minRecordLenV2  = 7 // a varint each: length, timestamp and offset deltas, key, value, header count; plus attributes
	minBatchLength  = batchHeaderLen - entryOverhead
	maxBatchByteLen = 1<<31 - 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Batch is one entry of a record set: a RecordBatch (magic 2), or for magic
// 0 and 1 one top-level legacy message — a single record, or a compressed
// wrapper holding several.
//
// For legacy entries the fields v2 lacks are filled as Kafka presents them:
// PartitionLeaderEpoch, ProducerID, ProducerEpoch and BaseSequence are -1;
// BaseOffset and LastOffsetDelta span the inner records; the timestamps are
// the message's (-1 for magic 0); Length and CRC are the outer message's.
type Batch struct {
	BaseOffset           int64
	Length               int32 // bytes after the length field
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32
	Attributes           Attributes
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	NumRecords           int32

	// Raw is the whole entry as it was read, aliasing the reader's input.
	Raw []byte

	// pos is Raw's offset in the reader's input, for errors.
	pos int
	// records is the records section: for v2 the records, for a legacy
	// entry its message set (the entry itself, or a wrapper's inner set),
	// checked by the Reader; compressed records whether it is a
	// decompression buffer rather than a part of Raw.
	records    []byte
	compressed bool
	// maxHeaders is the Reader's MaxHeaders.
	maxHeaders int

	// A compressed batch's buffer came from pool, or when pool is nil from
	// the package's pool in holder, and took charged bytes from budget;
	// Release gives them back.
	pool     BufferPool
	holder   *[]byte
	budget   *Budget
	charged  int
	released bool
}

// LastOffset is the offset of the batch's last record.
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(b.LastOffsetDelta) }

// Records decodes all the batch's records into a new slice, and their
// headers into a shared array (another only when a record has more headers
// than the array has room left for). Keys and values alias the input (or, for
// a compressed batch, its decompressed buffer). It allocates what it
// returns and nothing else: the slice is sized from what the bytes can
// hold, never from the count the batch claims, and a header array only
// for headers that have been checked.
func (b *Batch) Records() ([]Record, error) {
	out := make([]Record, 0, max(0, min(int(b.NumRecords), len(b.records)/minRecordLen(b.Magic))))
	it := b.Iter()
	it.collect = true
	v2, count := b.Magic >= 2 && it.err == nil, int(b.NumRecords)
	// Each record is decoded into its slot of out. Every record takes at
	// least minRecordLen bytes, so out holds them all; extra is a guard.
	var extra Record
	for {
		r := &extra
		if len(out) < cap(out) {
			r = &out[:len(out)+1][len(out)]
		}
		// fastV2 first, without next's checks: they hold until index
		// reaches the count (then next) or a record fails (slowNext).
		ok := true
		if v2 && it.index < count {
			if it.fastV2(r) {
				it.index++
			} else {
				ok = it.slowNext(r)
			}
		} else {
			ok = it.next(r)
		}
		if !ok {
			*r = Record{} // what a record that failed wrote
			break
		}
		if r == &extra {
			out = append(out, extra)
		} else {
			out = out[:len(out)+1]
		}
		n := it.headerCount
		if n == 0 {
			continue
		}
		if !it.collected { // read by checkedV2
			if n > cap(it.slab)-len(it.slab) {
				it.slab = it.headerSlab(n, count-it.index+1)
			}
			it.slab = it.appendHeaders(it.slab)
		}
		s := it.slab
		out[len(out)-1].Headers = s[len(s)-n : len(s) : len(s)]
	}
	return out, it.Err()
}

// minRecordLen is the size of the smallest record of a batch of magic m.
func minRecordLen(m int8) int {
	if m < 2 {
		return minLegacyEntryV0
	}
	return minRecordLenV2
}

// parseBatchV2 decodes the RecordBatch entry, whose length is already known
// to fit, at byte pos of the input; it checks the CRC and the record count,
// then decompresses.
func parseBatchV2(entry []byte, pos int, lim *limits) (*Batch, error) {
	if len(entry) < batchHeaderLen {
		return nil, errAt(pos+8, ErrInvalidLength, "batch length %d (minimum %d)", len(entry)-entryOverhead, minBatchLength)
	}
	h := entry[:batchHeaderLen] // the offsets of putBatchHeader
	b := &Batch{
		BaseOffset:           wire.Int64(h[0:]),
		Length:               wire.Int32(h[8:]),
		PartitionLeaderEpoch: wire.Int32(h[12:]),
		Magic:                int8(h[magicPos]),
		CRC:                  wire.Uint32(h[batchCRCPos:]),
		Attributes:           Attributes(wire.Int16(h[batchAttrsPos:])),
		LastOffsetDelta:      wire.Int32(h[23:]),
		BaseTimestamp:        wire.Int64(h[27:]),
		MaxTimestamp:         wire.Int64(h[35:]),
		ProducerID:           wire.Int64(h[43:]),
		ProducerEpoch:        wire.Int16(h[51:]),
		BaseSequence:         wire.Int32(h[53:]),
		NumRecords:           wire.Int32(h[batchCountPos:]),
		Raw:                  entry,
		pos:                  pos,
		maxHeaders:           lim.headers,
	}
	if got := crc32.Checksum(entry[batchAttrsPos:], castagnoli); got != b.CRC {
		return nil, errAt(pos+batchCRCPos, ErrCRCMismatch, "batch crc: stored %#08x, computed %#08x", b.CRC, got)
	}
	codec := b.Attributes.Codec()
	if !codec.known() {
		return nil, errAt(pos+batchAttrsPos, ErrUnknownCodec, "batch attributes codec %d", codec)
	}
	// The count must be possible in the bytes at hand, and within the
	// limit; a compressed batch is refused before it is decompressed, as
	// a few KiB of zstd hold millions of minimal records.
	b.records = entry[batchHeaderLen:]
	if codec == CodecNone || b.NumRecords < 0 {
		if err := b.checkCount(); err != nil {
			return nil, err
		}
	}
	if int(b.NumRecords) > lim.records {
		return nil, errAt(pos+batchCountPos, ErrTooLarge, "batch record count %d (limit %d)", b.NumRecords, lim.records)
	}
	if codec != CodecNone {
		if err := b.decompress(codec, b.records, pos+batchHeaderLen, false, lim); err != nil {
			return nil, err
		}
		if err := b.checkCount(); err != nil {
			b.Release()
			return nil, err
		}
	}
	return b, nil
}

// checkCount checks that the records section can hold NumRecords records.
func (b *Batch) checkCount() error {
	if b.NumRecords < 0 || int(b.NumRecords) > len(b.records)/minRecordLenV2 {
		return errAt(b.pos+batchCountPos, ErrInvalidLength, "batch record count %d for %d bytes of records", b.NumRecords, len(b.records))
	}
	return nil
}

// putBatchHeader writes b's header fields into the first 61 bytes of entry,
// then the CRC over the rest of entry, which must hold the records already.
func putBatchHeader(entry []byte, b *Batch) {
	wire.PutInt64(entry[0:], b.BaseOffset)
	wire.PutInt32(entry[8:], int32(len(entry)-entryOverhead))
	wire.PutInt32(entry[12:], b.PartitionLeaderEpoch)
	entry[magicPos] = 2
	wire.PutInt16(entry[batchAttrsPos:], int16(b.Attributes))
	wire.PutInt32(entry[23:], b.LastOffsetDelta)
	wire.PutInt64(entry[27:], b.BaseTimestamp)
	wire.PutInt64(entry[35:], b.MaxTimestamp)
	wire.PutInt64(entry[43:], b.ProducerID)
	wire.PutInt16(entry[51:], b.ProducerEpoch)
	wire.PutInt32(entry[53:], b.BaseSequence)
	wire.PutInt32(entry[batchCountPos:], b.NumRecords)
	wire.PutUint32(entry[batchCRCPos:], crc32.Checksum(entry[batchAttrsPos:], castagnoli))
}
