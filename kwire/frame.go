package kwire

import "github.com/kwirelabs/kwire/kwire/wire"

// AppendRequest appends a whole request frame: the int32 size prefix, the
// request header and the body of msg at version.
func AppendRequest(dst []byte, msg any, version int16, correlationID int32, clientID *string) ([]byte, error) {
	return appendRequest(dst, msg, version, correlationID, clientID, UnknownTags{}, nil)
}

// AppendRequestWithHeader is AppendRequest for a caller that has a whole
// header, tagged fields included (a proxy passing a request on, say). The
// header's APIVersion is the body's version; its Version and APIKey are
// worked out from msg, as AppendRequest does. Its ClientInstanceID is
// written in header v3 and up when it is not zero.
func AppendRequestWithHeader(dst []byte, h RequestHeader, msg any) ([]byte, error) {
	return appendRequest(dst, msg, h.APIVersion, h.CorrelationID, h.ClientID, h.UnknownTags, &h.ClientInstanceID)
}

// appendRequest is AppendRequestWithHeader, the header given by its
// fields.
func appendRequest(dst []byte, msg any, version int16, correlationID int32, clientID *string, tags UnknownTags, instance *UUID) ([]byte, error) {
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
	h := RequestHeader{Version: pl.reqHeader, APIKey: pl.apiKey,
		APIVersion: version, CorrelationID: correlationID, ClientID: clientID, UnknownTags: tags}
	if instance != nil && h.Version >= requestHeaderWithInsID {
		h.ClientInstanceID = *instance
	}
	start := len(dst)
	b := appendRequestHeader(dst, &h)
	if b, err = encodeStruct(b, pl, p); err != nil {
		return dst, marshalError(pl, err)
	}
	wire.FinishFrame(b, start)
	return b, nil
}

// PeekRequest reads the API key, version and correlation id of a request
// from the first bytes of its frame (at least 12, size prefix included;
// the whole frame will do) without decoding the rest: a broker can refuse
// an API, or answer an ApiVersions request newer than it knows, before
// the body has arrived. A header cut short is refused as ReadRequest
// refuses it.
func PeekRequest(head []byte) (apiKey, apiVersion int16, correlationID int32, err error) {
	var h RequestHeader
	d, err := headDecoder(head, "RequestHeader")
	if err == nil {
		err = headerError("RequestHeader", d.readRequestHead(&h))
	}
	return h.APIKey, h.APIVersion, h.CorrelationID, err
}

// PeekResponse reads the correlation id of a response from the first
// bytes of its frame (at least 8, size prefix included), which is all a
// client needs to pair it with its request.
func PeekResponse(head []byte) (correlationID int32, err error) {
	var h ResponseHeader // version 0: the correlation id alone
	d, err := headDecoder(head, "ResponseHeader")
	if err == nil {
		err = headerError("ResponseHeader", d.readResponseHeader(&h))
	}
	return h.CorrelationID, err
}

// AppendResponse appends a whole response frame: the int32 size prefix,
// the response header and the body of msg at version.
func AppendResponse(dst []byte, msg any, version int16, correlationID int32) ([]byte, error) {
	return AppendResponseWithHeader(dst, ResponseHeader{CorrelationID: correlationID}, msg, version)
}

// AppendResponseWithHeader is AppendResponse for a caller that has a
// whole header, tagged fields included (a proxy passing a response on):
// the header's version is worked out from msg at version.
func AppendResponseWithHeader(dst []byte, h ResponseHeader, msg any, version int16) ([]byte, error) {
	pl, p := cachedRootPlan(msg, version) // inlined: messagePlan is not
	var err error
	if pl == nil {
		if pl, p, err = messagePlanSlow(msg, version, "marshal", readValue); err != nil {
			return dst, err
		}
	}
	h.Version = pl.respHeader
	b, start := wire.AppendFrameStart(dst)
	b = appendResponseHeader(b, h)
	if b, err = encodeStruct(b, pl, p); err != nil {
		return dst, publicError("marshal", pl.typ.String(), err)
	}
	wire.FinishFrame(b, start)
	return b, nil
}

// ReadRequest reads a request frame (size prefix included). newBody is
// given the API key and version from the header and returns a pointer to
// the struct to decode the body into; its tags decide the header version.
// It is Decoder{}.ReadRequest.
func ReadRequest(frame []byte, newBody func(apiKey, version int16) (any, error)) (RequestHeader, any, error) {
	return Decoder{}.ReadRequest(frame, newBody)
}

// ReadResponse reads a response frame (size prefix included) into msg, a
// pointer to the response struct of the request's API at version. It is
// Decoder{}.ReadResponse.
func ReadResponse(frame []byte, msg any, version int16) (ResponseHeader, error) {
	return Decoder{}.ReadResponse(frame, msg, version)
}
