package kwire

import (
	"unsafe"

	"github.com/kwirelabs/kwire/kwire/internal/engine"
	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// AppendRequest appends a whole request frame: the int32 size prefix, the
// request header and the body of msg at version.
func AppendRequest(dst []byte, msg any, version int16, correlationID int32, clientID *string) ([]byte, error) {
	return engine.AppendRequest(dst, msg, version, correlationID, clientID, public.UnknownTags{})
}

// AppendRequestWithHeader is AppendRequest for a caller that has a whole
// header, tagged fields included (a proxy passing a request on, say). The
// header's APIVersion is the body's version; its Version and APIKey are
// worked out from msg, as AppendRequest does.
func AppendRequestWithHeader(dst []byte, h RequestHeader, msg any) ([]byte, error) {
	return engine.AppendRequest(dst, msg, h.APIVersion, h.CorrelationID, h.ClientID, *(*public.UnknownTags)(unsafe.Pointer(&h.UnknownTags)))
}

// PeekRequest reads the API key, version and correlation id of a request
// from the first bytes of its frame (at least 12, size prefix included;
// the whole frame will do) without decoding the rest: a broker can refuse
// an API, or answer an ApiVersions request newer than it knows, before
// the body has arrived. A header cut short is refused as ReadRequest
// refuses it.
func PeekRequest(head []byte) (apiKey, apiVersion int16, correlationID int32, err error) {
	return engine.PeekRequest(head)
}

// PeekResponse reads the correlation id of a response from the first
// bytes of its frame (at least 8, size prefix included), which is all a
// client needs to pair it with its request.
func PeekResponse(head []byte) (correlationID int32, err error) { return engine.PeekResponse(head) }

// AppendResponse appends a whole response frame: the int32 size prefix,
// the response header and the body of msg at version.
func AppendResponse(dst []byte, msg any, version int16, correlationID int32) ([]byte, error) {
	return engine.AppendResponse(dst, public.ResponseHeader{CorrelationID: correlationID}, msg, version)
}

// AppendResponseWithHeader is AppendResponse for a caller that has a
// whole header, tagged fields included (a proxy passing a response on):
// the header's version is worked out from msg at version.
func AppendResponseWithHeader(dst []byte, h ResponseHeader, msg any, version int16) ([]byte, error) {
	return engine.AppendResponse(dst, *(*public.ResponseHeader)(unsafe.Pointer(&h)), msg, version)
}

// ReadRequest reads a request frame (size prefix included). newBody is
// given the API key and version from the header and returns a pointer to
// the struct to decode the body into; its tags decide the header version.
// It is Decoder{}.ReadRequest.
func ReadRequest(frame []byte, newBody func(apiKey, version int16) (any, error)) (RequestHeader, any, error) {
	h, body, err := engine.ReadRequest(engine.Options{}, frame, newBody)
	return *(*RequestHeader)(unsafe.Pointer(&h)), body, err
}

// ReadResponse reads a response frame (size prefix included) into msg, a
// pointer to the response struct of the request's API at version. It is
// Decoder{}.ReadResponse.
func ReadResponse(frame []byte, msg any, version int16) (ResponseHeader, error) {
	h, err := engine.ReadResponse(engine.Options{}, frame, msg, version)
	return *(*ResponseHeader)(unsafe.Pointer(&h)), err
}
