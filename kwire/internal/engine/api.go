package engine

// The engine's entry points: each exported function here is the body of
// the kwire function of the same name (kwire/api.go, decoder.go,
// frame.go), which documents it. They find the message's plan
// (message.go) and run the loops (encode.go, decode.go, size.go) on it.

import (
	"encoding/binary"
	"errors"
	"fmt"

	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// Marshal is kwire.Marshal.
func Marshal(msg any, version int16) ([]byte, error) {
	pl, p, err := messagePlan(msg, version, "marshal", readValue)
	if err != nil {
		return nil, err
	}
	n, err := sizeStruct(pl, p) // fails where encodeStruct would: the same error
	if err != nil {
		return nil, marshalError(pl, err)
	}
	out, err := encodeStruct(make([]byte, 0, n), pl, p)
	if err != nil {
		return nil, marshalError(pl, err)
	}
	return out, nil
}

// Append is kwire.Append.
func Append(dst []byte, msg any, version int16) ([]byte, error) {
	if pl, p := cachedRootPlan(msg, version); pl != nil {
		out, err := encodeStruct(dst, pl, p)
		if err != nil {
			return dst, marshalError(pl, err)
		}
		return out, nil
	}
	return appendSlow(dst, msg, version)
}

// appendSlow is Append for a message whose plan the hot front lacks.
func appendSlow(dst []byte, msg any, version int16) ([]byte, error) {
	pl, p, err := messagePlanSlow(msg, version, "marshal", readValue)
	if err != nil {
		return dst, err
	}
	out, err := encodeStruct(dst, pl, p)
	if err != nil {
		return dst, marshalError(pl, err)
	}
	return out, nil
}

// marshalError is the *Error an encode of a message of plan pl returns.
func marshalError(pl *plan, err error) error {
	return publicError("marshal", pl.typ.String(), err)
}

// Size is kwire.Size.
func Size(msg any, version int16) (int, error) {
	pl, p, err := messagePlan(msg, version, "size", readValue)
	if err != nil {
		return 0, err
	}
	n, err := sizeStruct(pl, p)
	if err != nil {
		return 0, publicError("size", pl.typ.String(), err)
	}
	return n, nil
}

// Options are kwire.Decoder's fields: the decoding options.
type Options struct {
	MaxAlloc int
	Exact    bool
}

// start readies d, a zero decodeState, to read src. Filling a zero value in
// place, rather than returning one, spares copying the whole decodeState.
func (dc Options) start(d *decodeState, src []byte) {
	d.src, d.limited, d.budget, d.exact = src, dc.MaxAlloc > 0, dc.MaxAlloc, dc.Exact
}

// decodeBody resets the message at p and decodes it with pl.
func (d *decodeState) decodeBody(pl *plan, p pointer) error {
	pl.reset(p)
	if h := pl.strHint.Load(); h != 0 && d.strBytes == 0 {
		d.firstChunk(h) // unless a request header's client id took one
	}
	if err := d.decodeStruct(pl, p); err != nil {
		resetAll(pl, p)
		return err
	}
	if d.strBytes != 0 {
		pl.noteStrings(d.stringsUsed())
	}
	return nil
}

// Unmarshal is kwire.Decoder.Unmarshal.
func Unmarshal(dc Options, data []byte, msg any, version int16) error {
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
		return public.Publish(&public.Error{Op: "unmarshal", Type: pl.typ.String(), Offset: d.off, Err: public.ErrTrailingBytes, Detail: fmt.Sprintf("%d bytes", len(data)-d.off)})
	}
	return nil
}

// ReadRequest is kwire.Decoder.ReadRequest.
func ReadRequest(dc Options, frame []byte, newBody func(apiKey, version int16) (any, error)) (public.RequestHeader, any, error) {
	var h public.RequestHeader
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
	h.Version = public.RequestHeaderVersion(h.APIKey, h.APIVersion, pl.flexible)
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
		return h, nil, public.Publish(&public.Error{Op: "unmarshal", Type: pl.typ.String(), Offset: 4 + d.off, Err: public.ErrTrailingBytes,
			Detail: fmt.Sprintf("%d bytes", len(rest)-d.off)})
	}
	return h, body, nil
}

// ReadResponse is kwire.Decoder.ReadResponse.
func ReadResponse(dc Options, frame []byte, msg any, version int16) (public.ResponseHeader, error) {
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
		return h, public.Publish(&public.Error{Op: "unmarshal", Type: pl.typ.String(), Offset: 4 + d.off, Err: public.ErrTrailingBytes,
			Detail: fmt.Sprintf("%d bytes", len(rest)-d.off)})
	}
	return h, nil
}

// responseFrame is where reading and tracing a response frame start: the
// frame after its size prefix, the plan of msg (a pointer to the response
// struct) at version, msg's pointer, and the header with the version that
// plan's API and flexibility call for; on an error, a zero header.
func responseFrame(frame []byte, msg any, version int16, opName string, use msgUse) ([]byte, *plan, pointer, public.ResponseHeader, error) {
	rest, err := frameBody(frame)
	if err != nil {
		return nil, nil, pointer{}, public.ResponseHeader{}, err
	}
	pl, p, err := messagePlan(msg, version, opName, use)
	if err != nil {
		return nil, nil, pointer{}, public.ResponseHeader{}, err
	}
	return rest, pl, p, public.ResponseHeader{Version: public.ResponseHeaderVersion(pl.apiKey, pl.flexible)}, nil
}

// requestBodyPlan finds the plan of body, the struct newBody gave for the
// API key and version a request header names; a version the struct does
// not declare is the header's fault, an error at the version's offset.
// The common call, a body whose plan is cached, need not come here.
func requestBodyPlan(body any, version int16, opName string, use msgUse) (*plan, pointer, error) {
	pl, p, err := messagePlan(body, version, opName, use)
	if e, ok := public.ErrorOf(err); ok && errors.Is(e, public.ErrUnsupportedVersion) {
		e.Op, e.Offset = "frame", 6
	}
	return pl, p, err
}

// resetAll zeroes the whole message after a failed decode, which may have
// stopped before the fields its reset list leaves to decoding.
func resetAll(pl *plan, p pointer) { p.value(pl.typ).SetZero() }

// AppendRequest is kwire.AppendRequestWithHeader, the header given by
// its fields.
func AppendRequest(dst []byte, msg any, version int16, correlationID int32, clientID *string, tags public.UnknownTags) ([]byte, error) {
	pl, p := cachedRootPlan(msg, version) // inlined: messagePlan is not
	var err error
	if pl == nil {
		if pl, p, err = messagePlanSlow(msg, version, "marshal", readValue); err != nil {
			return dst, err
		}
	}
	if pl.apiKey < 0 {
		return dst, notAMessage("frame", pl.typ.String(), "the struct names no API key")
	}
	h := public.RequestHeader{Version: public.RequestHeaderVersion(pl.apiKey, version, pl.flexible), APIKey: pl.apiKey,
		APIVersion: version, CorrelationID: correlationID, ClientID: clientID, UnknownTags: tags}
	start := len(dst)
	b := appendRequestHeader(dst, &h)
	if b, err = encodeStruct(b, pl, p); err != nil {
		return dst, marshalError(pl, err)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b, nil
}

// PeekRequest is kwire.PeekRequest.
func PeekRequest(head []byte) (apiKey, apiVersion int16, correlationID int32, err error) {
	var h public.RequestHeader
	d, err := headDecoder(head, "RequestHeader")
	if err == nil {
		err = headerError("RequestHeader", d.readRequestHead(&h))
	}
	return h.APIKey, h.APIVersion, h.CorrelationID, err
}

// PeekResponse is kwire.PeekResponse.
func PeekResponse(head []byte) (correlationID int32, err error) {
	var h public.ResponseHeader // version 0: the correlation id alone
	d, err := headDecoder(head, "ResponseHeader")
	if err == nil {
		err = headerError("ResponseHeader", d.readResponseHeader(&h))
	}
	return h.CorrelationID, err
}

// headDecoder checks the size prefix at the front of head, the first
// bytes of a frame, and returns a decodeState over what of the frame head
// holds, its offsets counted from after the prefix.
func headDecoder(head []byte, typ string) (decodeState, error) {
	if len(head) < 4 {
		return decodeState{}, public.Publish(&public.Error{Op: "frame", Type: typ, Offset: 0, Err: public.ErrTruncated, Detail: "no size prefix"})
	}
	size := int32(binary.BigEndian.Uint32(head))
	if size < 0 || len(head)-4 > int(size) {
		return decodeState{}, public.Publish(&public.Error{Op: "frame", Type: typ, Offset: 0, Err: public.ErrInvalidLength,
			Detail: fmt.Sprintf("size prefix %d, %d bytes follow", size, len(head)-4)})
	}
	return decodeState{src: head[4:]}, nil
}

// AppendResponse is kwire.AppendResponseWithHeader.
func AppendResponse(dst []byte, h public.ResponseHeader, msg any, version int16) ([]byte, error) {
	pl, p := cachedRootPlan(msg, version) // inlined: messagePlan is not
	var err error
	if pl == nil {
		if pl, p, err = messagePlanSlow(msg, version, "marshal", readValue); err != nil {
			return dst, err
		}
	}
	h.Version = public.ResponseHeaderVersion(pl.apiKey, pl.flexible)
	start := len(dst)
	b := appendResponseHeader(append(dst, 0, 0, 0, 0), h)
	if b, err = encodeStruct(b, pl, p); err != nil {
		return dst, publicError("marshal", pl.typ.String(), err)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b, nil
}

// frameBody checks the size prefix and returns what follows it.
func frameBody(frame []byte) ([]byte, error) {
	if len(frame) < 4 {
		return nil, public.Publish(&public.Error{Op: "frame", Offset: 0, Err: public.ErrTruncated, Detail: "no size prefix"})
	}
	n := int32(binary.BigEndian.Uint32(frame))
	if n < 0 || int(n) != len(frame)-4 {
		return nil, public.Publish(&public.Error{Op: "frame", Offset: 0, Err: public.ErrInvalidLength,
			Detail: fmt.Sprintf("size prefix %d, %d bytes follow", n, len(frame)-4)})
	}
	return frame[4:], nil
}

const (
	produceFlexibleFrom    = 9 // Produce v9+: header v2, compact strings
	produceTransactionalID = 3 // Produce v3+ starts with TransactionalId
)

// ProduceAcks reads the Acks field of a Produce request frame, which sits
// after the header and (v3+) the transactional id, without decoding the
// records.
func ProduceAcks(frame []byte, version int16) (int16, error) {
	d := decodeState{src: frame[4:], off: 8} // past the head PeekRequest read
	flexible := version >= produceFlexibleFrom
	var h public.RequestHeader
	h.Version = public.RequestHeaderVersion(public.APIKeyProduce, version, flexible)
	if err := d.readRequestHeaderRest(&h); err != nil {
		return 0, headerError("RequestHeader", err)
	}
	if version >= produceTransactionalID {
		o := fieldPlan{kind: kNullString, nullable: true, compact: flexible}
		var tid *string
		if err := d.decodeValue(&o, pointerOf(&tid)); err != nil {
			return 0, publicError("unmarshal", "ProduceRequest", shiftOffset(within(err, "TransactionalID"), 4))
		}
	}
	if d.remaining() < 2 {
		return 0, publicError("unmarshal", "ProduceRequest", shiftOffset(within(d.truncated(2), "Acks"), 4))
	}
	return int16(binary.BigEndian.Uint16(d.src[d.off:])), nil
}
