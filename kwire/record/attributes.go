package record

import "strconv"

// Codec is a compression codec, as stored in the low three bits of a batch's
// (or legacy wrapper message's) attributes.
type Codec int8

const (
	CodecNone   Codec = 0
	CodecGzip   Codec = 1
	CodecSnappy Codec = 2
	CodecLZ4    Codec = 3
	CodecZstd   Codec = 4 // magic 2 only
)

func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecGzip:
		return "gzip"
	case CodecSnappy:
		return "snappy"
	case CodecLZ4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return "codec(" + strconv.Itoa(int(c)) + ")"
}

func (c Codec) known() bool { return c >= CodecNone && c <= CodecZstd }

// TimestampType says who set the timestamps: the producer (CreateTime) or
// the broker when it appended the batch (LogAppendTime).
type TimestampType int8

const (
	CreateTime    TimestampType = 0
	LogAppendTime TimestampType = 1
)

func (t TimestampType) String() string {
	if t == LogAppendTime {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// Attributes is a RecordBatch's int16 attributes field. Legacy messages use
// the low byte with the same meaning for the codec and timestamp-type bits.
type Attributes int16

const (
	attrCodecMask        Attributes = 0x07
	attrLogAppendTime    Attributes = 0x08
	attrTransactional    Attributes = 0x10
	attrControl          Attributes = 0x20
	attrHasDeleteHorizon Attributes = 0x40
)

// Codec is the compression codec (bits 0-2).
func (a Attributes) Codec() Codec { return Codec(a & attrCodecMask) }

// TimestampType is bit 3.
func (a Attributes) TimestampType() TimestampType {
	if a&attrLogAppendTime != 0 {
		return LogAppendTime
	}
	return CreateTime
}

// Transactional is bit 4: the batch belongs to a transaction.
func (a Attributes) Transactional() bool { return a&attrTransactional != 0 }

// Control is bit 5: the batch holds control records (transaction markers).
func (a Attributes) Control() bool { return a&attrControl != 0 }

// HasDeleteHorizon is bit 6: the log cleaner has set BaseTimestamp to the
// time after which tombstones and markers in the batch may be removed.
func (a Attributes) HasDeleteHorizon() bool { return a&attrHasDeleteHorizon != 0 }

// MakeAttributes assembles the attributes field from its parts.
func MakeAttributes(codec Codec, ts TimestampType, transactional, control, deleteHorizon bool) Attributes {
	a := Attributes(codec) & attrCodecMask
	if ts == LogAppendTime {
		a |= attrLogAppendTime
	}
	if transactional {
		a |= attrTransactional
	}
	if control {
		a |= attrControl
	}
	if deleteHorizon {
		a |= attrHasDeleteHorizon
	}
	return a
}
