package kwire

import "fmt"

// Decoder decodes with options. Its zero value is what Unmarshal,
// ReadRequest and ReadResponse do; a Decoder is a plain value, safe to
// share and to copy.
//
//	dec := kwire.Decoder{MaxAlloc: 64 << 20}
//	hdr, body, err := dec.ReadRequest(frame, newBody)
//	if errors.Is(err, kwire.ErrTooLarge) { ... }
type Decoder struct {
	// MaxAlloc bounds the bytes one call may allocate for the decoded
	// value: strings, byte slices, arrays, structs behind pointers and
	// kept tagged fields, counted as requested (Go's size classes round
	// some up a little). A call that would need more fails with
	// ErrTooLarge before it allocates them. 0 or less: no bound beyond
	// the one every decode has (nothing is allocated for a length the
	// bytes left cannot hold).
	MaxAlloc int

	// Exact refuses the forms Kafka's Java reader accepts but encoding
	// would not write back byte for byte: a varint longer than it needs
	// to be (ErrBadVarint), a bool byte other than 0 and 1, and a
	// nullable struct's presence marker other than 1 and -1
	// (ErrValueOutOfRange, ErrInvalidLength). What an exact decode
	// accepts, encoding gives back unchanged.
	Exact bool

	// KafkaLimits holds decoding to the limits Kafka's own reader
	// enforces (Kafka 4.4 on): an array or collection of more than
	// 1,000,000 elements, or a tagged-field section of more than 10,000
	// fields, is refused (ErrKafkaLimit, an ErrTooLarge) before anything
	// is allocated for it. A broker refuses such a frame; without the
	// option kwire reads it if its bytes are there. The proxy decodes
	// with it on.
	//
	// kwire's own bounds, beside Kafka's: a length (string, bytes, array,
	// tagged section) that the bytes left cannot hold is refused before
	// allocation, always; Kafka's reader finds that out only when it
	// runs out of bytes, having allocated up to 1,000 elements of an
	// array first, so kwire is the stricter there. An array whose bytes
	// are there kwire allocates whole, at once (no more elements than
	// the bytes left hold at the element's smallest wire size), where
	// Kafka starts at a capacity of at most 1,000 and grows as it reads:
	// both end at the same memory for a frame they accept, and kwire
	// does not imitate the growth. MaxAlloc has no Kafka counterpart
	// (stricter, when set); without KafkaLimits kwire takes counts and
	// tagged sections of any size the bytes hold (looser).
	KafkaLimits bool
}

// Kafka's reader limits (Decoder.KafkaLimits).
const (
	kafkaMaxElements  = 1_000_000
	kafkaMaxTagFields = 10_000
)

// Unmarshal decodes a message body into msg, a pointer to a struct, which
// is reset first. Fields the version lacks, and tagged fields that are not
// sent, get their schema defaults. Bytes left over are an error (msg
// holds what was read); after any other error in the body msg holds its
// zero value. Strings do not alias data; records fields do.
func (dc Decoder) Unmarshal(data []byte, msg any, version int16) error {
	pl, p := cachedRootPlan(msg, version)
	if pl == nil {
		var err error
		if pl, p, err = messagePlanSlow(msg, version, "unmarshal", writeValue); err != nil {
			return err
		}
	}
	var d decodeState
	dc.start(&d, data)
	if err := d.decodeBody(pl, p); err != nil {
		return publicError("unmarshal", pl.typ.String(), err)
	}
	if d.off != len(data) {
		return &Error{Op: "unmarshal", Type: pl.typ.String(), Offset: d.off, Err: ErrTrailingBytes, Detail: fmt.Sprintf("%d bytes", len(data)-d.off)}
	}
	return nil
}

// ReadRequest reads a request frame (size prefix included). newBody is
// given the API key and version from the header and returns a pointer to
// the struct to decode the body into; its tags decide the header version.
func (dc Decoder) ReadRequest(frame []byte, newBody func(apiKey, version int16) (any, error)) (RequestHeader, any, error) {
	var h RequestHeader
	rest, err := frameBody(frame)
	if err != nil {
		return h, nil, err
	}
	var d decodeState
	dc.start(&d, rest)
	if err := d.readRequestHead(&h); err != nil {
		return h, nil, headerError("RequestHeader", err)
	}
	body, err := newBody(h.APIKey, h.APIVersion)
	if err != nil {
		return h, nil, err
	}
	pl, p := cachedRootPlan(body, h.APIVersion)
	if pl == nil {
		if pl, p, err = requestBodyPlan(body, h.APIVersion, "unmarshal", writeValue); err != nil {
			return h, nil, err
		}
	}
	h.Version = pl.reqHeader
	if h := pl.strHint.Load(); h != 0 {
		d.firstChunk(h) // for the client id and the body
	}
	if err := d.readRequestHeaderRest(&h); err != nil {
		return h, nil, headerError("RequestHeader", err)
	}
	// The body is read by the same decoder, so header and body strings
	// share arena chunks; offsets count from after the size prefix.
	if err := d.decodeBody(pl, p); err != nil {
		return h, nil, publicError("unmarshal", pl.typ.String(), shiftOffset(err, 4))
	}
	if d.off != len(rest) {
		return h, nil, &Error{Op: "unmarshal", Type: pl.typ.String(), Offset: 4 + d.off, Err: ErrTrailingBytes,
			Detail: fmt.Sprintf("%d bytes", len(rest)-d.off)}
	}
	return h, body, nil
}

// ReadResponse reads a response frame (size prefix included) into msg, a
// pointer to the response struct of the request's API at version.
func (dc Decoder) ReadResponse(frame []byte, msg any, version int16) (ResponseHeader, error) {
	rest, pl, p, h, err := responseFrame(frame, msg, version, "unmarshal", writeValue)
	if err != nil {
		return h, err
	}
	var d decodeState
	dc.start(&d, rest)
	if err := d.readResponseHeader(&h); err != nil {
		return h, headerError("ResponseHeader", err)
	}
	if err := d.decodeBody(pl, p); err != nil {
		return h, publicError("unmarshal", pl.typ.String(), shiftOffset(err, 4))
	}
	if d.off != len(rest) {
		return h, &Error{Op: "unmarshal", Type: pl.typ.String(), Offset: 4 + d.off, Err: ErrTrailingBytes,
			Detail: fmt.Sprintf("%d bytes", len(rest)-d.off)}
	}
	return h, nil
}
