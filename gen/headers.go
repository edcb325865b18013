package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A request or response schema says which header version each of its
// versions travels with: "headerVersions": {"0-1": "1", "2+": "2"}
// (Kafka 4.5's schema format, KAFKA-20923). Kafka's rules for the map:
// it starts at version 0, its ranges are contiguous, do not overlap and
// end open-ended; header versions never decrease as body versions rise;
// every header version is a version of RequestHeader (ResponseHeader)
// and a flexible body version has a flexible header; ApiVersionsResponse
// travels with response header v0 only (the exception to the rule
// before: its v3 and up are flexible). A schema without the map (every
// set up to Kafka 4.4) gets the header versions Kafka derived before the
// map existed (derivedHeader).

// headerRange is one entry of a schema's headerVersions: body versions
// lo-hi (hi -1: lo and up) travel with header version header.
type headerRange struct {
	text   string // the key as written, for errors
	lo, hi int
	header int
}

// parseHeaderVersions reads a headerVersions object, keeping its entries
// in body-version order and checking the rules a schema can be held to
// alone: it starts at 0, it is contiguous, non-overlapping and
// open-ended, its header versions never decrease, and ApiVersionsResponse
// is pinned to header v0. Each error names the range it is about.
func parseHeaderVersions(raw json.RawMessage, s *Schema) ([]headerRange, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf(`headerVersions must be an object of "range": "header version" entries, as {"0-1": "1", "2+": "2"}`)
	}
	var out []headerRange
	seen := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("headerVersions: %v", err)
		}
		key := kt.(string) // an object's keys are strings
		var val any
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("headerVersions %q: %v", key, err)
		}
		if seen[key] {
			return nil, fmt.Errorf("headerVersions: range %q appears twice", key)
		}
		seen[key] = true
		r, err := parseRange(key)
		if err != nil || r.none {
			return nil, fmt.Errorf("headerVersions: %q is not a version range (N, N-M or N+)", key)
		}
		text, ok := val.(string)
		h, err := strconv.Atoi(text)
		if !ok || err != nil || h < 0 || h > maxVersion || strconv.Itoa(h) != text {
			return nil, fmt.Errorf("headerVersions %q: the header version must be a string holding a version number, not %s", key, jsonText(val))
		}
		out = append(out, headerRange{text: key, lo: r.lo, hi: r.hi, header: h})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("headerVersions: %v", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("headerVersions is empty: it must map every version from 0 up")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	if out[0].lo != 0 {
		return nil, fmt.Errorf("headerVersions starts at version %d (range %q): it must start at version 0", out[0].lo, out[0].text)
	}
	for i := 1; i < len(out); i++ {
		prev, r := out[i-1], out[i]
		switch {
		case prev.hi < 0 || r.lo <= prev.hi:
			return nil, fmt.Errorf("headerVersions: ranges %q and %q overlap", prev.text, r.text)
		case r.lo > prev.hi+1:
			return nil, fmt.Errorf("headerVersions: versions %s are in no range (between %q and %q)", versionsText(prev.hi+1, r.lo-1), prev.text, r.text)
		case r.header < prev.header:
			return nil, fmt.Errorf("headerVersions: header version %d for %q is below %d for %q: header versions never decrease as versions rise", r.header, r.text, prev.header, prev.text)
		}
	}
	if last := out[len(out)-1]; last.hi >= 0 {
		return nil, fmt.Errorf("headerVersions: the last range %q must be open-ended (%d+)", last.text, last.lo)
	}
	if s.Type == "response" && *s.APIKey == apiVersionsKey {
		for _, r := range out {
			if r.header != 0 {
				return nil, fmt.Errorf("headerVersions %q: ApiVersions responses use response header v0 only (a client reads them before it knows what the broker speaks), not v%d", r.text, r.header)
			}
		}
	}
	return out, nil
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The API keys whose derived header versions differ from the rest.
const (
	controlledShutdownKey = 7
	apiVersionsKey        = 18
)

// derivedHeader is the header version Kafka gave version v of an API
// before schemas stated it: flexible versions have the flexible header
// (request v2, response v1); ControlledShutdown v0 has request header v0
// (no client id); ApiVersions responses have header v0 always.
func derivedHeader(typ string, key, v int, flexible bool) int {
	switch {
	case typ == "request" && flexible:
		return 2
	case typ == "request" && key == controlledShutdownKey && v == 0:
		return 0
	case typ == "request":
		return 1
	case flexible && key != apiVersionsKey:
		return 1
	}
	return 0
}

// headerAt is the header version of version v of request or response s:
// its headerVersions entry, or the derived one.
func (s *Schema) headerAt(v int) int {
	for _, r := range s.headers {
		if v >= r.lo && (r.hi < 0 || v <= r.hi) {
			return r.header
		}
	}
	return derivedHeader(s.Type, int(*s.APIKey), v, s.flexible.contains(v))
}

// headerSchemas names the header each side of an API travels with.
var headerSchemas = map[string]string{"request": "RequestHeader", "response": "ResponseHeader"}

// headerSet is what a schema set says of one header (RequestHeader or
// ResponseHeader): its versions and which of them are flexible.
type headerSet struct {
	name     string
	from     string // where it came from, for errors
	min, max int
	flexible vset
}

func (h *headerSet) valid(v int) bool { return v >= h.min && v <= h.max }

// kafkaHeaders are the headers of Kafka's schemas through 4.4, which a
// schema set without RequestHeader.json or ResponseHeader.json (a
// vendor's few APIs) is checked against.
var kafkaHeaders = map[string]*headerSet{
	"RequestHeader":  {name: "RequestHeader", from: "Kafka's RequestHeader (versions 0-2, flexible 2+)", min: 0, max: 2, flexible: vset{false, false, true}},
	"ResponseHeader": {name: "ResponseHeader", from: "Kafka's ResponseHeader (versions 0-1, flexible 1+)", min: 0, max: 1, flexible: vset{false, true}},
}

// headerSets returns the request and response headers of the merged
// messages, or Kafka's where the set has none.
func headerSets(msgs []*Message) map[string]*headerSet {
	out := map[string]*headerSet{}
	for name, k := range kafkaHeaders {
		out[name] = k
	}
	for _, m := range msgs {
		if m.Type == "header" && out[m.Name] != nil {
			out[m.Name] = &headerSet{name: m.Name, from: sourcePaths(m), min: m.Min, max: m.Max, flexible: m.Flexible}
		}
	}
	return out
}

// checkHeaders checks each request and response against the set's
// headers: every header version it names is a version of its header, and
// every flexible version of it has a flexible header. The merged table
// (m.Headers) must also never decrease.
func checkHeaders(msgs []*Message) error {
	sets := headerSets(msgs)
	for _, m := range msgs {
		hs := sets[headerSchemas[m.Type]]
		if hs == nil {
			continue
		}
		for _, s := range m.Sources {
			if s.headers == nil {
				continue
			}
			for _, r := range s.headers {
				if !hs.valid(r.header) {
					return fmt.Errorf("%s: headerVersions %q: header version %d is not a version of %s (%s has %s)",
						s.Path, r.text, r.header, hs.name, hs.from, versionsText(hs.min, hs.max))
				}
			}
		}
		for v := m.Min; v <= m.Max; v++ {
			h := m.Headers[v]
			s := m.Sources[m.def[v]]
			if !hs.valid(h) {
				// Only a derived header can get here: a stated one was
				// checked above.
				return fmt.Errorf("%s: %s v%d travels with %s v%d, which %s does not define (%s)", s.Path, m.Name, v, hs.name, h, hs.from, versionsText(hs.min, hs.max))
			}
			// The pin wins: ApiVersionsResponse v3+ is flexible, its
			// header v0 is not.
			pinned := m.Type == "response" && m.APIKey == apiVersionsKey
			if m.Flexible[v] && !hs.flexible[h] && !pinned {
				return fmt.Errorf("%s: headerVersions %s: %s v%d is flexible but %s v%d is not (%s)", s.Path, rangeOf(s, v), m.Name, v, hs.name, h, hs.from)
			}
			if v > m.Min && h < m.Headers[v-1] {
				return fmt.Errorf("%s: %s v%d travels with %s v%d, below v%d's %d (%s): header versions never decrease as versions rise",
					m.Name, s.Path, v, hs.name, h, v-1, m.Headers[v-1], m.Sources[m.def[v-1]].Path)
			}
		}
	}
	return nil
}

// rangeOf names the headerVersions entry of s holding v, or says the
// header is derived.
func rangeOf(s *Schema, v int) string {
	for _, r := range s.headers {
		if v >= r.lo && (r.hi < 0 || v <= r.hi) {
			return strconv.Quote(r.text)
		}
	}
	return "(none: derived from flexibleVersions)"
}

// headerVersionsText writes a merged message's header table in the
// schema format, its ranges ascending: from version 0 (the versions below
// Min have the first version's header) to open-ended.
func (m *Message) headerVersionsText() []headerRange {
	var out []headerRange
	for v := m.Min; v <= m.Max; v++ {
		h := m.Headers[v]
		if n := len(out); n > 0 && out[n-1].header == h {
			out[n-1].hi = v
			continue
		}
		lo := v
		if v == m.Min {
			lo = 0
		}
		out = append(out, headerRange{lo: lo, hi: v, header: h})
	}
	out[len(out)-1].hi = -1
	for i := range out {
		out[i].text = rangeText(out[i].lo, out[i].hi)
	}
	return out
}

func rangeText(lo, hi int) string {
	switch {
	case hi < 0:
		return strconv.Itoa(lo) + "+"
	case lo == hi:
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// headerVersionsJSON is the headerVersions object of rs, in order.
func headerVersionsJSON(rs []headerRange) json.RawMessage {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%q: %q", r.text, strconv.Itoa(r.header)))
	}
	return json.RawMessage("{" + strings.Join(parts, ", ") + "}")
}
