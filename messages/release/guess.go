package release

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Match is Guess's answer: the table nearest a broker's ApiVersions.
type Match struct {
	Release Release
	// Exact says every API agrees (an optional API the broker leaves out
	// aside, see Guess).
	Exact bool
	// Differences are the APIs that do not agree: Old is the release's
	// offer, New the broker's.
	Differences []Change
	// Ties are the other tables exactly as near: for an exact match,
	// releases whose tables are the same.
	Ties []Release
	// MetadataVersion, when not empty, says the broker's metadata.version
	// range differs from the release's ("1-8 here, 1-7 in 3.3-kraft").
	MetadataVersion string
	// Ignored are the keys GuessIgnoring left out of the comparison.
	Ignored []int16
}

// String says the guess in a line: "3.7", "3.4-kraft (same table as
// 3.3-kraft)", or "nearest 3.7, 2 APIs differ: Produce 0-10 → 0-11, ...".
func (m Match) String() string {
	var b strings.Builder
	if !m.Exact {
		b.WriteString("nearest ")
	}
	b.WriteString(m.Release.Name())
	if len(m.Ties) > 0 {
		names := make([]string, len(m.Ties))
		for i, r := range m.Ties {
			names[i] = r.Name()
		}
		if m.Exact {
			fmt.Fprintf(&b, " (same table as %s)", strings.Join(names, ", "))
		} else {
			fmt.Fprintf(&b, " (as near: %s)", strings.Join(names, ", "))
		}
	}
	if m.MetadataVersion != "" {
		fmt.Fprintf(&b, ", metadata.version %s", m.MetadataVersion)
	}
	if len(m.Ignored) > 0 {
		keys := make([]string, len(m.Ignored))
		for i, k := range m.Ignored {
			keys[i] = fmt.Sprint(k)
		}
		fmt.Fprintf(&b, ", key%s %s left out (another API there)", map[bool]string{true: "s"}[len(keys) > 1], strings.Join(keys, ", "))
	}
	if !m.Exact && len(m.Differences) > 0 {
		s := "s"
		if len(m.Differences) == 1 {
			s = ""
		}
		diffs := make([]string, len(m.Differences))
		for i, d := range m.Differences {
			diffs[i] = d.String()
		}
		fmt.Fprintf(&b, ", %d API%s differ (release → broker): %s", len(m.Differences), s, strings.Join(diffs, "; "))
	}
	return b.String()
}

// optional are APIs a broker of a release that has them offers only when
// configured to: the client-telemetry pair (KIP-714) needs a telemetry
// receiver plugin. Their absence is no difference.
var optional = map[int16]bool{71: true, 72: true}

// Guess says which release and role a broker looks like from its
// ApiVersions response: the table that agrees with it on every API, else
// the nearest, listing what differs. Nearest weighs, in this order: the
// APIs whose maximum differs or that only the broker offers (a broker
// cannot offer more than its release has), the APIs only the release
// offers (brokers built on other code, kfake or Redpanda, leave some
// out), the APIs whose minimum differs (those set their own), then the
// total of version steps between the two. Equally near tables are in
// Ties; the usual role and then the newer release are preferred.
//
// A KRaft node also advertises its metadata.version range (KIP-584),
// whose top level is its release's: when the response carries it, a table
// with another range is farther (after the minimums, before the steps),
// and is not an exact match.
func Guess(resp *messages.ApiVersionsResponse) Match { return GuessIgnoring(resp, nil) }

// GuessIgnoring is Guess with the APIs at keys left out of both the
// broker's answer and every release's table: the keys a dialect gave to
// a vendor's API (messages.Registry.ReplacedKeys), whose versions say
// nothing of the Apache release underneath. Left in, a fork's API at a
// key Apache assigned later makes the broker look like that later
// release.
func GuessIgnoring(resp *messages.ApiVersionsResponse, keys []int16) Match {
	var mv *Feature
	for _, f := range resp.SupportedFeatures {
		if f.Name == MetadataVersionFeature {
			mv = &Feature{Name: f.Name, Min: f.MinVersion, Max: f.MaxVersion}
		}
	}
	return guess(resp.Versions(), mv, keys)
}

// MetadataVersionFeature is the name of the KIP-584 feature whose top level is a KRaft release's.
const MetadataVersionFeature = "metadata.version"

// nearness is how far a table is from a broker's answer; see Guess.
type nearness struct {
	maxOrExtra, missing, minOnly, feature, steps int
}

func (a nearness) compare(b nearness) int {
	for _, d := range [...]int{a.maxOrExtra - b.maxOrExtra, a.missing - b.missing, a.minOnly - b.minOnly, a.feature - b.feature, a.steps - b.steps} {
		if d != 0 {
			return d
		}
	}
	return 0
}

// GuessVersions is Guess for a list of API ranges in any order, without
// features; a key listed twice keeps its last range.
func GuessVersions(apis []kwire.APIVersionRange) Match { return guess(apis, nil, nil) }

func guess(apis []kwire.APIVersionRange, mv *Feature, ignore []int16) Match {
	byKey := make(map[int16]kwire.APIVersionRange, len(apis))
	for _, a := range apis {
		byKey[a.APIKey] = a
	}
	for _, k := range ignore {
		delete(byKey, k)
	}
	theirs := make([]kwire.APIVersionRange, 0, len(byKey))
	for _, a := range byKey {
		theirs = append(theirs, a)
	}
	slices.SortFunc(theirs, func(a, b kwire.APIVersionRange) int { return int(a.APIKey) - int(b.APIKey) })

	type scored struct {
		r     Release
		diffs []Change
		near  nearness
		mv    string
	}
	var all []scored
	for _, r := range load() {
		s := scored{r: r}
		for _, c := range diffVersions(r.APIs, theirs) {
			switch {
			case slices.Contains(ignore, c.Key):
				continue
			case c.New == nil && optional[c.Key]:
				continue
			case c.New == nil:
				s.near.missing++
			case c.Old == nil || c.Old.MaxVersion != c.New.MaxVersion:
				s.near.maxOrExtra++
			default:
				s.near.minOnly++
			}
			s.diffs = append(s.diffs, c)
			s.near.steps += steps(c)
		}
		if ours, ok := r.feature(MetadataVersionFeature); ok && mv != nil && (ours.Min != mv.Min || ours.Max != mv.Max) {
			s.near.feature = 1
			s.mv = fmt.Sprintf("%d-%d here, %d-%d in %s", mv.Min, mv.Max, ours.Min, ours.Max, r.Name())
		}
		all = append(all, s)
	}
	better := func(a, b scored) bool {
		if c := a.near.compare(b.near); c != 0 {
			return c < 0
		}
		ad, bd := a.r.Role == defaultRole(a.r.Version), b.r.Role == defaultRole(b.r.Version)
		if ad != bd {
			return ad
		}
		return compareVersions(a.r.Version, b.r.Version) > 0
	}
	best := all[0]
	for _, s := range all[1:] {
		if better(s, best) {
			best = s
		}
	}
	m := Match{Release: best.r, Exact: len(best.diffs) == 0 && best.mv == "", Differences: best.diffs, MetadataVersion: best.mv}
	if len(ignore) > 0 {
		m.Ignored = slices.Sorted(slices.Values(ignore))
	}
	for _, s := range all {
		if s.near == best.near && !(s.r.Version == best.r.Version && s.r.Role == best.r.Role) {
			m.Ties = append(m.Ties, s.r)
		}
	}
	return m
}

// steps is how far apart a change's two sides are: the moves of min and
// max, or an absent API's whole range plus one.
func steps(c Change) int {
	abs := func(x int) int { return max(x, -x) }
	switch {
	case c.Old == nil:
		return int(c.New.MaxVersion-c.New.MinVersion) + 1
	case c.New == nil:
		return int(c.Old.MaxVersion-c.Old.MinVersion) + 1
	}
	return abs(int(c.Old.MinVersion)-int(c.New.MinVersion)) + abs(int(c.Old.MaxVersion)-int(c.New.MaxVersion))
}
