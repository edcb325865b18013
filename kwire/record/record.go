package record

// Header is a record header. A nil Value is null on the wire.
type Header struct {
	Key   string
	Value []byte
}

// Record is one record. When read, Offset and Timestamp are absolute (the
// batch's base plus the record's deltas; with LogAppendTime the batch's
// MaxTimestamp), and Key, Value and header values alias the input or the
// batch's decompressed buffer: copy them to keep them past the input's life.
// When built, Offset is ignored (records get consecutive offsets) and
// Attributes is written as given (Kafka defines no record attributes yet).
//
// A nil Key or Value is null on the wire; an empty non-nil one is empty.
// Timestamp is in milliseconds since the Unix epoch; magic 0 has none (-1).
type Record struct {
	Offset     int64
	Timestamp  int64
	Key        []byte
	Value      []byte
	Headers    []Header
	Attributes int8
}

// RecordIter walks a batch's records without copying keys and values.
//
//	it := batch.Iter()
//	for it.Next() {
//		rec := it.Record()
//		...
//	}
//	if err := it.Err(); err != nil { ... }
type RecordIter struct {
	batch *Batch
	dec   decoder
	index int
	rec   Record
	err   error
}

// Iter returns an iterator over the batch's records.
func (b *Batch) Iter() RecordIter {
	return RecordIter{batch: b, dec: decoder{b: b.records}}
}

// Record is the current record. The iterator reuses it: its fields stay
// valid, but the *Record is overwritten by the next call to Next.
func (it *RecordIter) Record() *Record { return &it.rec }

// Err is the error that stopped the iteration, or nil at the normal end.
func (it *RecordIter) Err() error { return it.err }

// Next decodes the next record and reports whether there was one.
func (it *RecordIter) Next() bool {
	b := it.batch
	if it.err != nil || it.index >= int(b.NumRecords) {
		if it.err == nil && b.Magic >= 2 && it.dec.pos != len(it.dec.b) {
			it.err = it.errAt(it.dec.pos, ErrInvalidLength, "%d bytes after the last record", len(it.dec.b)-it.dec.pos)
		}
		return false
	}
	if b.Magic < 2 {
		it.rec = b.legacy[it.index]
		it.index++
		return true
	}
	if !it.decodeV2() {
		d := &it.dec
		it.err = it.errAt(d.failPos, d.failErr, "record %d %s", it.index, d.failWhat)
		return false
	}
	it.index++
	return true
}

// decodeV2 reads one record: the varint length, then exactly that many
// bytes of attributes, deltas, key, value and headers.
func (it *RecordIter) decodeV2() bool {
	d, b, r := &it.dec, it.batch, &it.rec
	lenPos := d.pos
	length := d.varint("length")
	if d.ok() && (length < minRecordLenV2-1 || int(length) > len(d.b)-d.pos) {
		d.fail(lenPos, ErrInvalidLength, "length")
	}
	if !d.ok() {
		return false
	}
	// Confine the fields to the record, so that a bad inner length is
	// caught inside it rather than read from the next record.
	all := d.b
	d.b = all[:d.pos+int(length)]
	r.Attributes = d.int8("attributes")
	tsDelta := d.varlong("timestamp delta")
	offsetDelta := d.varint("offset delta")
	r.Key = d.varBytes("key")
	r.Value = d.varBytes("value")
	countPos := d.pos
	count := d.varint("header count")
	// A header takes at least two bytes (two varint lengths).
	if d.ok() && (count < 0 || int(count) > (len(d.b)-d.pos)/2) {
		d.fail(countPos, ErrInvalidLength, "header count")
	}
	r.Headers = nil
	if d.ok() && count > 0 {
		r.Headers = make([]Header, count)
		for i := range r.Headers {
			keyPos := d.pos
			key := d.varBytes("header key")
			if d.ok() && key == nil {
				d.fail(keyPos, ErrCorrupt, "header key is null")
			}
			r.Headers[i] = Header{Key: string(key), Value: d.varBytes("header value")}
		}
	}
	if d.ok() && d.pos != len(d.b) {
		d.fail(lenPos, ErrInvalidLength, "length (does not match its fields)")
	}
	d.b = all
	if !d.ok() {
		return false
	}
	r.Offset = b.BaseOffset + int64(offsetDelta)
	if b.Attributes.TimestampType() == LogAppendTime {
		r.Timestamp = b.MaxTimestamp
	} else {
		r.Timestamp = b.BaseTimestamp + tsDelta
	}
	return true
}

// errAt places an error found at pos of the records section.
func (it *RecordIter) errAt(pos int, sentinel error, format string, args ...any) error {
	b := it.batch
	if b.compressed {
		e := errAt(b.pos, sentinel, format, args...)
		e.InnerOffset = pos
		return e
	}
	return errAt(b.pos+batchHeaderLen+pos, sentinel, format, args...)
}

// appendRecordV2 encodes r as a record of a v2 batch.
func appendRecordV2(dst []byte, r *Record, offsetDelta int32, timestampDelta int64) []byte {
	length := 1 + sizeVarlong(timestampDelta) + sizeVarlong(int64(offsetDelta)) +
		sizeVarBytes(r.Key) + sizeVarBytes(r.Value) + sizeVarlong(int64(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		length += sizeVarlong(int64(len(h.Key))) + len(h.Key) + sizeVarBytes(h.Value)
	}
	dst = appendVarint(dst, int32(length))
	dst = append(dst, byte(r.Attributes))
	dst = appendVarlong(dst, timestampDelta)
	dst = appendVarint(dst, offsetDelta)
	dst = appendVarBytes(dst, r.Key)
	dst = appendVarBytes(dst, r.Value)
	dst = appendVarint(dst, int32(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		dst = appendVarint(dst, int32(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = appendVarBytes(dst, h.Value)
	}
	return dst
}

func sizeVarBytes(b []byte) int {
	if b == nil {
		return 1
	}
	return sizeVarlong(int64(len(b))) + len(b)
}

func appendVarBytes(dst, b []byte) []byte {
	if b == nil {
		return appendVarint(dst, -1)
	}
	return append(appendVarint(dst, int32(len(b))), b...)
}
