package kwire

// What the entry points (api.go, decoder.go, frame.go) share: the slow
// path of Append, the errors they return, the start of a decode, the size
// prefix and the header versions of a frame.

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire/wire"
)

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

// start readies d, a zero decodeState, to read src. Filling a zero value in
// place, rather than returning one, spares copying the whole decodeState.
func (dc Decoder) start(d *decodeState, src []byte) {
	d.src, d.limited, d.budget, d.exact, d.kafka = src, dc.MaxAlloc > 0, dc.MaxAlloc, dc.Exact, dc.KafkaLimits
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

// responseFrame is where reading and tracing a response frame start: the
// frame after its size prefix, the plan of msg (a pointer to the response
// struct) at version, msg's pointer, and the header with the version that
// plan's API and flexibility call for; on an error, a zero header.
func responseFrame(frame []byte, msg any, version int16, opName string, use msgUse) ([]byte, *plan, pointer, ResponseHeader, error) {
	rest, err := frameBody(frame)
	if err != nil {
		return nil, nil, pointer{}, ResponseHeader{}, err
	}
	pl, p, err := messagePlan(msg, version, opName, use)
	if err != nil {
		return nil, nil, pointer{}, ResponseHeader{}, err
	}
	return rest, pl, p, ResponseHeader{Version: pl.respHeader}, nil
}

// requestBodyPlan finds the plan of body, the struct newBody gave for the
// API key and version a request header names; a version the struct does
// not declare is the header's fault, an error at the version's offset.
// The common call, a body whose plan is cached, need not come here.
func requestBodyPlan(body any, version int16, opName string, use msgUse) (*plan, pointer, error) {
	pl, p, err := messagePlan(body, version, opName, use)
	if e, ok := err.(*Error); ok && errors.Is(e, ErrUnsupportedVersion) {
		e.Op, e.Offset = "frame", 6
	}
	return pl, p, err
}

// resetAll zeroes the whole message after a failed decode, which may have
// stopped before the fields its reset list leaves to decoding.
func resetAll(pl *plan, p pointer) { p.value(pl.typ).SetZero() }

// headDecoder checks the size prefix at the front of head, the first
// bytes of a frame, and returns a decodeState over what of the frame head
// holds, its offsets counted from after the prefix.
func headDecoder(head []byte, typ string) (decodeState, error) {
	if len(head) < wire.FrameSizeLen {
		return decodeState{}, &Error{Op: "frame", Type: typ, Offset: 0, Err: ErrTruncated, Detail: "no size prefix"}
	}
	size := wire.Int32(head)
	if size < 0 || len(head)-wire.FrameSizeLen > int(size) {
		return decodeState{}, &Error{Op: "frame", Type: typ, Offset: 0, Err: ErrInvalidLength,
			Detail: fmt.Sprintf("size prefix %d, %d bytes follow", size, len(head)-wire.FrameSizeLen)}
	}
	return decodeState{src: head[wire.FrameSizeLen:]}, nil
}

// frameBody checks the size prefix and returns what follows it.
func frameBody(frame []byte) ([]byte, error) {
	if len(frame) < wire.FrameSizeLen {
		return nil, &Error{Op: "frame", Offset: 0, Err: ErrTruncated, Detail: "no size prefix"}
	}
	n := wire.Int32(frame)
	if n < 0 || int(n) != len(frame)-wire.FrameSizeLen {
		return nil, &Error{Op: "frame", Offset: 0, Err: ErrInvalidLength,
			Detail: fmt.Sprintf("size prefix %d, %d bytes follow", n, len(frame)-wire.FrameSizeLen)}
	}
	return frame[wire.FrameSizeLen:], nil
}

const (
	produceFlexibleFrom    = 9 // Produce v9+: header v2, compact strings
	produceTransactionalID = 3 // Produce v3+ starts with TransactionalId
)

// produceAcks reads the Acks field of a Produce request frame, which sits
// after the header and (v3+) the transactional id, without decoding the
// records.
func produceAcks(frame []byte, version int16) (int16, error) {
	d := decodeState{src: frame[4:], off: 8} // past the head PeekRequest read
	flexible := version >= produceFlexibleFrom
	var h RequestHeader
	// No struct here to read a table from: Produce's is Kafka's derived
	// one (messages' TestHeaderTableAgreesWithKafka checks it).
	h.Version = RequestHeaderVersion(apiKeyProduce, version, flexible)
	if err := d.readRequestHeaderRest(&h); err != nil {
		return 0, headerError("RequestHeader", err)
	}
	if version >= produceTransactionalID {
		o := fieldPlan{kind: kNullString, nullable: true, length: lengthFormOf(kNullString, flexible)}
		var tid *string
		if err := d.decodeByWireType(&o, pointerOf(&tid)); err != nil {
			return 0, publicError("unmarshal", "ProduceRequest", shiftOffset(within(err, "TransactionalID"), 4))
		}
	}
	if d.remaining() < 2 {
		return 0, publicError("unmarshal", "ProduceRequest", shiftOffset(within(d.truncated(2), "Acks"), 4))
	}
	return wire.Int16(d.src[d.off:]), nil
}
