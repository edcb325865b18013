package kwire

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
	s = strings.TrimSpace(s)
	switch {
	case s == "none":
		return NoVersions, nil
	case strings.HasSuffix(s, "+"):
		lo, err := parseVersion(s[:len(s)-1])
		return VersionRange{lo, math.MaxInt16}, err
	case strings.Contains(s, "-"):
		lo, hi, _ := strings.Cut(s, "-")
		a, err := parseVersion(lo)
		if err != nil {
			return NoVersions, err
		}
		b, err := parseVersion(hi)
		if err != nil {
			return NoVersions, err
		}
		if b < a {
			return NoVersions, fmt.Errorf("version range %q is backwards", s)
		}
		return VersionRange{a, b}, nil
	default:
		v, err := parseVersion(s)
		return VersionRange{v, v}, err
	}
}

func parseVersion(s string) (int16, error) {
	n, err := strconv.ParseInt(s, 10, 16)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad version %q", s)
	}
	return int16(n), nil
}

// Contains reports whether v is in the range.
func (r VersionRange) Contains(v int16) bool { return v >= r.Min && v <= r.Max }

// Empty reports whether the range holds no version.
func (r VersionRange) Empty() bool { return r.Min > r.Max }

func (r VersionRange) String() string {
	switch {
	case r.Empty():
		return "none"
	case r.Max == math.MaxInt16:
		return fmt.Sprintf("%d+", r.Min)
	case r.Min == r.Max:
		return strconv.Itoa(int(r.Min))
	default:
		return fmt.Sprintf("%d-%d", r.Min, r.Max)
	}
}
