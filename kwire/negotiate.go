package kwire

import (
	"sort"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// APIVersionRange is one API's version range, as an ApiVersions response
// lists it.
type APIVersionRange struct {
	APIKey, MinVersion, MaxVersion int16
}

// IntersectVersions returns the APIs both lists name, each with the
// versions both speak, sorted by key; an API whose ranges do not
// overlap is left out, as a client would leave it.
func IntersectVersions(theirs, ours []APIVersionRange) []APIVersionRange {
	mine := make(map[int16]APIVersionRange, len(ours))
	for _, o := range ours {
		mine[o.APIKey] = o
	}
	var out []APIVersionRange
	for _, t := range theirs {
		o, ok := mine[t.APIKey]
		if !ok {
			continue
		}
		r := APIVersionRange{APIKey: t.APIKey, MinVersion: max(t.MinVersion, o.MinVersion), MaxVersion: min(t.MaxVersion, o.MaxVersion)}
		if r.MinVersion <= r.MaxVersion {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].APIKey < out[j].APIKey })
	return out
}

// HighestCommonVersion is the newest version of an API that both lists
// allow, and false when they share none.
func HighestCommonVersion(theirs, ours []APIVersionRange, apiKey int16) (int16, bool) {
	for _, r := range IntersectVersions(theirs, ours) {
		if r.APIKey == apiKey {
			return r.MaxVersion, true
		}
	}
	return 0, false
}

// errUnsupportedVersion is Kafka's UNSUPPORTED_VERSION error code,
// kerr.UnsupportedVersion, which kwire cannot import (kerr imports kwire);
// TestUnsupportedAPIVersionsCode holds the two equal.
const errUnsupportedVersion = 35

// IsUnsupportedAPIVersions says whether an ApiVersions response frame
// (size prefix included) is that answer: its error code, right after the
// correlation id in every version, is UNSUPPORTED_VERSION. Such a frame is
// written at v0 whatever version the request had (KIP-511), so it is read
// at v0.
func IsUnsupportedAPIVersions(frame []byte) bool {
	return len(frame) >= 10 && wire.Int16(frame[8:]) == errUnsupportedVersion
}

// AppendUnsupportedAPIVersions appends the answer a broker gives to an
// ApiVersions request newer than it can read: a v0 response (header v0)
// with UNSUPPORTED_VERSION and, as Kafka does, only ApiVersions' own
// range, so the client retries with a version from it. The frame is
// written field by field: v0 of ApiVersionsResponse is fixed by the protocol,
// and a broker that cannot read the request may not have the struct.
func AppendUnsupportedAPIVersions(dst []byte, correlationID int32, apiVersions APIVersionRange) []byte {
	b, start := wire.AppendFrameStart(dst)
	b = wire.AppendInt32(b, correlationID)
	b = wire.AppendInt16(b, errUnsupportedVersion)
	b = wire.Int32Length.Append(b, 1) // the ApiKeys array: one entry
	b = wire.AppendInt16(b, apiKeyAPIVersions)
	b = wire.AppendInt16(b, apiVersions.MinVersion)
	b = wire.AppendInt16(b, apiVersions.MaxVersion)
	wire.FinishFrame(b, start)
	return b
}
