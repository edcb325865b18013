package kwire

import (
	"math"

	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// VersionRange is a closed range of versions as Kafka's schemas write
// them: "0+", "3-5", "7" or "none". An empty range has Min > Max.
type VersionRange struct{ Min, Max int16 }

// NoVersions is the empty range ("none").
var NoVersions = VersionRange{Min: 1, Max: 0}

// AllVersions is "0+".
var AllVersions = VersionRange{Min: 0, Max: math.MaxInt16}

// ParseVersionRange parses "0+", "3-5", "7" or "none".
func ParseVersionRange(s string) (VersionRange, error) {
	r, err := public.ParseVersionRange(s)
	return VersionRange(r), err
}

// Contains reports whether v is in the range.
func (r VersionRange) Contains(v int16) bool { return v >= r.Min && v <= r.Max }

// Empty reports whether the range holds no version.
func (r VersionRange) Empty() bool { return r.Min > r.Max }

func (r VersionRange) String() string { return public.VersionRange(r).String() }
