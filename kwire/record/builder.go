package record

import (
	"sync"
)

// Option sets a property of a built batch.
type Option func(*buildOptions)

type buildOptions struct {
	magic         int8
	codec         Codec
	baseOffset    int64
	leaderEpoch   int32
	producerID    int64
	producerEpoch int16
	baseSequence  int32
	transactional bool
	control       bool
	logAppendTime bool
	appendTime    int64
}

// The defaults are what a non-idempotent Java producer sends: magic 2, no
// compression, offsets from 0, and -1 for the leader epoch and producer
// fields, which the broker fills in or ignores.
func defaultBuildOptions() buildOptions {
	return buildOptions{magic: 2, leaderEpoch: -1, producerID: -1, producerEpoch: -1, baseSequence: -1}
}

// WithCodec compresses the records (default CodecNone).
func WithCodec(c Codec) Option { return func(o *buildOptions) { o.codec = c } }

// WithMagic selects the format: 2 (RecordBatch, the default), or 0 and 1
// (legacy message sets, for Produce versions 0-2). Legacy formats carry no
// headers, producer fields, or zstd.
func WithMagic(m int8) Option { return func(o *buildOptions) { o.magic = m } }

// WithBaseOffset sets the first record's offset (producers send 0).
func WithBaseOffset(off int64) Option { return func(o *buildOptions) { o.baseOffset = off } }

// WithPartitionLeaderEpoch sets the batch's partition leader epoch.
func WithPartitionLeaderEpoch(e int32) Option { return func(o *buildOptions) { o.leaderEpoch = e } }

// WithProducer sets the idempotent producer's id, epoch and the sequence
// number of the batch's first record.
func WithProducer(id int64, epoch int16, baseSequence int32) Option {
	return func(o *buildOptions) { o.producerID, o.producerEpoch, o.baseSequence = id, epoch, baseSequence }
}

// WithTransactional marks the batch as part of a transaction.
func WithTransactional() Option { return func(o *buildOptions) { o.transactional = true } }

// WithLogAppendTime marks the timestamps as set by the broker, at ts, as a
// broker does when the topic uses LogAppendTime: MaxTimestamp (or a legacy
// wrapper's timestamp) becomes ts.
func WithLogAppendTime(ts int64) Option {
	return func(o *buildOptions) { o.logAppendTime, o.appendTime = true, ts }
}

// Build returns records as one entry of the chosen magic: the bytes for a
// Produce request's Records field. See AppendBatch.
func Build(records []Record, opts ...Option) ([]byte, error) {
	return AppendBatch(nil, records, opts...)
}

// AppendBatch appends records to dst as one RecordBatch (or, with
// WithMagic(0 or 1), as a legacy message set: one message per record, or a
// single compressed wrapper). Records get consecutive offsets from the base
// offset; their Offset fields are ignored. The first record's timestamp is
// the batch's base timestamp. With no records a v2 batch is the 61-byte
// header alone, with last offset delta and timestamps -1.
func AppendBatch(dst []byte, records []Record, opts ...Option) ([]byte, error) {
	o := collectOptions(opts)
	return appendEntry(dst, records, &o)
}

func collectOptions(opts []Option) buildOptions {
	o := defaultBuildOptions()
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func appendEntry(dst []byte, records []Record, o *buildOptions) ([]byte, error) {
	if !o.codec.known() {
		return dst, errAt(0, ErrUnknownCodec, "build codec %d", o.codec)
	}
	switch o.magic {
	case 2:
		return appendBatchV2(dst, records, o)
	case 0, 1:
		return appendLegacySet(dst, records, o)
	}
	return dst, errAt(0, ErrUnknownMagic, "build magic %d", o.magic)
}

// scratch buffers hold the uncompressed records before compression.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

func appendBatchV2(dst []byte, records []Record, o *buildOptions) ([]byte, error) {
	h := Batch{
		BaseOffset:           o.baseOffset,
		PartitionLeaderEpoch: o.leaderEpoch,
		Attributes:           MakeAttributes(o.codec, timestampType(o), o.transactional, o.control, false),
		LastOffsetDelta:      int32(len(records)) - 1,
		BaseTimestamp:        -1,
		MaxTimestamp:         -1,
		ProducerID:           o.producerID,
		ProducerEpoch:        o.producerEpoch,
		BaseSequence:         o.baseSequence,
		NumRecords:           int32(len(records)),
	}
	if len(records) > 0 {
		h.BaseTimestamp = records[0].Timestamp
		for i := range records {
			h.MaxTimestamp = max(h.MaxTimestamp, records[i].Timestamp)
		}
	}
	if o.logAppendTime {
		h.MaxTimestamp = o.appendTime
	}

	start := len(dst)
	dst = append(dst, make([]byte, batchHeaderLen)...)
	if o.codec == CodecNone {
		dst = appendRecordsV2(dst, records, h.BaseTimestamp)
	} else {
		buf := scratch.Get().(*[]byte)
		*buf = appendRecordsV2((*buf)[:0], records, h.BaseTimestamp)
		var err error
		dst, err = Compress(dst, o.codec, *buf)
		scratch.Put(buf)
		if err != nil {
			return dst[:start], err
		}
	}
	if len(dst)-start-entryOverhead > maxBatchByteLen {
		return dst[:start], errAt(0, ErrUnsupported, "batch of %d bytes (more than an int32 length)", len(dst)-start)
	}
	putBatchHeader(dst[start:], &h)
	return dst, nil
}

func appendRecordsV2(dst []byte, records []Record, baseTimestamp int64) []byte {
	for i := range records {
		dst = appendRecordV2(dst, &records[i], int32(i), records[i].Timestamp-baseTimestamp)
	}
	return dst
}

func timestampType(o *buildOptions) TimestampType {
	if o.logAppendTime {
		return LogAppendTime
	}
	return CreateTime
}

func appendLegacySet(dst []byte, records []Record, o *buildOptions) ([]byte, error) {
	if o.codec == CodecZstd {
		return dst, errAt(0, ErrUnsupported, "zstd in a magic %d message set", o.magic)
	}
	for i := range records {
		if len(records[i].Headers) > 0 {
			return dst, errAt(0, ErrUnsupported, "record %d headers in a magic %d message set", i, o.magic)
		}
	}
	// Magic 1 stores the timestamp type in every message; magic 0 has none.
	attrs := int8(0)
	if o.magic == 1 && o.logAppendTime {
		attrs = int8(attrLogAppendTime)
	}
	timestamp := func(r *Record) int64 {
		if o.logAppendTime {
			return o.appendTime
		}
		return r.Timestamp
	}
	if o.codec == CodecNone {
		for i := range records {
			r := &records[i]
			dst = appendLegacyMessage(dst, o.magic, o.baseOffset+int64(i), attrs, timestamp(r), r.Key, r.Value)
		}
		return dst, nil
	}
	if len(records) == 0 {
		return dst, nil
	}

	buf := scratch.Get().(*[]byte)
	defer scratch.Put(buf)
	inner := (*buf)[:0]
	wrapperTime := int64(-1)
	for i := range records {
		r := &records[i]
		offset := int64(i) // magic 1: relative to the wrapper
		if o.magic == 0 {
			offset += o.baseOffset
		}
		inner = appendLegacyMessage(inner, o.magic, offset, attrs, timestamp(r), r.Key, r.Value)
		wrapperTime = max(wrapperTime, timestamp(r))
	}
	*buf = inner
	compressed, err := Compress(nil, o.codec, inner)
	if err != nil {
		return dst, err
	}
	lastOffset := o.baseOffset + int64(len(records)) - 1
	return appendLegacyMessage(dst, o.magic, lastOffset, attrs|int8(o.codec), wrapperTime, nil, compressed), nil
}
