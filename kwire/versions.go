package kwire

import public "github.com/kwirelabs/kwire/kwire/internal/public"

// VersionRange is a closed range of versions as Kafka's schemas write
// them: "0+", "3-5", "7" or "none". An empty range has Min > Max.
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.VersionRange
type VersionRange = public.VersionRange

// NoVersions is the empty range ("none").
var NoVersions = public.NoVersions

// AllVersions is "0+".
var AllVersions = public.AllVersions

// ParseVersionRange parses "0+", "3-5", "7" or "none".
func ParseVersionRange(s string) (VersionRange, error) { return public.ParseVersionRange(s) }
