package pretty

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
)

// recordsForm is a records field: null; a summary (the default); the
// batches in full (WithRecords); or its bytes in base64 (WithRawRecords).
type recordsForm struct{}

func (recordsForm) write(w *jsonWriter, _ *kwire.Field, v reflect.Value) {
	b := v.Bytes()
	switch {
	case b == nil:
		w.buf = append(w.buf, "null"...)
	case w.opts.rawRecords:
		w.buf = appendBase64(w.buf, b)
	case w.opts.records:
		w.appendRecordsDetail(b)
	default:
		w.buf = appendRecordsSummary(w.buf, b)
	}
}

func (recordsForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, t json.Token) error {
	switch t {
	case nil:
		v.SetZero()
		return nil
	case json.Delim('{'):
		b, err := r.recordSet()
		if err != nil {
			return err
		}
		v.SetBytes(b)
		return nil
	}
	b, err := r.base64(t)
	if err != nil {
		return r.mismatch("null, a records object or base64", t)
	}
	v.SetBytes(b)
	return nil
}

// recordStats is what a summary says of a record set.
type recordStats struct {
	batches, records, bytes int
	codecs                  []record.Codec // distinct, in order of appearance
	partial                 bool
	err                     error
}

func (s *recordStats) add(data []byte) {
	s.bytes += len(data)
	r := record.NewReader(data)
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if s.err == nil {
				s.err = err
			}
			break
		}
		s.batches++
		s.records += int(b.NumRecords)
		if c := b.Attributes.Codec(); !slices.Contains(s.codecs, c) {
			s.codecs = append(s.codecs, c)
		}
		b.Release() // its decompression buffer serves the next batch
	}
	s.partial = s.partial || r.Partial()
}

// codec is the codec of every batch, or the distinct codecs joined by
// commas, or "" when there are no batches.
func (s *recordStats) codec() string {
	names := make([]string, len(s.codecs))
	for i, c := range s.codecs {
		names[i] = c.String()
	}
	return strings.Join(names, ",")
}

func appendRecordsSummary(dst, data []byte) []byte {
	var s recordStats
	s.add(data)
	dst = append(dst, `{"Batches":`...)
	dst = strconv.AppendInt(dst, int64(s.batches), 10)
	dst = append(dst, `,"Records":`...)
	dst = strconv.AppendInt(dst, int64(s.records), 10)
	if c := s.codec(); c != "" {
		dst = append(dst, `,"Codec":`...)
		dst = appendString(dst, c)
	}
	dst = append(dst, `,"Bytes":`...)
	dst = strconv.AppendInt(dst, int64(s.bytes), 10)
	return appendTail(dst, s.partial, s.err)
}

// appendTail closes a records object, noting a partial tail or an error.
func appendTail(dst []byte, partial bool, err error) []byte {
	if partial {
		dst = append(dst, `,"Partial":true`...)
	}
	if err != nil {
		dst = append(dst, `,"Error":`...)
		dst = appendString(dst, err.Error())
	}
	return append(dst, '}')
}

// Records in full take at most fullRecordsSlack bytes of JSON and
// fullRecordsPerByte for every byte of records fields in the message:
// a few KiB of zstd can stand for gigabytes of records.
const (
	fullRecordsSlack   = 8 << 20
	fullRecordsPerByte = 32
)

// errFullRecordsBudget cuts records in full at the budget.
var errFullRecordsBudget = fmt.Errorf("the rest is left out: records in full may take %d MiB of JSON and %d bytes for each byte of records (WithRawRecords, -raw-records, shows them all)",
	fullRecordsSlack>>20, fullRecordsPerByte)

// appendRecordsDetail writes the batches of data in full, within the
// budget: each batch may decompress to what is left of it, and the set
// stops (with an Error) once it is spent.
func (w *jsonWriter) appendRecordsDetail(data []byte) {
	if w.fullRecordsAllowed == 0 {
		w.fullRecordsAllowed = fullRecordsSlack
	}
	w.fullRecordsAllowed += fullRecordsPerByte * len(data)
	dst := w.buf
	dst = append(dst, `{"Bytes":`...)
	dst = strconv.AppendInt(dst, int64(len(data)), 10)
	dst = append(dst, `,"Batches":[`...)
	r := record.NewReader(data)
	var failed error
	for n := 0; ; n++ {
		left := w.fullRecordsAllowed - w.fullRecords
		if left <= 0 {
			failed = errFullRecordsBudget
			break
		}
		r.MaxDecompressedSize = min(left, record.DefaultMaxDecompressedSize)
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, record.ErrTooLarge) && left < record.DefaultMaxDecompressedSize {
			failed = errFullRecordsBudget
			break
		}
		if err != nil {
			failed = err
			break
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		before := len(dst)
		dst, err = appendBatch(dst, b)
		b.Release() // the JSON holds copies of the records
		w.fullRecords += len(dst) - before
		if err != nil {
			failed = err
			break
		}
	}
	dst = append(dst, ']')
	w.buf = appendTail(dst, r.Partial(), failed)
}

// recordSet reads a records object, after its '{': the full form is
// rebuilt; a summary only when it says the set is empty.
func (r *jsonReader) recordSet() ([]byte, error) {
	var (
		out                    []byte
		full, summary, partial bool
		summaryBytes           int64
		setErr                 *string
	)
	start := r.at
	err := r.fields(func(key string, t json.Token) error {
		switch key {
		case "Bytes":
			n, err := r.int(t, 64)
			summaryBytes = n
			return err
		case "Batches":
			if _, ok := t.(json.Number); ok {
				summary = true
				_, err := r.int(t, 64)
				return err
			}
			if t != json.Delim('[') {
				return r.mismatch("an array of batches", t)
			}
			full = true
			return r.array(-1, func(_ int, t json.Token) error {
				if t != json.Delim('{') {
					return r.mismatch("a batch object", t)
				}
				var err error
				out, err = r.batch(out)
				return err
			})
		case "Records":
			summary = true
			_, err := r.int(t, 64)
			return err
		case "Codec":
			summary = true
			if _, ok := t.(string); !ok {
				return r.mismatch("a string", t)
			}
			return nil
		case "Partial":
			b, ok := t.(bool)
			if !ok {
				return r.mismatch("true or false", t)
			}
			partial = b
			return nil
		case "Error":
			s, ok := t.(string)
			if !ok {
				return r.mismatch("a string", t)
			}
			setErr = &s
			return nil
		}
		return r.unknownKey(key, "Bytes, Batches, Partial, Error (full); Batches, Records, Codec, Bytes (summary)")
	})
	switch {
	case err != nil:
		return nil, err
	case full && summary:
		return nil, r.failAt(start, ErrJSONValue, "records mix the summary and the full form")
	case setErr != nil:
		return nil, r.failAt(start, ErrJSONValue, "records that did not parse (%s) cannot be rebuilt: write them with WithRawRecords (on the command line, -json -raw-records)", *setErr)
	case partial:
		return nil, r.failAt(start, ErrJSONValue, "records cut short (Partial) cannot be rebuilt: the cut batch is not in the JSON; write them with WithRawRecords (on the command line, -json -raw-records)")
	case !full && summaryBytes != 0:
		return nil, r.failAt(start, ErrJSONValue, "a records summary (%d bytes) cannot be read back: write them with WithRecords or WithRawRecords (on the command line, -json -records or -json -raw-records)", summaryBytes)
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// batchDraft is a batch as its JSON is read: the header, the records, and
// which header fields were given (the others are derived when it is
// rebuilt).
type batchDraft struct {
	hdr                                   record.Batch
	codec                                 record.Codec
	tsType                                record.TimestampType
	transactional, control, deleteHorizon bool
	records                               []record.Record
	meta                                  []recordMeta // one a record
	given                                 map[string]bool
}

// objectMember is one key of an object whose JSON a table of members
// defines, in the order JSON writes them: written from a W, read into an
// R. batchMembers and recordMembers are such tables.
type objectMember[W, R any] struct {
	name  string
	omit  func(v W) bool               // nil: always written
	write func(dst []byte, v W) []byte // nil: the caller writes it, last
	read  func(r *jsonReader, v R, t json.Token) error
}

// appendMembers writes '{' and the members of v the table writes; the
// caller closes the object.
func appendMembers[W, R any](dst []byte, ms []objectMember[W, R], v W) []byte {
	dst = append(dst, '{')
	first := true
	for _, m := range ms {
		if m.write == nil || (m.omit != nil && m.omit(v)) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendString(dst, m.name)
		dst = append(dst, ':')
		dst = m.write(dst, v)
	}
	return dst
}

// readMembers reads an object's members, after its '{', into v, noting
// the keys given in given (when not nil).
func readMembers[W, R any](r *jsonReader, ms []objectMember[W, R], v R, given map[string]bool) error {
	return r.fields(func(key string, t json.Token) error {
		for _, m := range ms {
			if m.name == key {
				if given != nil {
					given[key] = true
				}
				return m.read(r, v, t)
			}
		}
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.name
		}
		return r.unknownKey(key, strings.Join(names, ", "))
	})
}

type batchMember = objectMember[*record.Batch, *batchDraft]

func intMember[T int8 | int16 | int32 | int64 | uint32](name string, bits int, field func(b *record.Batch) *T) batchMember {
	return batchMember{name: name,
		write: func(dst []byte, b *record.Batch) []byte { return appendInt(dst, int64(*field(b))) },
		read: func(r *jsonReader, d *batchDraft, t json.Token) error {
			n, err := r.int(t, bits)
			if err == nil && (T(n) < 0) != (n < 0) { // a uint32 from a negative number
				err = r.fail(kwire.ErrValueOutOfRange, "%d is negative", n)
			}
			*field(&d.hdr) = T(n)
			return err
		}}
}

// flagMember is an attributes bit; omitted, when rarely set, unless true.
func flagMember(name string, get func(a record.Attributes) bool, set func(d *batchDraft) *bool, rare bool) batchMember {
	m := batchMember{name: name,
		write: func(dst []byte, b *record.Batch) []byte { return strconv.AppendBool(dst, get(b.Attributes)) },
		read: func(r *jsonReader, d *batchDraft, t json.Token) error {
			v, ok := t.(bool)
			if !ok {
				return r.mismatch("true or false", t)
			}
			*set(d) = v
			return nil
		}}
	if rare {
		m.omit = func(b *record.Batch) bool { return !get(b.Attributes) }
	}
	return m
}

// namedMember is a value written as its name (a codec, a timestamp type).
func namedMember[T interface {
	~int8
	String() string
}](name string, get func(b *record.Batch) T, set func(d *batchDraft) *T, last T) batchMember {
	return batchMember{name: name,
		write: func(dst []byte, b *record.Batch) []byte { return appendString(dst, get(b).String()) },
		read: func(r *jsonReader, d *batchDraft, t json.Token) error {
			s, ok := t.(string)
			if !ok {
				return r.mismatch("a string", t)
			}
			var names []string
			for v := T(0); v <= last; v++ {
				if v.String() == s {
					*set(d) = v
					return nil
				}
				names = append(names, v.String())
			}
			return r.fail(ErrJSONValue, "%q is not one of %s", s, strings.Join(names, ", "))
		}}
}

var batchMembers []batchMember

func init() {
	batchMembers = []batchMember{
		intMember("BaseOffset", 64, func(b *record.Batch) *int64 { return &b.BaseOffset }),
		intMember("Magic", 8, func(b *record.Batch) *int8 { return &b.Magic }),
		namedMember("Codec", func(b *record.Batch) record.Codec { return b.Attributes.Codec() },
			func(d *batchDraft) *record.Codec { return &d.codec }, record.CodecZstd),
		namedMember("TimestampType", func(b *record.Batch) record.TimestampType { return b.Attributes.TimestampType() },
			func(d *batchDraft) *record.TimestampType { return &d.tsType }, record.LogAppendTime),
		flagMember("Transactional", record.Attributes.Transactional, func(d *batchDraft) *bool { return &d.transactional }, false),
		flagMember("Control", record.Attributes.Control, func(d *batchDraft) *bool { return &d.control }, false),
		flagMember("DeleteHorizon", record.Attributes.HasDeleteHorizon, func(d *batchDraft) *bool { return &d.deleteHorizon }, true),
		intMember("PartitionLeaderEpoch", 32, func(b *record.Batch) *int32 { return &b.PartitionLeaderEpoch }),
		intMember("ProducerID", 64, func(b *record.Batch) *int64 { return &b.ProducerID }),
		intMember("ProducerEpoch", 16, func(b *record.Batch) *int16 { return &b.ProducerEpoch }),
		intMember("BaseSequence", 32, func(b *record.Batch) *int32 { return &b.BaseSequence }),
		intMember("LastOffsetDelta", 32, func(b *record.Batch) *int32 { return &b.LastOffsetDelta }),
		intMember("BaseTimestamp", 64, func(b *record.Batch) *int64 { return &b.BaseTimestamp }),
		intMember("MaxTimestamp", 64, func(b *record.Batch) *int64 { return &b.MaxTimestamp }),
		intMember("CRC", 33, func(b *record.Batch) *uint32 { return &b.CRC }),
		intMember("NumRecords", 32, func(b *record.Batch) *int32 { return &b.NumRecords }),
		// Records is written last by appendBatch, whose iteration can fail.
		{name: "Records", read: (*jsonReader).batchRecords},
	}
}

// appendBatch writes a batch's header and records; an error in the
// records ends the list and is returned for the set's Error.
func appendBatch(dst []byte, b *record.Batch) ([]byte, error) {
	dst = appendMembers(dst, batchMembers, b)
	dst = append(dst, `,"Records":[`...)
	it := b.Iter()
	for n := 0; it.Next(); n++ {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = appendRecord(dst, &jsonRecord{it.Record(), &recordMeta{stored: it.StoredTimestamp()}})
	}
	dst = append(dst, "]}"...)
	return dst, it.Err()
}

// batch reads one batch object, after its '{', and appends it rebuilt.
func (r *jsonReader) batch(dst []byte) ([]byte, error) {
	d := batchDraft{given: map[string]bool{}}
	start := r.at
	if err := readMembers(r, batchMembers, &d, d.given); err != nil {
		return dst, err
	}
	d.fillDerived()
	for i, m := range d.meta {
		if m.storedGiven {
			d.records[i].Timestamp = m.stored
		}
	}
	out, err := record.AppendBatchLike(dst, &d.hdr, d.records)
	if err != nil {
		return dst, r.failAt(start, ErrJSONValue, "the batch cannot be built: %v", err)
	}
	return out, nil
}

// fillDerived gives the header fields left out what a producer sends and
// what the records say.
func (d *batchDraft) fillDerived() {
	h := &d.hdr
	if !d.given["Magic"] {
		h.Magic = 2
	}
	if !d.given["PartitionLeaderEpoch"] {
		h.PartitionLeaderEpoch = -1
	}
	if !d.given["ProducerID"] {
		h.ProducerID = -1
	}
	if !d.given["ProducerEpoch"] {
		h.ProducerEpoch = -1
	}
	if !d.given["BaseSequence"] {
		h.BaseSequence = -1
	}
	for i := range d.records {
		if !d.meta[i].offsetGiven {
			d.records[i].Offset = h.BaseOffset + int64(i)
		}
	}
	if !d.given["LastOffsetDelta"] {
		h.LastOffsetDelta = -1
		for _, rec := range d.records {
			h.LastOffsetDelta = max(h.LastOffsetDelta, int32(rec.Offset-h.BaseOffset))
		}
	}
	if !d.given["BaseTimestamp"] {
		h.BaseTimestamp = -1
		if len(d.records) > 0 {
			h.BaseTimestamp = d.records[0].Timestamp
		}
	}
	if !d.given["MaxTimestamp"] {
		h.MaxTimestamp = -1
		for _, rec := range d.records {
			h.MaxTimestamp = max(h.MaxTimestamp, rec.Timestamp)
		}
	}
	h.Attributes = record.MakeAttributes(d.codec, d.tsType, d.transactional, d.control, d.deleteHorizon)
}

// jsonRecord is a record as JSON shows it: the record as a Reader gives
// it, and what else its JSON says (recordMeta).
type jsonRecord struct {
	*record.Record
	*recordMeta
}

// recordMeta is the timestamp a record's bytes hold, shown as
// CreateTimestamp where it differs (in a LogAppendTime batch, Timestamp is
// the batch's time), and, when read, which fields the JSON gave.
type recordMeta struct {
	stored                   int64
	offsetGiven, storedGiven bool
}

type recordMember = objectMember[*jsonRecord, *jsonRecord]

var recordMembers = []recordMember{
	{name: "Offset", write: func(dst []byte, rec *jsonRecord) []byte { return appendInt(dst, rec.Offset) },
		read: func(r *jsonReader, rec *jsonRecord, t json.Token) (err error) {
			rec.Offset, err = r.int(t, 64)
			rec.offsetGiven = true
			return
		}},
	{name: "Timestamp", write: func(dst []byte, rec *jsonRecord) []byte { return appendInt(dst, rec.Timestamp) },
		read: func(r *jsonReader, rec *jsonRecord, t json.Token) (err error) {
			rec.Timestamp, err = r.int(t, 64)
			return
		}},
	{name: "CreateTimestamp", omit: func(rec *jsonRecord) bool { return rec.stored == rec.Timestamp },
		write: func(dst []byte, rec *jsonRecord) []byte { return appendInt(dst, rec.stored) },
		read: func(r *jsonReader, rec *jsonRecord, t json.Token) (err error) {
			rec.stored, err = r.int(t, 64)
			rec.storedGiven = true
			return
		}},
	// Kafka defines no record attributes: shown only when some are set.
	{name: "Attributes", omit: func(rec *jsonRecord) bool { return rec.Attributes == 0 },
		write: func(dst []byte, rec *jsonRecord) []byte { return appendInt(dst, int64(rec.Attributes)) },
		read: func(r *jsonReader, rec *jsonRecord, t json.Token) error {
			n, err := r.int(t, 8)
			rec.Attributes = int8(n)
			return err
		}},
	{name: "Key", write: func(dst []byte, rec *jsonRecord) []byte { return appendPayload(dst, rec.Key) },
		read: func(r *jsonReader, rec *jsonRecord, t json.Token) (err error) { rec.Key, err = r.payload(t); return }},
	{name: "Value", write: func(dst []byte, rec *jsonRecord) []byte { return appendPayload(dst, rec.Value) },
		read: func(r *jsonReader, rec *jsonRecord, t json.Token) (err error) { rec.Value, err = r.payload(t); return }},
	{name: "Headers", write: appendHeaders, read: (*jsonReader).headers},
}

func appendRecord(dst []byte, rec *jsonRecord) []byte {
	return append(appendMembers(dst, recordMembers, rec), '}')
}

// recordSize is what one record read takes.
var recordSize = reflect.TypeOf(record.Record{}).Size() + reflect.TypeOf(recordMeta{}).Size()

// batchRecords reads a batch's Records array.
func (r *jsonReader) batchRecords(d *batchDraft, t json.Token) error {
	if t != json.Delim('[') {
		return r.mismatch("an array of records", t)
	}
	n, err := r.sized(recordSize)
	if err != nil {
		return err
	}
	d.records, d.meta = make([]record.Record, n), make([]recordMeta, n)
	return r.array(n, func(i int, t json.Token) error {
		if t != json.Delim('{') {
			return r.mismatch("a record object", t)
		}
		return readMembers(r, recordMembers, &jsonRecord{&d.records[i], &d.meta[i]}, nil)
	})
}

func appendHeaders(dst []byte, rec *jsonRecord) []byte {
	dst = append(dst, '[')
	for i, h := range rec.Headers {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"Key":`...)
		dst = appendString(dst, h.Key)
		dst = append(dst, `,"Value":`...)
		dst = appendPayload(dst, h.Value)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func (r *jsonReader) headers(rec *jsonRecord, t json.Token) error {
	if t != json.Delim('[') {
		return r.mismatch("an array of headers", t)
	}
	n, err := r.sized(reflect.TypeOf(record.Header{}).Size())
	if err != nil {
		return err
	}
	rec.Headers = make([]record.Header, 0, n)
	return r.array(n, func(_ int, t json.Token) error {
		if t != json.Delim('{') {
			return r.mismatch(`a header {"Key","Value"}`, t)
		}
		var h record.Header
		err := r.fields(func(key string, t json.Token) (err error) {
			switch key {
			case "Key":
				s, ok := t.(string)
				if !ok {
					return r.mismatch("a string", t)
				}
				h.Key = s
				return nil
			case "Value":
				h.Value, err = r.payload(t)
				return err
			}
			return r.unknownKey(key, "Key, Value")
		})
		rec.Headers = append(rec.Headers, h)
		return err
	})
}

// appendPayload writes a record key, value or header value: text when it
// is UTF-8, base64 in an object when it is not, null when null.
func appendPayload(dst, b []byte) []byte {
	switch {
	case b == nil:
		return append(dst, "null"...)
	case utf8.Valid(b):
		return appendString(dst, string(b))
	}
	dst = append(dst, `{"Base64":`...)
	dst = appendBase64(dst, b)
	return append(dst, '}')
}

// payload reads what appendPayload writes.
func (r *jsonReader) payload(t json.Token) ([]byte, error) {
	switch t := t.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(t), nil
	case json.Delim:
		if t != '{' {
			break
		}
		var b []byte
		err := r.fields(func(key string, t json.Token) (err error) {
			if key != "Base64" {
				return r.unknownKey(key, "Base64")
			}
			b, err = r.base64(t)
			return err
		})
		if err == nil && b == nil {
			err = r.fail(ErrJSONValue, `want {"Base64":"..."}`)
		}
		return b, err
	}
	return nil, r.mismatch(`a string, {"Base64":"..."} or null`, t)
}
