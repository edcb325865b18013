package release

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Role is the kind of Kafka node whose ApiVersions a table is: a node of
// each role advertises a different set of APIs.
type Role uint8

const (
	// ZooKeeper is a broker in ZooKeeper mode (0.8.0 to 3.9).
	ZooKeeper Role = iota + 1
	// KRaft is a broker in KRaft mode (2.8 on; the only broker from 4.0).
	KRaft
	// Controller is a KRaft controller (2.8 on).
	Controller
)

// String is the role's word in release names and in releases.txt.
func (r Role) String() string {
	switch r {
	case ZooKeeper:
		return "zk"
	case KRaft:
		return "kraft"
	case Controller:
		return "controller"
	}
	return "role(" + strconv.Itoa(int(r)) + ")"
}

// Release is what a node of one Kafka release and role advertises in its
// ApiVersions response.
type Release struct {
	// Version is the release without its patch number: "0.10.2", "3.7".
	// Patch releases do not change API versions.
	Version string
	Role    Role
	// APIs are the version ranges the node offers, sorted by key.
	APIs []kwire.APIVersionRange
	// Features are the KIP-584 feature levels the node advertises, by
	// name. Only metadata.version is kept (KRaft nodes, 3.3 on): its top
	// level is the release's own.
	Features []Feature
}

// Feature is the range of levels of a KIP-584 feature a node supports.
type Feature = messages.FeatureRange

// feature returns the release's range of a feature.
func (r Release) feature(name string) (Feature, bool) {
	for _, f := range r.Features {
		if f.Name == name {
			return f, true
		}
	}
	return Feature{}, false
}

// Name is the release's name as ByName reads it: the version alone for
// the node clients usually meet (a ZooKeeper-mode broker before 4.0, a
// KRaft broker from 4.0), else the version and the role: "3.7-kraft",
// "4.0-controller".
func (r Release) Name() string {
	if r.Role == defaultRole(r.Version) {
		return r.Version
	}
	return r.Version + "-" + r.Role.String()
}

// String is the release's name.
func (r Release) String() string { return r.Name() }

// Lookup returns the range the release offers for an API key.
func (r Release) Lookup(key int16) (kwire.APIVersionRange, bool) {
	i, ok := slices.BinarySearchFunc(r.APIs, key, func(a kwire.APIVersionRange, k int16) int { return int(a.APIKey) - int(k) })
	if !ok {
		return kwire.APIVersionRange{}, false
	}
	return r.APIs[i], true
}

// ApiVersionsResponse is the ApiVersions response a node of this release
// sends: the API ranges and the features kept (no finalized levels).
func (r Release) ApiVersionsResponse() *messages.ApiVersionsResponse {
	resp := messages.NewApiVersionsResponse()
	resp.ApiKeys = make([]messages.ApiVersionsResponseApiVersion, len(r.APIs))
	for i, a := range r.APIs {
		resp.ApiKeys[i] = messages.ApiVersionsResponseApiVersion{ApiKey: a.APIKey, MinVersion: a.MinVersion, MaxVersion: a.MaxVersion}
	}
	for _, f := range r.Features {
		resp.SupportedFeatures = append(resp.SupportedFeatures, messages.ApiVersionsResponseSupportedFeatureKey{Name: f.Name, MinVersion: f.Min, MaxVersion: f.Max})
	}
	return resp
}

// Releases returns every table, oldest release first and, within a
// release, in role order (ZooKeeper, KRaft, Controller). The slice is the
// caller's; the tables' APIs are shared and must not be changed.
func Releases() []Release {
	return slices.Clone(load())
}

// ByName returns a release's table. It reads "3.7", "3.7.0", "3.7.1",
// "v3.7", "0.10.2", "0.10.2.1" (the patch is ignored) and, after any of
// those, "-zk", "-kraft" or "-controller" for a role other than the
// usual one (see Release.Name).
func ByName(name string) (Release, error) {
	s := strings.TrimSpace(name)
	role := Role(0)
	if i := strings.LastIndexByte(s, '-'); i >= 0 {
		switch s[i+1:] {
		case "zk":
			role = ZooKeeper
		case "kraft":
			role = KRaft
		case "controller":
			role = Controller
		default:
			return Release{}, fmt.Errorf("release: %q: unknown role %q (zk, kraft or controller)", name, s[i+1:])
		}
		s = s[:i]
	}
	version, err := parseVersion(s)
	if err != nil {
		var series []string // "0.8" names the releases 0.8.0, 0.8.1, 0.8.2
		for _, r := range load() {
			if strings.HasPrefix(r.Version, strings.TrimPrefix(s, "v")+".") && !slices.Contains(series, r.Version) {
				series = append(series, r.Version)
			}
		}
		if len(series) > 0 {
			return Release{}, fmt.Errorf("release: %q: %v: one of %s", name, err, strings.Join(series, ", "))
		}
		return Release{}, fmt.Errorf("release: %q: %v", name, err)
	}
	if role == 0 {
		role = defaultRole(version)
	}
	for _, r := range load() {
		if r.Version == version && r.Role == role {
			return r, nil
		}
	}
	for _, r := range load() {
		if r.Version == version {
			return Release{}, fmt.Errorf("release: Kafka %s has no %s table (%s is %s)", version, role, version, roleList(version))
		}
	}
	return Release{}, fmt.Errorf("release: %q: no such Kafka release in the tables (%s to %s)", name, load()[0].Version, load()[len(load())-1].Version)
}

// parseVersion turns "v3.7.1" into "3.7" and "0.10.2.0" into "0.10.2":
// a release before 1.0 has three numbers, one after two, each with an
// optional patch number.
func parseVersion(s string) (string, error) {
	s = strings.TrimPrefix(s, "v")
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 8); err != nil {
			return "", fmt.Errorf("not a Kafka version (like 3.7 or 0.10.2)")
		}
	}
	want := 2
	if parts[0] == "0" {
		want = 3
	}
	switch {
	case len(parts) < want && want == 3:
		return "", fmt.Errorf("a Kafka version before 1.0 has 3 numbers (like 0.10.2)")
	case len(parts) < want:
		return "", fmt.Errorf("a Kafka version from 1.0 has 2 numbers (like 3.7)")
	case len(parts) > want+1:
		return "", fmt.Errorf("too many numbers for a Kafka version")
	}
	return strings.Join(parts[:want], "."), nil
}

// defaultRole is the node clients met in a release: a ZooKeeper-mode
// broker before 4.0, a KRaft broker from 4.0 (ZooKeeper mode is gone).
func defaultRole(version string) Role {
	if major, _, _ := strings.Cut(version, "."); len(major) > 1 || major >= "4" {
		return KRaft
	}
	return ZooKeeper
}

func roleList(version string) string {
	var roles []string
	for _, r := range load() {
		if r.Version == version {
			roles = append(roles, r.Name())
		}
	}
	return strings.Join(roles, ", ")
}

//go:embed releases.txt
var releasesTxt string

var (
	tablesOnce sync.Once
	tables     []Release
)

// load parses releases.txt once. A malformed file is a bug of this
// package that its tests catch, so it panics.
func load() []Release {
	tablesOnce.Do(func() {
		var err error
		if tables, err = parse(releasesTxt, nameToKey()); err != nil {
			panic(err)
		}
	})
	return tables
}

func nameToKey() map[string]int16 {
	m := make(map[string]int16)
	for _, a := range messages.APIs() {
		m[a.Name] = a.Key
	}
	return m
}

// parse reads the release file (its grammar is at the file's top) and
// returns the tables sorted by version, then role.
func parse(text string, keys map[string]int16) ([]Release, error) {
	var out []Release
	last := map[Role]map[int16]kwire.APIVersionRange{}
	lastFeatures := map[Role][]Feature{}
	var cur map[int16]kwire.APIVersionRange
	var head Release
	flush := func() {
		if cur == nil {
			return
		}
		head.APIs = make([]kwire.APIVersionRange, 0, len(cur))
		for _, a := range cur {
			head.APIs = append(head.APIs, a)
		}
		slices.SortFunc(head.APIs, func(a, b kwire.APIVersionRange) int { return int(a.APIKey) - int(b.APIKey) })
		out = append(out, head)
		last[head.Role] = cur
		lastFeatures[head.Role] = head.Features
	}
	for n, line := range strings.Split(text, "\n") {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("release: releases.txt:%d: %s", n+1, fmt.Sprintf(format, args...))
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			continue
		case f[0] == "release":
			if len(f) != 3 {
				return nil, fail("want \"release VERSION ROLE\"")
			}
			flush()
			v, err := parseVersion(f[1])
			if err != nil || v != f[1] {
				return nil, fail("version %q: want it as 3.7 or 0.10.2", f[1])
			}
			head = Release{Version: v}
			for _, r := range []Role{ZooKeeper, KRaft, Controller} {
				if r.String() == f[2] {
					head.Role = r
				}
			}
			if head.Role == 0 {
				return nil, fail("unknown role %q", f[2])
			}
			for _, r := range out {
				if r.Version == head.Version && r.Role == head.Role {
					return nil, fail("%s %s is listed twice", f[1], f[2])
				}
			}
			head.Features = slices.Clone(lastFeatures[head.Role])
			cur = make(map[int16]kwire.APIVersionRange, len(last[head.Role]))
			for k, a := range last[head.Role] {
				cur[k] = a
			}
		case cur == nil:
			return nil, fail("an API before the first release line")
		case len(f) != 2:
			return nil, fail("want \"NAME MIN-MAX\" or \"NAME -\"")
		case strings.Contains(f[0], "."):
			lo, hi, err := parseRange(f[1])
			if err != nil {
				return nil, fail("%s: %v", f[0], err)
			}
			i := slices.IndexFunc(head.Features, func(x Feature) bool { return x.Name == f[0] })
			if i < 0 {
				head.Features = append(head.Features, Feature{Name: f[0]})
				i = len(head.Features) - 1
			}
			head.Features[i].Min, head.Features[i].Max = lo, hi
		default:
			key, ok := keys[f[0]]
			if !ok {
				return nil, fail("unknown API %q", f[0])
			}
			if f[1] == "-" {
				if _, ok := cur[key]; !ok {
					return nil, fail("%s is dropped but was not offered", f[0])
				}
				delete(cur, key)
				continue
			}
			lo, hi, err := parseRange(f[1])
			if err != nil {
				return nil, fail("%s: %v", f[0], err)
			}
			if old, ok := cur[key]; ok && old.MinVersion == lo && old.MaxVersion == hi {
				return nil, fail("%s %s is what the previous %s release had already", f[0], f[1], head.Role)
			}
			cur[key] = kwire.APIVersionRange{APIKey: key, MinVersion: lo, MaxVersion: hi}
		}
	}
	flush()
	slices.SortStableFunc(out, func(a, b Release) int {
		if c := compareVersions(a.Version, b.Version); c != 0 {
			return c
		}
		return int(a.Role) - int(b.Role)
	})
	return out, nil
}

func parseRange(s string) (lo, hi int16, err error) {
	a, b, isRange := strings.Cut(s, "-")
	l, err := strconv.ParseInt(a, 10, 16)
	if err != nil {
		return 0, 0, fmt.Errorf("bad version range %q", s)
	}
	h := l
	if isRange {
		if h, err = strconv.ParseInt(b, 10, 16); err != nil || h < l {
			return 0, 0, fmt.Errorf("bad version range %q", s)
		}
	}
	return int16(l), int16(h), nil
}

// compareVersions orders "0.8.0" < "0.10.2" < "1.0" < "3.10".
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x - y
		}
	}
	return len(as) - len(bs)
}
