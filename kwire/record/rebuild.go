package record

// AppendBatchLike appends records to dst as one entry carrying h's header
// fields, as a Reader shows them: the way to write back a batch that was
// read, edited or described field by field (kwire/pretty's JSON does).
//
// For magic 2 the batch has h's BaseOffset, PartitionLeaderEpoch,
// Attributes (codec included), LastOffsetDelta, BaseTimestamp,
// MaxTimestamp and producer fields; each record's offset and timestamp
// deltas are its Offset and Timestamp less h's BaseOffset and
// BaseTimestamp, so records need not be consecutive. Length, NumRecords
// and the CRC are computed; h's are ignored. An uncompressed batch read
// and written back this way is the same bytes; a compressed one holds the
// same records, compressed by this package (the same bytes when this
// package compressed it).
//
// For magic 0 and 1 the entry is what AppendBatch writes with h's magic,
// codec and base offset, and, for LogAppendTime, h's MaxTimestamp as the
// append time: one message per record, or one compressed wrapper.
func AppendBatchLike(dst []byte, h *Batch, records []Record) ([]byte, error) {
	codec := h.Attributes.Codec()
	if !codec.known() {
		return dst, errAt(0, ErrUnknownCodec, "build codec %d", codec)
	}
	switch h.Magic {
	case 0, 1:
		o := defaultBuildOptions()
		o.magic, o.codec, o.baseOffset = h.Magic, codec, h.BaseOffset
		if h.Attributes.TimestampType() == LogAppendTime {
			o.logAppendTime, o.appendTime = true, h.MaxTimestamp
		}
		return appendLegacySet(dst, records, &o)
	case 2:
	default:
		return dst, errAt(0, ErrUnknownMagic, "build magic %d", h.Magic)
	}
	hdr := *h
	hdr.NumRecords = int32(len(records))
	if len(records) > maxBatchByteLen/minRecordLenV2 {
		return dst, errAt(0, ErrUnsupported, "%d records in one batch", len(records))
	}
	for i := range records {
		if d := records[i].Offset - h.BaseOffset; d < -1<<31 || d > 1<<31-1 {
			return dst, errAt(0, ErrUnsupported, "record %d offset %d is %d from the base offset %d (more than an int32 delta)",
				i, records[i].Offset, d, h.BaseOffset)
		}
	}
	start := len(dst)
	dst = append(dst, make([]byte, batchHeaderLen)...)
	appendRecords := func(dst []byte) []byte {
		for i := range records {
			r := &records[i]
			dst = appendRecordV2(dst, r, int32(r.Offset-h.BaseOffset), r.Timestamp-h.BaseTimestamp)
		}
		return dst
	}
	if codec == CodecNone {
		dst = appendRecords(dst)
	} else {
		buf := scratch.Get().(*[]byte)
		*buf = appendRecords((*buf)[:0])
		var err error
		dst, err = Compress(dst, codec, *buf)
		scratch.Put(buf)
		if err != nil {
			return dst[:start], err
		}
	}
	if len(dst)-start-entryOverhead > maxBatchByteLen {
		return dst[:start], errAt(0, ErrUnsupported, "batch of %d bytes (more than an int32 length)", len(dst)-start)
	}
	putBatchHeader(dst[start:], &hdr)
	return dst, nil
}
