package record

import (
	"hash/crc32"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// Legacy message sets (magic 0 and 1), as Kafka wrote them before 0.11:
//
//	offset int64, message size int32,
//	crc uint32 (CRC-32 IEEE of magic..end), magic int8, attributes int8,
//	timestamp int64 (magic 1 only), key int32-len bytes, value int32-len bytes
//
// A compressed message is a wrapper whose value is a whole inner message set,
// compressed. For magic 1 the inner offsets are relative (0..n-1) and the
// wrapper's offset is that of the last inner message; for magic 0 they are
// absolute.

const (
	legacyCRCPos     = 12
	legacyMagicPos   = 16
	minLegacySizeV0  = 4 + 1 + 1 + 4 + 4 // crc, magic, attributes, key and value lengths
	minLegacyEntryV0 = entryOverhead + minLegacySizeV0
)

// legacyMessage is one decoded message; Key and Value alias the input.
type legacyMessage struct {
	offset     int64
	magic      int8
	crc        uint32
	attributes int8
	timestamp  int64
	key, value []byte
}

// decodeLegacyMessage reads the message entry (whose size is already known
// to fit) and checks its CRC. Errors carry positions within entry.
func decodeLegacyMessage(entry []byte) (m legacyMessage, d decoder) {
	d = decoder{b: entry}
	m.offset = d.int64("offset")
	d.int32("message size")
	m.crc = d.uint32("crc")
	m.magic = d.int8("magic")
	m.attributes = d.int8("attributes")
	m.timestamp = -1
	if m.magic >= 1 {
		m.timestamp = d.int64("timestamp")
	}
	m.key = d.int32Bytes("key")
	m.value = d.int32Bytes("value")
	if d.ok() && d.pos != len(entry) {
		d.fail(8, ErrInvalidLength, "message size (does not match its fields)")
	}
	if d.ok() {
		if got := crc32.ChecksumIEEE(entry[legacyMagicPos:]); got != m.crc {
			d.fail(legacyCRCPos, ErrCRCMismatch, "message crc")
		}
	}
	return m, d
}

// parseLegacy decodes the top-level legacy entry at byte pos of the input.
// A wrapper is decompressed and its inner messages checked and counted, but
// not decoded: the batch's iterator does that, one message at a time.
func parseLegacy(entry []byte, pos int, lim *limits) (*Batch, error) {
	m, d := decodeLegacyMessage(entry)
	if !d.ok() {
		return nil, errAt(pos+d.failPos, d.failErr, "legacy %s", d.failWhat)
	}
	attrs := Attributes(uint8(m.attributes))
	b := &Batch{
		BaseOffset:           m.offset,
		Length:               int32(len(entry) - entryOverhead),
		PartitionLeaderEpoch: -1,
		Magic:                m.magic,
		CRC:                  m.crc,
		Attributes:           attrs,
		BaseTimestamp:        m.timestamp,
		MaxTimestamp:         m.timestamp,
		ProducerID:           -1,
		ProducerEpoch:        -1,
		BaseSequence:         -1,
		Raw:                  entry,
		pos:                  pos,
	}
	codec := attrs.Codec()
	if codec == CodecNone {
		// A message set of one: the entry itself.
		b.NumRecords, b.records = 1, entry
		return b, nil
	}
	if codec == CodecZstd || !codec.known() {
		return nil, errAt(pos+legacyMagicPos+1, ErrUnknownCodec, "legacy attributes codec %d", codec)
	}
	if codec == CodecLZ4 && m.magic == 0 {
		m.value = withCorrectLZ4HeaderChecksum(m.value)
	}
	if err := b.decompress(codec, m.value, pos, true, lim); err != nil {
		return nil, err
	}
	if err := b.checkInner(m, lim.records); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// checkInner walks the wrapper's decompressed message set, checking every
// message, and sets the batch's count, offsets and base timestamp from it.
// It keeps nothing, so a bomb of millions of messages costs only its
// decompressed bytes.
func (b *Batch) checkInner(wrapper legacyMessage, maxRecords int) error {
	inner := b.records
	innerErr := func(at int, sentinel error, format string, args ...any) error {
		e := errAt(b.pos, sentinel, "legacy inner "+format, args...)
		e.InnerOffset = at
		return e
	}
	var first, last legacyMessage
	n := 0
	for at := 0; at < len(inner); {
		rest := inner[at:]
		if len(rest) < minLegacyEntryV0 {
			return innerErr(at, ErrTruncated, "message")
		}
		size := wire.Int32(rest[8:])
		if size < minLegacySizeV0 || int(size) > len(rest)-entryOverhead {
			return innerErr(at+8, ErrInvalidLength, "message size")
		}
		m, d := decodeLegacyMessage(rest[:entryOverhead+int(size)])
		if !d.ok() {
			return innerErr(at+d.failPos, d.failErr, "%s", d.failWhat)
		}
		if m.magic > 1 || Attributes(uint8(m.attributes)).Codec() != CodecNone {
			return innerErr(at+legacyMagicPos, ErrCorrupt, "message: nested compression or bad magic")
		}
		if n == maxRecords {
			return innerErr(at, ErrTooLarge, "message count (limit %d)", maxRecords)
		}
		if n == 0 {
			first = m
		}
		last = m
		n++
		at += entryOverhead + int(size)
	}
	if n == 0 {
		return innerErr(0, ErrInvalidLength, "message set is empty")
	}
	shift := int64(0)
	if wrapper.magic >= 1 {
		// Relative inner offsets count back from the wrapper's, which is
		// the last message's absolute offset.
		shift = wrapper.offset - last.offset
	}
	b.BaseOffset = first.offset + shift
	b.LastOffsetDelta = int32(last.offset - first.offset)
	b.BaseTimestamp = first.timestamp
	if wrapper.magic >= 1 && b.Attributes.TimestampType() == LogAppendTime {
		b.BaseTimestamp = wrapper.timestamp
	}
	b.NumRecords = int32(n)
	return nil
}

// appendLegacyMessage encodes one message with the given offset.
func appendLegacyMessage(dst []byte, magic int8, offset int64, attributes int8, timestamp int64, key, value []byte) []byte {
	start := len(dst)
	dst = wire.AppendInt64(dst, offset)
	dst = wire.AppendInt32(dst, 0) // size, set below
	dst = wire.AppendInt32(dst, 0) // crc, set below
	dst = append(dst, byte(magic), byte(attributes))
	if magic >= 1 {
		dst = wire.AppendInt64(dst, timestamp)
	}
	dst = appendInt32Bytes(dst, key)
	dst = appendInt32Bytes(dst, value)
	msg := dst[start:]
	wire.PutInt32(msg[8:], int32(len(msg)-entryOverhead))
	wire.PutUint32(msg[legacyCRCPos:], crc32.ChecksumIEEE(msg[legacyMagicPos:]))
	return dst
}

func appendInt32Bytes(dst, b []byte) []byte {
	if b == nil {
		return wire.Int32Length.Append(dst, -1)
	}
	return append(wire.Int32Length.Append(dst, len(b)), b...)
}
