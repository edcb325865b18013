package record

import (
	"github.com/kwirelabs/kwire/kwire/wire"
)

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
//
// Next checks each record, headers included, but builds nothing: with
// RecordWithoutHeaders and Headers a batch is read without allocating.
type RecordIter struct {
	batch *Batch
	dec   decoder
	index int
	rec   Record
	err   error

	// dec.b[headersAt:headersEnd] holds the current record's headerCount
	// headers, checked by Next; headersLeft is what the batch's header
	// limit still allows.
	headersAt, headersEnd int
	headerCount           int
	headersLeft           int
	// lastHeaders are the headers last built: header keys repeat from
	// record to record, and their strings are reused.
	lastHeaders []Header
	// With collect set (by Records), fastV2 appends each record's headers
	// to slab as it checks them, and says so in collected, which saves
	// reading them twice.
	collect, collected bool
	slab               []Header
	// shift turns a legacy message's offset into the record's.
	shift int64
	// stored is the current record's timestamp as its bytes hold it.
	stored int64
}

// StoredTimestamp is the current record's timestamp as its bytes hold it:
// for magic 2 the batch's BaseTimestamp plus the record's delta, for a
// legacy message its own. In a LogAppendTime batch it differs from
// Record().Timestamp, which is the batch's time.
func (it *RecordIter) StoredTimestamp() int64 { return it.stored }

// Iter returns an iterator over the batch's records.
func (b *Batch) Iter() RecordIter {
	it := RecordIter{batch: b, dec: decoder{b: b.records}, headersLeft: orDefault(b.maxHeaders, DefaultMaxHeaders)}
	if b.released {
		it.err = errAt(b.pos, ErrReleased, "batch records")
		return it
	}
	if b.Magic < 2 && len(b.records) >= 8 {
		// Magic 1 wrappers number their inner messages from 0; the batch's
		// BaseOffset is the first one's absolute offset.
		it.shift = b.BaseOffset - wire.Int64(b.records)
	}
	return it
}

// Record is the current record, its headers decoded into a new slice. The
// iterator reuses the Record: its fields stay valid, but the *Record is
// overwritten by the next call to Next.
func (it *RecordIter) Record() *Record {
	if it.rec.Headers == nil && it.headerCount > 0 {
		it.rec.Headers = it.appendHeaders(make([]Header, 0, it.headerCount))
		it.lastHeaders = it.rec.Headers
	}
	return &it.rec
}

// RecordWithoutHeaders is the current record with nil Headers, allocating
// nothing; Headers walks the headers.
func (it *RecordIter) RecordWithoutHeaders() *Record {
	r := &it.rec
	if r.Headers != nil {
		r.Headers = nil
	}
	return r
}

// Headers walks the current record's headers without allocating.
func (it *RecordIter) Headers() HeaderIter {
	return HeaderIter{dec: decoder{b: it.dec.b[it.headersAt:it.headersEnd]}, left: it.headerCount}
}

// appendHeaders decodes the current record's headers onto dst.
func (it *RecordIter) appendHeaders(dst []Header) []Header {
	start := len(dst)
	b, p := it.dec.b[it.headersAt:it.headersEnd], 0
	for i := range it.headerCount {
		var k, v []byte
		if k, v, p = headerAt(b, p); p < 0 {
			break
		}
		dst = append(dst, Header{Key: it.headerKey(i, k), Value: v})
	}
	it.lastHeaders = dst[start:]
	return dst
}

// headerKey is the current record's i-th header key k as a string: the
// last record's, when it is the same, rather than a new one.
func (it *RecordIter) headerKey(i int, k []byte) string {
	if i < len(it.lastHeaders) && it.lastHeaders[i].Key == string(k) {
		return it.lastHeaders[i].Key
	}
	return string(k)
}

// headerSlab is a new array for the headers of the current record (n)
// and of the records after it (left counts both): sized from n and held
// to what the bytes can hold; a record with more starts another.
func (it *RecordIter) headerSlab(n, left int) []Header {
	return make([]Header, 0, max(n, min(n*max(left, 1), len(it.batch.records)/2)))
}

// HeaderIter walks a record's headers, which its RecordIter has checked.
// Keys and values alias the batch's bytes.
type HeaderIter struct {
	dec        decoder
	left       int
	key, value []byte
}

// Len is the number of headers not yet walked.
func (h *HeaderIter) Len() int { return h.left }

// Next moves to the next header and reports whether there was one.
func (h *HeaderIter) Next() bool {
	if h.left <= 0 {
		return false
	}
	h.left--
	var p int
	if h.key, h.value, p = headerAt(h.dec.b, h.dec.pos); p < 0 {
		h.left = 0
		return false
	}
	h.dec.pos = p
	return true
}

// headerAt reads the header at b[p:], which RecordIter.Next has checked:
// its key, its value (nil for null) and the position after it, or -1 if
// it does not parse. Both fields are read in one call, the common varints
// inline (see fastV2).
func headerAt(b []byte, p int) (key, value []byte, next int) {
	at := p
	u, p := uvarintShort(b, at)
	n := wire.UnZigZag32(u)
	if p < 0 {
		n, p = varintAt(b, at)
	}
	if p < 0 || n < 0 || int(n) > len(b)-p {
		return nil, nil, -1
	}
	key = b[p : p+int(n) : p+int(n)]
	at = p + int(n)
	u, p = uvarintShort(b, at)
	n = wire.UnZigZag32(u)
	if p < 0 {
		n, p = varintAt(b, at)
	}
	if p < 0 || n < -1 || int(n) > len(b)-p {
		return nil, nil, -1
	}
	if n >= 0 {
		value = b[p : p+int(n) : p+int(n)]
		p += int(n)
	}
	return key, value, p
}

// Key is the current header's key.
func (h *HeaderIter) Key() []byte { return h.key }

// Value is the current header's value; nil is null.
func (h *HeaderIter) Value() []byte { return h.value }

// Err is the error that stopped the iteration, or nil at the normal end.
func (it *RecordIter) Err() error { return it.err }

// Next decodes the next record and reports whether there was one.
func (it *RecordIter) Next() bool { return it.next(&it.rec) }

// next decodes the next record into r: the iterator's own, or for Records
// the slot of its result, which saves a copy a record.
func (it *RecordIter) next(r *Record) bool {
	b := it.batch
	if it.err != nil {
		return false
	}
	if it.index >= int(b.NumRecords) {
		if b.Magic >= 2 && it.dec.pos != len(it.dec.b) {
			it.err = it.errAt(it.dec.pos, ErrInvalidLength, "%d bytes after the last record", len(it.dec.b)-it.dec.pos)
		}
		return false
	}
	if b.Magic >= 2 && it.fastV2(r) {
		it.index++
		return true
	}
	return it.slowNext(r)
}

// slowNext is next without the fast path: a legacy message, or a record
// that fastV2 declined, read through checkedV2.
func (it *RecordIter) slowNext(r *Record) bool {
	b := it.batch
	r.Headers, it.headerCount, it.collected = nil, 0, false
	var ok bool
	if b.Magic < 2 {
		ok = it.decodeLegacy(r)
	} else {
		ok = it.checkedV2(r)
	}
	if !ok {
		d := &it.dec
		it.err = it.errAt(d.failPos, d.failErr, "record %d %s", it.index, d.failWhat)
		return false
	}
	it.index++
	return true
}

// decodeLegacy reads the next message of a legacy entry's message set.
func (it *RecordIter) decodeLegacy(r *Record) bool {
	d, b := &it.dec, it.batch
	at := d.pos
	d.take(8, "offset")
	size := d.int32("message size")
	if d.ok() && (size < minLegacySizeV0 || int(size) > len(d.b)-d.pos) {
		d.fail(at+8, ErrInvalidLength, "message size")
	}
	if !d.ok() {
		return false
	}
	m, md := decodeLegacyMessage(d.b[at : d.pos+int(size)])
	d.pos += int(size)
	if !md.ok() {
		d.fail(at+md.failPos, md.failErr, md.failWhat)
		return false
	}
	ts := m.timestamp
	it.stored = ts
	if b.Magic >= 1 && b.Attributes.TimestampType() == LogAppendTime {
		ts = b.MaxTimestamp // a wrapper's timestamp
	}
	*r = Record{Offset: m.offset + it.shift, Timestamp: ts, Key: m.key, Value: m.value, Attributes: m.attributes}
	return true
}

// fastV2 reads one record: the varint length, then exactly that many
// bytes of attributes, deltas, key, value and headers. The headers are
// checked and counted against the batch's limit, and decoded only for
// Records (collect, see headersV2). It names no failure: it reports false
// at the first one, and checkedV2 reads that record again field by field,
// which names what is wrong and where. Its one- and two-byte varints are
// read inline, as a call spills every live register (BenchmarkRecordFloor
// value=100 op=iter: 372 instructions a record, against 472 at f47a8a0,
// which called a reader per field); the fields that are longer in real
// batches (lengths of 8 KiB and more, deltas of 8,192 and more) fall back
// to a call, a header's to checkedV2.
func (it *RecordIter) fastV2(r *Record) bool {
	d, b := &it.dec, it.batch
	// rec ends where the record does; positions are d.b's.
	u, p := uvarintShort(d.b, d.pos)
	length := wire.UnZigZag32(u)
	if p < 0 {
		length, p = varintAt(d.b, d.pos)
	}
	if p < 0 || length < minRecordLenV2-1 || int(length) > len(d.b)-p {
		return false
	}
	rec := d.b[:p+int(length)]
	attributes := rec[p]
	at := p + 1
	u, p = uvarintShort(rec, at)
	tsDelta := int64(wire.UnZigZag32(u))
	if p < 0 {
		tsDelta, p = varlongAt(rec, at)
	}
	at = p
	u, p = uvarintShort(rec, at)
	offsetDelta := wire.UnZigZag32(u)
	if p < 0 {
		offsetDelta, p = varintAt(rec, at)
	}

	at = p
	u, p = uvarintShort(rec, at)
	n := wire.UnZigZag32(u)
	if p < 0 {
		n, p = varintAt(rec, at)
	}
	if p < 0 || n < -1 || int(n) > len(rec)-p {
		return false
	}
	var key []byte
	if n >= 0 {
		key = rec[p : p+int(n) : p+int(n)]
		p += int(n)
	}
	at = p
	u, p = uvarintShort(rec, at)
	n = wire.UnZigZag32(u)
	if p < 0 {
		n, p = varintAt(rec, at)
	}
	if p < 0 || n < -1 || int(n) > len(rec)-p {
		return false
	}
	var value []byte
	if n >= 0 {
		value = rec[p : p+int(n) : p+int(n)]
		p += int(n)
	}

	u, p = uvarintShort(rec, p)
	count := int(wire.UnZigZag32(u))
	// A failed read gives count 0 and p -1, which the check below
	// refuses; headersV2 checks headers before it sizes anything from
	// the count.
	if count < 0 || count > it.headersLeft {
		return false
	}
	headersAt := p
	if count > 0 {
		p = it.headersV2(rec, p, count, it.collect)
	}
	if p != len(rec) {
		return false
	}
	it.headersAt, it.headersEnd, it.headerCount = headersAt, len(rec), count
	it.headersLeft -= count
	d.pos = len(rec)
	if r.Headers != nil {
		r.Headers = nil
	}
	r.Attributes, r.Key, r.Value = int8(attributes), key, value
	r.Offset = b.BaseOffset + int64(offsetDelta)
	it.stored = b.BaseTimestamp + tsDelta
	if b.Attributes.TimestampType() == LogAppendTime {
		r.Timestamp = b.MaxTimestamp
	} else {
		r.Timestamp = it.stored
	}
	return true
}

// headersV2 checks the count headers at rec[p:], which must end rec, for
// fastV2 and returns the position after them, or -1. With collect it
// also builds them, onto the slab, which it keeps only if they all check;
// a new slab is made only for headers that have been checked. It is a
// call of its own so that records without headers, the most common, do
// not pay for it.
func (it *RecordIter) headersV2(rec []byte, p, count int, collect bool) int {
	slab := it.slab
	if collect && count > cap(slab)-len(slab) {
		if it.headersV2(rec, p, count, false) < 0 {
			return -1
		}
		slab = it.headerSlab(count, int(it.batch.NumRecords)-it.index)
	}
	start := len(slab)
	// headerAt's reads, inline and without its long-length call (a header
	// field of 8 KiB or more goes to checkedV2): calling headerAt here
	// cost 8 % on BenchmarkRecordFloor value=100/headers=3 op=records and
	// 14 % on op=iter.
	for i := range count {
		u, q := uvarintShort(rec, p)
		n := wire.UnZigZag32(u)
		if q < 0 || n < 0 || int(n) > len(rec)-q { // a null key is refused
			return -1
		}
		k := rec[q : q+int(n)]
		u, q = uvarintShort(rec, q+int(n))
		n = wire.UnZigZag32(u)
		if q < 0 || n < -1 || int(n) > len(rec)-q {
			return -1
		}
		if collect {
			var v []byte
			if n >= 0 {
				v = rec[q : q+int(n) : q+int(n)]
			}
			slab = append(slab, Header{Key: it.headerKey(i, k), Value: v})
		}
		p = q + max(int(n), 0)
	}
	if p != len(rec) {
		return -1 // bytes after the headers: nothing is kept
	}
	if collect {
		it.slab, it.lastHeaders = slab, slab[start:]
	}
	it.collected = collect
	return p
}

// checkedV2 reads what fastV2 reads, every varint length included, field
// by field through the decoder, which records the first failure.
func (it *RecordIter) checkedV2(r *Record) bool {
	d, b := &it.dec, it.batch
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
	if d.ok() && int(count) > it.headersLeft {
		d.fail(countPos, ErrTooLarge, "header count: the batch passes its header limit")
	}
	headersAt := d.pos
	for range count {
		if !d.ok() {
			break
		}
		keyPos := d.pos
		if key := d.varBytes("header key"); d.ok() && key == nil {
			d.fail(keyPos, ErrCorrupt, "header key is null")
		}
		d.varBytes("header value")
	}
	if d.ok() && d.pos != len(d.b) {
		d.fail(lenPos, ErrInvalidLength, "length (does not match its fields)")
	}
	it.headersAt, it.headersEnd = headersAt, d.pos
	d.b = all
	if !d.ok() {
		return false
	}
	it.headerCount = int(count)
	it.headersLeft -= int(count)
	r.Offset = b.BaseOffset + int64(offsetDelta)
	it.stored = b.BaseTimestamp + tsDelta
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
	// An uncompressed records section is the tail of the entry.
	return errAt(b.pos+len(b.Raw)-len(b.records)+pos, sentinel, format, args...)
}

// appendRecordV2 encodes r as a record of a v2 batch.
func appendRecordV2(dst []byte, r *Record, offsetDelta int32, timestampDelta int64) []byte {
	length := 1 + wire.SizeVarlong(timestampDelta) + wire.SizeVarint(offsetDelta) +
		sizeVarBytes(r.Key) + sizeVarBytes(r.Value) + wire.SizeVarint(int32(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		length += wire.SizeVarint(int32(len(h.Key))) + len(h.Key) + sizeVarBytes(h.Value)
	}
	dst = wire.AppendVarint(dst, int32(length))
	dst = append(dst, byte(r.Attributes))
	dst = wire.AppendVarlong(dst, timestampDelta)
	dst = wire.AppendVarint(dst, offsetDelta)
	dst = appendVarBytes(dst, r.Key)
	dst = appendVarBytes(dst, r.Value)
	dst = wire.AppendVarint(dst, int32(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		dst = wire.AppendVarint(dst, int32(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = appendVarBytes(dst, h.Value)
	}
	return dst
}

func sizeVarBytes(b []byte) int {
	if b == nil {
		return 1
	}
	return wire.SizeVarint(int32(len(b))) + len(b)
}

func appendVarBytes(dst, b []byte) []byte {
	if b == nil {
		return wire.AppendVarint(dst, -1)
	}
	return append(wire.AppendVarint(dst, int32(len(b))), b...)
}
