package kwire

import public "github.com/kwirelabs/kwire/kwire/internal/public"

// RequestHeader is the header in front of every request body.
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.RequestHeader
type RequestHeader = public.RequestHeader

// ResponseHeader is the header in front of every response body.
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.ResponseHeader
type ResponseHeader = public.ResponseHeader

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
