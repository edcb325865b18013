package kwire

import (
	"slices"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// The request and response headers are read here and nowhere else:
// ReadRequest, TraceRequest, PeekRequest and the Tracker all call these
// readers, so they refuse a bad header with the same error. The decoder's
// offsets count from after the size prefix; headerError turns what they
// return into the *Error callers see.

// appendRequestHeader appends room for the size prefix and the header:
// the common header (a client id of up to 32 bytes, no tags) is stored
// into room checked once.
func appendRequestHeader(b []byte, h *RequestHeader) []byte {
	cid := h.ClientID
	if h.Version < 1 || h.Version >= requestHeaderWithInsID || cid == nil || len(*cid) > maxInlineCopy || *pointerOf(&h.UnknownTags).unknownFields() != nil {
		b, _ = wire.AppendFrameStart(b)
		return appendRequestHeaderSlow(b, h)
	}
	n, need := len(b), 4+8+2+len(*cid)+1
	if cap(b)-n < need {
		b = slices.Grow(b, need)
	}
	base := sliceData(b)
	// The head and the client id's length as wire.AppendRequestHead and
	// wire.Int16Length write them, stored at once.
	put16(base.at(n+4), uint16(h.APIKey))
	put16(base.at(n+6), uint16(h.APIVersion))
	put32(base.at(n+8), uint32(h.CorrelationID))
	put16(base.at(n+12), uint16(len(*cid)))
	copyShort(base, n+14, stringData(*cid), len(*cid))
	if h.Version >= 2 {
		*base.at(n + 14 + len(*cid)).uint8() = wire.EmptyTaggedFields
		return b[:n+need]
	}
	return b[:n+need-1]
}

// appendRequestHeaderSlow appends the header by the general path.
func appendRequestHeaderSlow(b []byte, h *RequestHeader) []byte {
	b = wire.AppendRequestHead(b, wire.RequestHead{APIKey: h.APIKey, APIVersion: h.APIVersion, CorrelationID: h.CorrelationID})
	if h.Version >= 1 {
		if h.ClientID == nil {
			b = wire.Int16Length.Append(b, -1)
		} else {
			b = wire.Int16Length.AppendString(b, *h.ClientID)
		}
	}
	if h.Version >= 2 {
		b = appendUnknownTags(b, withInstanceID(h))
	}
	return b
}

// withInstanceID is the tagged fields of header h: its UnknownTags and,
// from v3 when it is not zero, the ClientInstanceId, in tag order (it
// takes the place of an unknown field of its tag).
func withInstanceID(h *RequestHeader) UnknownTags {
	if h.Version < requestHeaderWithInsID || h.ClientInstanceID == (UUID{}) {
		return h.UnknownTags
	}
	id := TaggedField{Tag: ClientInstanceIDTag, Data: append([]byte(nil), h.ClientInstanceID[:]...)}
	fields := make([]TaggedField, 0, h.UnknownTags.Len()+1)
	for _, f := range h.UnknownTags.Fields() {
		if f.Tag > id.Tag && id.Data != nil {
			fields, id.Data = append(fields, id), nil
		}
		if f.Tag != ClientInstanceIDTag {
			fields = append(fields, f)
		}
	}
	if id.Data != nil {
		fields = append(fields, id)
	}
	return NewUnknownTags(fields...)
}

// takeInstanceID moves header v3's ClientInstanceId from the tagged
// fields read into h.ClientInstanceID. start is the offset of the
// section, for the error of a value that is not a UUID.
func (h *RequestHeader) takeInstanceID(start int) error {
	fields := h.UnknownTags.Fields()
	for i, f := range fields {
		if f.Tag != ClientInstanceIDTag {
			continue
		}
		if len(f.Data) != len(h.ClientInstanceID) {
			return within(newFieldError(ErrBadTag, start, "ClientInstanceId (tag %d) holds %d bytes, a UUID 16", f.Tag, len(f.Data)), "ClientInstanceID")
		}
		copy(h.ClientInstanceID[:], f.Data)
		rest := append(append([]TaggedField(nil), fields[:i]...), fields[i+1:]...)
		h.UnknownTags = NewUnknownTags(rest...)
		return nil
	}
	return nil
}

func appendResponseHeader(b []byte, h ResponseHeader) []byte {
	b = wire.AppendInt32(b, h.CorrelationID)
	if h.Version >= 1 {
		b = appendUnknownTags(b, h.UnknownTags)
	}
	return b
}

func appendUnknownTags(b []byte, tags UnknownTags) []byte {
	if tags.Len() == 0 {
		return append(b, wire.EmptyTaggedFields)
	}
	b = wire.AppendUvarint(b, uint32(tags.Len()))
	for _, t := range tags.Fields() {
		b = wire.AppendTaggedField(b, t.Tag, t.Data)
	}
	return b
}

// readRequestHead reads the part of a request header every version has:
// the API key, the API version and the correlation id.
func (d *decodeState) readRequestHead(h *RequestHeader) error {
	head, n := wire.ConsumeRequestHead(d.src[d.off:])
	if n < 0 {
		return d.requestHeadCut()
	}
	h.APIKey, h.APIVersion, h.CorrelationID = head.APIKey, head.APIVersion, head.CorrelationID
	d.off += n
	return nil
}

// requestHeadCut is the error of a request head cut short: the field it
// cuts, at that field's offset.
func (d *decodeState) requestHeadCut() error {
	name, size := "APIKey", 2
	switch r := d.remaining(); {
	case r >= 4:
		name, size = "CorrelationID", 4
		d.off += 4
	case r >= 2:
		name = "APIVersion"
		d.off += 2
	}
	return within(d.truncated(size), name)
}

// readRequestHeaderRest reads what follows the head in header version
// h.Version: the client id (v1+) and the tagged fields (v2).
func (d *decodeState) readRequestHeaderRest(h *RequestHeader) error {
	if h.Version >= 1 {
		// A classic nullable string, read here rather than through a field plan
		// so that neither the header nor the pointer moves to the heap.
		// The length as decodeStruct reads it; cut short or out of
		// range, readLength reads it again for the error.
		n, next := int16Length(d.src, d.off)
		if n < -1 || n > len(d.src)-next {
			_, err := d.readLength(wire.Int16Length, 1)
			return within(err, "ClientID")
		}
		d.off = next
		if n >= 0 {
			var err error
			if h.ClientID, err = d.strPtr(n); err != nil {
				return within(err, "ClientID")
			}
		}
	}
	if h.Version >= requestHeaderWithInsID {
		return d.readRequestHeaderTagsV3(h)
	}
	if h.Version >= 2 {
		tags, err := d.readUnknownTags()
		h.UnknownTags = tags
		return err
	}
	return nil
}

// readRequestHeaderTagsV3 reads the tagged fields of header v3 and up,
// ClientInstanceId among them; v2's stay on readRequestHeaderRest's path.
func (d *decodeState) readRequestHeaderTagsV3(h *RequestHeader) error {
	start := d.off
	tags, err := d.readUnknownTags()
	h.UnknownTags = tags
	if err == nil && tags.Len() > 0 {
		err = h.takeInstanceID(start)
	}
	return err
}

// readResponseHeader reads a response header of version h.Version: the
// correlation id and (v1) the tagged fields.
func (d *decodeState) readResponseHeader(h *ResponseHeader) error {
	if d.remaining() < 4 {
		return within(d.truncated(4), "CorrelationID")
	}
	h.CorrelationID = wire.Int32(d.src[d.off:])
	d.off += 4
	if h.Version >= 1 {
		tags, err := d.readUnknownTags()
		h.UnknownTags = tags
		return err
	}
	return nil
}

// headerError is the *Error of a header reader's error: Op "frame", the
// header type, and the offset in the frame, size prefix included.
func headerError(typ string, err error) error {
	if err == nil {
		return nil
	}
	return publicError("frame", typ, shiftOffset(err, 4))
}

// readUnknownTags reads a tagged-field section that declares no fields.
// The common empty section costs a byte; the rest takes the decoder's
// general path.
func (d *decodeState) readUnknownTags() (UnknownTags, error) {
	if d.off < len(d.src) && d.src[d.off] == wire.EmptyTaggedFields {
		d.off++
		return UnknownTags{}, nil
	}
	return d.readTagSection()
}

func (d *decodeState) readTagSection() (UnknownTags, error) {
	var tags UnknownTags
	pl := plan{flexible: true, hasUnknown: true}
	err := d.decodeTaggedFields(&pl, pointerOf(&tags))
	return tags, err
}
