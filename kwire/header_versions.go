package kwire

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// HeaderVersions maps a message's versions to the header version each
// travels with, as a Kafka 4.5 schema's headerVersions does: ranges
// ascending from version 0, contiguous, the last open-ended. A message
// struct states it on its _ field (reqheader=0-1:1/2+:2 for a request,
// respheader=0+:0 for a response); one that does not gets the table Kafka
// derived before schemas stated it (RequestHeaderVersion,
// ResponseHeaderVersion). Every header kwire writes or reads is chosen
// by this table: AppendRequest, ReadRequest, ReadResponse, the Tracker,
// and through them the proxy and sniff.
type HeaderVersions []HeaderRange

// HeaderRange is one entry of a HeaderVersions: body versions Versions
// travel with header version Header.
type HeaderRange struct {
	Versions VersionRange
	Header   int16
}

// At returns the header version of body version v (-1 if no range holds
// it, which a valid table never leaves).
func (h HeaderVersions) At(v int16) int16 {
	for _, r := range h {
		if r.Versions.Contains(v) {
			return r.Header
		}
	}
	return -1
}

// String writes the table in the tag's form: "0-1:1/2+:2".
func (h HeaderVersions) String() string {
	parts := make([]string, len(h))
	for i, r := range h {
		parts[i] = r.Versions.String() + ":" + strconv.Itoa(int(r.Header))
	}
	return strings.Join(parts, "/")
}

// The header versions kwire reads and writes, and the first flexible
// (tagged-field) one of each. Request header v3 is KIP-1313's: v2 and a
// tagged ClientInstanceId.
const (
	maxRequestHeader       = 3
	maxResponseHeader      = 1
	firstFlexibleRequest   = 2
	firstFlexibleResponse  = 1
	requestHeaderWithInsID = 3
)

// headerSide is what the rules need of one header: its name, its
// versions, and its first flexible version.
type headerSide struct {
	key           string // the tag key stating it
	name          string
	max, flexible int16
}

var (
	requestSide  = headerSide{"reqheader", "RequestHeader", maxRequestHeader, firstFlexibleRequest}
	responseSide = headerSide{"respheader", "ResponseHeader", maxResponseHeader, firstFlexibleResponse}
)

// parseHeaderVersions reads a reqheader= or respheader= value and checks
// it by the rules Kafka holds a schema's headerVersions to: it starts at
// version 0; its ranges are contiguous, do not overlap and end
// open-ended; header versions never decrease; each is a version of the
// header; a flexible version of the message has a flexible header; and
// ApiVersions responses have response header v0 only (the one exception
// to the flexible rule: a client reads them before it knows what the
// broker speaks).
func parseHeaderVersions(side headerSide, val string, mt *messageTag) (HeaderVersions, error) {
	var out HeaderVersions
	for _, entry := range strings.Split(val, "/") {
		rs, hs, ok := strings.Cut(entry, ":")
		if !ok {
			return nil, fmt.Errorf("entry %q: want RANGE:HEADER (as 0-1:1/2+:2)", entry)
		}
		r, err := ParseVersionRange(rs)
		if err != nil || r.Empty() {
			return nil, fmt.Errorf("entry %q: %q is not a version range", entry, rs)
		}
		h, err := parseVersion(hs)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %q is not a header version", entry, hs)
		}
		if n := len(out); n > 0 {
			prev := out[n-1]
			switch {
			case r.Min <= prev.Versions.Max:
				return nil, fmt.Errorf("ranges %s and %s overlap or are out of order (write them ascending)", prev.Versions, r)
			case r.Min > prev.Versions.Max+1:
				return nil, fmt.Errorf("versions %s are in no range (between %s and %s)", VersionRange{prev.Versions.Max + 1, r.Min - 1}, prev.Versions, r)
			case h < prev.Header:
				return nil, fmt.Errorf("header v%d for %s is below v%d for %s: header versions never decrease as versions rise", h, r, prev.Header, prev.Versions)
			}
		} else if r.Min != 0 {
			return nil, fmt.Errorf("the table starts at version %d (%s): it must start at version 0", r.Min, r)
		}
		if h > side.max {
			return nil, fmt.Errorf("%s: header v%d is not a version of %s (kwire reads 0-%d)", r, h, side.name, side.max)
		}
		out = append(out, HeaderRange{Versions: r, Header: h})
	}
	if last := out[len(out)-1]; last.Versions.Max != math.MaxInt16 {
		return nil, fmt.Errorf("the last range %s must be open-ended (%d+)", last.Versions, last.Versions.Min)
	}
	pinned := side == responseSide && mt.apiKey == apiKeyAPIVersions
	for _, r := range out {
		if pinned && r.Header != 0 {
			return nil, fmt.Errorf("%s: ApiVersions responses use response header v0 only, not v%d", r.Versions, r.Header)
		}
		// The message's flexible versions within this range.
		lo, hi := max(r.Versions.Min, mt.flexible.Min, mt.versions.Min), min(r.Versions.Max, mt.flexible.Max, mt.versions.Max)
		if !pinned && lo <= hi && r.Header < side.flexible {
			return nil, fmt.Errorf("%s: v%d is flexible (flexible=%s) but %s v%d is not (flexible from v%d)", r.Versions, lo, mt.flexible, side.name, r.Header, side.flexible)
		}
	}
	return out, nil
}

// derivedHeaders is the table of a message that states none: Kafka's
// rule before schemas stated it, over the message's versions (the versions
// below its first have that version's header).
func derivedHeaders(side headerSide, mt *messageTag) HeaderVersions {
	at := func(v int16) int16 {
		flexible := mt.flexible.Contains(v)
		if side == requestSide {
			return RequestHeaderVersion(mt.apiKey, v, flexible)
		}
		return ResponseHeaderVersion(mt.apiKey, flexible)
	}
	lo, hi := mt.versions.Min, mt.versions.Max
	if hi == math.MaxInt16 { // an open message: flexible from some version on
		hi = max(lo, min(mt.flexible.Min, math.MaxInt16-1))
	}
	var out HeaderVersions
	for v := int(lo); v <= int(hi); v++ {
		h := at(int16(v))
		if n := len(out); n > 0 && out[n-1].Header == h {
			out[n-1].Versions.Max = int16(v)
			continue
		}
		start := int16(v)
		if v == int(lo) {
			start = 0
		}
		out = append(out, HeaderRange{Versions: VersionRange{start, int16(v)}, Header: h})
	}
	out[len(out)-1].Versions.Max = math.MaxInt16
	return out
}

// headersOf returns the request and response header tables of a message
// tag: the stated ones, or the derived.
func (mt *messageTag) headersOf() (request, response HeaderVersions) {
	request, response = mt.reqHeaders, mt.respHeaders
	if request == nil {
		request = derivedHeaders(requestSide, mt)
	}
	if response == nil {
		response = derivedHeaders(responseSide, mt)
	}
	return request, response
}
