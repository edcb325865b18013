package release

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Change is one API whose offer differs between two tables. Old or New is
// nil where that side does not offer the API at all.
type Change struct {
	Key      int16
	Old, New *kwire.APIVersionRange
}

// Name is the API's name in package messages, or "key N" for a key it
// does not know.
func (c Change) Name() string { return apiName(c.Key) }

// String says the change in a line: "Produce 0-10 → 0-11",
// "ConsumerGroupDescribe added (0)", "Envelope dropped (was 0)".
func (c Change) String() string {
	switch {
	case c.Old == nil && c.New == nil:
		return c.Name() + " unchanged"
	case c.Old == nil:
		return fmt.Sprintf("%s added (%s)", c.Name(), rangeString(*c.New))
	case c.New == nil:
		return fmt.Sprintf("%s dropped (was %s)", c.Name(), rangeString(*c.Old))
	}
	return fmt.Sprintf("%s %s → %s", c.Name(), rangeString(*c.Old), rangeString(*c.New))
}

// Diff lists, by key, every API whose offer differs from old to new.
func Diff(old, new Release) []Change {
	return diffVersions(old.APIs, new.APIs)
}

// diffVersions compares two key-sorted lists.
func diffVersions(old, new []kwire.APIVersionRange) []Change {
	var out []Change
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case j == len(new) || i < len(old) && old[i].APIKey < new[j].APIKey:
			o := old[i]
			out = append(out, Change{Key: o.APIKey, Old: &o})
			i++
		case i == len(old) || new[j].APIKey < old[i].APIKey:
			n := new[j]
			out = append(out, Change{Key: n.APIKey, New: &n})
			j++
		default:
			if o, n := old[i], new[j]; o != n {
				out = append(out, Change{Key: o.APIKey, Old: &o, New: &n})
			}
			i++
			j++
		}
	}
	return out
}

func rangeString(a kwire.APIVersionRange) string {
	if a.MinVersion == a.MaxVersion {
		return fmt.Sprint(a.MinVersion)
	}
	return fmt.Sprintf("%d-%d", a.MinVersion, a.MaxVersion)
}

// RangeString writes a range as releases.txt does: "0-11", or "3" for a
// single version.
func RangeString(a kwire.APIVersionRange) string { return rangeString(a) }

func apiName(key int16) string {
	if a, ok := messages.Lookup(key); ok {
		return a.Name
	}
	return fmt.Sprintf("key %d", key)
}
