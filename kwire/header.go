package kwire

import (
	"reflect"

	"github.com/kwirelabs/kwire/kwire/internal/engine"
	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// RequestHeader is the header in front of every request body.
type RequestHeader struct {
	Version       int16 // header version: 0, 1 or 2
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
	ClientID      *string     // header v1+; never compact, even in v2
	UnknownTags   UnknownTags // header v2
}

// ResponseHeader is the header in front of every response body.
type ResponseHeader struct {
	Version       int16 // header version: 0 or 1
	CorrelationID int32
	UnknownTags   UnknownTags // header v1
}

// RequestHeaderVersion is the request header version Kafka uses for a
// request: 2 for flexible versions, 1 otherwise, 0 for ControlledShutdown v0.
func RequestHeaderVersion(apiKey, version int16, flexible bool) int16 {
	return public.RequestHeaderVersion(apiKey, version, flexible)
}

// ResponseHeaderVersion is the response header version: 1 for flexible
// versions, 0 otherwise, and always 0 for ApiVersions, whose response a
// client must read before it knows what the broker speaks.
func ResponseHeaderVersion(apiKey int16, flexible bool) int16 {
	return public.ResponseHeaderVersion(apiKey, flexible)
}

// The headers hold this package's UnknownTags, so they differ in type
// from the engine's, which hold the engine's. Each has the engine's
// layout, so a header crosses the API as the same bytes (an unsafe
// conversion in frame.go and decoder.go), with no copy on the frame path;
// init checks the layouts, their UnknownTags fields' included.
func init() {
	for _, pair := range [][2]reflect.Type{
		{reflect.TypeFor[RequestHeader](), reflect.TypeFor[public.RequestHeader]()},
		{reflect.TypeFor[ResponseHeader](), reflect.TypeFor[public.ResponseHeader]()},
	} {
		if err := engine.SameLayout(pair[0], pair[1]); err != nil {
			panic(err)
		}
	}
}
