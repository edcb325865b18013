package messages

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

// NewTracker is a kwire.Tracker for every API in the Default registry,
// those registered later included.
func NewTracker(limit int) *kwire.Tracker { return Default.NewTracker(limit) }

// RequestFor returns a pointer to a new request struct of an API key in
// the registry; an unknown key is kwire.ErrUnknownAPI.
func (r *Registry) RequestFor(key, _ int16) (any, error) {
	api, err := r.lookupErr(key)
	if err != nil {
		return nil, err
	}
	return api.NewRequest(), nil
}

// ResponseFor returns a pointer to a new response struct of an API key in
// the registry; an unknown key is kwire.ErrUnknownAPI.
func (r *Registry) ResponseFor(key, _ int16) (any, error) {
	api, err := r.lookupErr(key)
	if err != nil {
		return nil, err
	}
	return api.NewResponse(), nil
}

// NewTracker is a kwire.Tracker for every API in the registry, reading
// request headers by the registry's tables (so SentRequest carries the
// connection's client id and ClientInstanceId).
func (r *Registry) NewTracker(limit int) *kwire.Tracker {
	t := kwire.NewTracker(limit, r.ResponseFor)
	t.SetRequestHeaders(func(key, version int16) (int16, bool) {
		h, _, ok := r.HeaderVersions(key, version)
		return h, ok
	})
	return t
}

func (r *Registry) lookupErr(key int16) (API, error) {
	api, ok := r.Lookup(key)
	if !ok {
		return api, &kwire.Error{Op: "frame", Offset: -1, Err: kwire.ErrUnknownAPI, Detail: fmt.Sprintf("key %d", key)}
	}
	return api, nil
}

// Versions is what the Default registry speaks: every API's MinVersion
// to MaxStable, or to MaxVersion with unstable versions asked for.
func Versions(unstable bool) []kwire.APIVersionRange { return Default.Versions(unstable) }

// Versions is what the registry speaks: every API's MinVersion to
// MaxStable, or to MaxVersion with unstable versions asked for.
func (r *Registry) Versions(unstable bool) []kwire.APIVersionRange {
	var out []kwire.APIVersionRange
	for _, a := range r.APIs() {
		hi := a.MaxStable()
		if unstable {
			hi = a.MaxVersion
		}
		if a.MinVersion <= hi {
			out = append(out, kwire.APIVersionRange{APIKey: a.Key, MinVersion: a.MinVersion, MaxVersion: hi})
		}
	}
	return out
}

// Versions lists the response's API ranges.
func (r *ApiVersionsResponse) Versions() []kwire.APIVersionRange {
	out := make([]kwire.APIVersionRange, len(r.ApiKeys))
	for i, k := range r.ApiKeys {
		out[i] = kwire.APIVersionRange{APIKey: k.ApiKey, MinVersion: k.MinVersion, MaxVersion: k.MaxVersion}
	}
	return out
}

// FeatureRange is the range of levels of a KIP-584 feature ("metadata.version").
type FeatureRange struct {
	Name     string
	Min, Max int16
}

// ClampFeatures makes the response advertise the features of ours, by
// name, the way Clamp does its APIs: a supported feature listed there is
// offered with the levels both ours and the node have (the higher
// minimum, the lower maximum), and a finalized level is capped at that
// maximum; a feature whose ranges share no level is removed, finalized
// level included, and so is one listed with Max below Min. Features ours
// does not name pass untouched. It reports whether anything changed.
//
// A level outside the node's range is never offered: a client may pick
// any level advertised, and the node would refuse one it lacks.
func (r *ApiVersionsResponse) ClampFeatures(ours []FeatureRange) bool {
	find := func(name string) (FeatureRange, bool) {
		for _, f := range ours {
			if f.Name == name {
				return f, true
			}
		}
		return FeatureRange{}, false
	}
	changed := false
	top := map[string]int16{}
	gone := map[string]bool{}
	supported := r.SupportedFeatures[:0]
	for _, k := range r.SupportedFeatures {
		if f, ok := find(k.Name); ok {
			mn, mx := max(k.MinVersion, f.Min), min(k.MaxVersion, f.Max)
			if mx < mn {
				gone[k.Name], changed = true, true
				continue
			}
			if k.MinVersion != mn || k.MaxVersion != mx {
				k.MinVersion, k.MaxVersion, changed = mn, mx, true
			}
			top[k.Name] = mx
		}
		supported = append(supported, k)
	}
	r.SupportedFeatures = supported
	finalized := r.FinalizedFeatures[:0]
	for _, k := range r.FinalizedFeatures {
		if f, ok := find(k.Name); ok {
			if gone[k.Name] || f.Max < f.Min {
				changed = true
				continue
			}
			mx, seen := top[k.Name]
			if !seen {
				mx = f.Max
			}
			if k.MaxVersionLevel > mx {
				k.MaxVersionLevel, changed = mx, true
			}
			if k.MinVersionLevel > mx {
				k.MinVersionLevel, changed = mx, true
			}
		}
		finalized = append(finalized, k)
	}
	r.FinalizedFeatures = finalized
	return changed
}

// Clamp cuts the response's API ranges to what ours speaks (Versions(false)
// if nil), dropping APIs ours lacks, so a client that reads it never sends
// a version ours cannot read. Entries keep their unknown tagged fields.
// It reports whether anything changed.
func (r *ApiVersionsResponse) Clamp(ours []kwire.APIVersionRange) bool {
	if ours == nil {
		ours = Versions(false)
	}
	common := map[int16]kwire.APIVersionRange{}
	for _, c := range kwire.IntersectVersions(r.Versions(), ours) {
		common[c.APIKey] = c
	}
	changed := false
	kept := r.ApiKeys[:0]
	for _, k := range r.ApiKeys {
		c, ok := common[k.ApiKey]
		if !ok {
			changed = true
			continue
		}
		if c.MinVersion != k.MinVersion || c.MaxVersion != k.MaxVersion {
			k.MinVersion, k.MaxVersion, changed = c.MinVersion, c.MaxVersion, true
		}
		kept = append(kept, k)
	}
	r.ApiKeys = kept
	return changed
}
