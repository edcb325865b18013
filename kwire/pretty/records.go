package pretty

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwirelabs/kwire/kwire/record"
)

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

func appendRecordsDetail(dst, data []byte) []byte {
	dst = append(dst, `{"Bytes":`...)
	dst = strconv.AppendInt(dst, int64(len(data)), 10)
	dst = append(dst, `,"Batches":[`...)
	r := record.NewReader(data)
	var failed error
	for n := 0; ; n++ {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			failed = err
			break
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst, err = appendBatch(dst, b)
		if err != nil {
			failed = err
			break
		}
	}
	dst = append(dst, ']')
	return appendTail(dst, r.Partial(), failed)
}

// appendBatch writes a batch's header and records; an error in the
// records ends the list and is returned for the set's Error.
func appendBatch(dst []byte, b *record.Batch) ([]byte, error) {
	num := func(name string, v int64) {
		dst = append(dst, ',', '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
		dst = strconv.AppendInt(dst, v, 10)
	}
	flag := func(name string, v bool) {
		dst = append(dst, ',', '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
		dst = strconv.AppendBool(dst, v)
	}
	dst = append(dst, `{"BaseOffset":`...)
	dst = strconv.AppendInt(dst, b.BaseOffset, 10)
	num("Magic", int64(b.Magic))
	dst = append(dst, `,"Codec":`...)
	dst = appendString(dst, b.Attributes.Codec().String())
	dst = append(dst, `,"TimestampType":`...)
	dst = appendString(dst, b.Attributes.TimestampType().String())
	flag("Transactional", b.Attributes.Transactional())
	flag("Control", b.Attributes.Control())
	num("PartitionLeaderEpoch", int64(b.PartitionLeaderEpoch))
	num("ProducerID", b.ProducerID)
	num("ProducerEpoch", int64(b.ProducerEpoch))
	num("BaseSequence", int64(b.BaseSequence))
	num("LastOffsetDelta", int64(b.LastOffsetDelta))
	num("BaseTimestamp", b.BaseTimestamp)
	num("MaxTimestamp", b.MaxTimestamp)
	num("CRC", int64(b.CRC))
	num("NumRecords", int64(b.NumRecords))
	dst = append(dst, `,"Records":[`...)
	it := b.Iter()
	for n := 0; it.Next(); n++ {
		rec := it.Record()
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"Offset":`...)
		dst = strconv.AppendInt(dst, rec.Offset, 10)
		dst = append(dst, `,"Timestamp":`...)
		dst = strconv.AppendInt(dst, rec.Timestamp, 10)
		dst = append(dst, `,"Key":`...)
		dst = appendPayload(dst, rec.Key)
		dst = append(dst, `,"Value":`...)
		dst = appendPayload(dst, rec.Value)
		dst = append(dst, `,"Headers":[`...)
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
		dst = append(dst, "]}"...)
	}
	dst = append(dst, "]}"...)
	return dst, it.Err()
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
