package interop

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kwirelabs/kwire/messages/release"
)

// kversionReleases are the tables kversion exports, by our name: brokers
// in ZooKeeper mode to 3.9, KRaft brokers from 4.0, as ByName reads a
// bare version.
var kversionReleases = []struct {
	name string
	v    func() *kversion.Versions
}{
	{"0.8.0", kversion.V0_8_0}, {"0.8.1", kversion.V0_8_1}, {"0.8.2", kversion.V0_8_2},
	{"0.9.0", kversion.V0_9_0}, {"0.10.0", kversion.V0_10_0}, {"0.10.1", kversion.V0_10_1},
	{"0.10.2", kversion.V0_10_2}, {"0.11.0", kversion.V0_11_0}, {"1.0", kversion.V1_0_0},
	{"1.1", kversion.V1_1_0}, {"2.0", kversion.V2_0_0}, {"2.1", kversion.V2_1_0},
	{"2.2", kversion.V2_2_0}, {"2.3", kversion.V2_3_0}, {"2.4", kversion.V2_4_0},
	{"2.5", kversion.V2_5_0}, {"2.6", kversion.V2_6_0}, {"2.7", kversion.V2_7_0},
	{"2.8", kversion.V2_8_0}, {"3.0", kversion.V3_0_0}, {"3.1", kversion.V3_1_0},
	{"3.2", kversion.V3_2_0}, {"3.3", kversion.V3_3_0}, {"3.4", kversion.V3_4_0},
	{"3.5", kversion.V3_5_0}, {"3.6", kversion.V3_6_0}, {"3.7", kversion.V3_7_0},
	{"3.8", kversion.V3_8_0}, {"3.9", kversion.V3_9_0}, {"4.0", kversion.V4_0_0},
	{"4.1", kversion.V4_1_0}, {"4.2", kversion.V4_2_0}, {"4.3", kversion.V4_3_0},
	{"4.4", kversion.V4_4_0},
}

// TestReleaseTablesMatchKversion compares every table kversion exports
// with ours: the same APIs, the same maximum (kversion does not export
// minimums). Departures would be listed here with their reason; there
// are none.
func TestReleaseTablesMatchKversion(t *testing.T) {
	var departures []string
	apis, agree, releasesAgree := 0, 0, 0
	for _, kr := range kversionReleases {
		ours, err := release.ByName(kr.name)
		require.NoError(t, err)
		theirs := map[int16]int16{}
		kr.v().EachMaxKeyVersion(func(k, v int16) { theirs[k] = v })
		same := true
		for _, a := range ours.APIs {
			apis++
			v, ok := theirs[a.APIKey]
			switch {
			case !ok:
				departures = append(departures, fmt.Sprintf("%s: key %d is ours (max %d), not kversion's", kr.name, a.APIKey, a.MaxVersion))
				same = false
			case v != a.MaxVersion:
				departures = append(departures, fmt.Sprintf("%s: key %d max %d, kversion %d", kr.name, a.APIKey, a.MaxVersion, v))
				same = false
			default:
				agree++
			}
			delete(theirs, a.APIKey)
		}
		for k, v := range theirs {
			apis++
			departures = append(departures, fmt.Sprintf("%s: key %d is kversion's (max %d), not ours", kr.name, k, v))
			same = false
		}
		if same {
			releasesAgree++
		}
	}
	// metadata.version: kversion gives each release from 3.3 the range its
	// KRaft nodes support; ours is on the KRaft broker and controller.
	features := 0
	for _, kr := range kversionReleases {
		kv := map[string][2]int16{}
		kr.v().EachSupportedFeature(func(name string, lo, hi int16) { kv[name] = [2]int16{lo, hi} })
		want, has := kv["metadata.version"]
		for _, role := range []string{"kraft", "controller"} {
			ours, err := release.ByName(kr.name + "-" + role)
			if err != nil {
				require.False(t, has, "%s: kversion has metadata.version, we have no %s table", kr.name, role)
				continue
			}
			var got [2]int16
			for _, f := range ours.Features {
				if f.Name == "metadata.version" {
					got = [2]int16{f.Min, f.Max}
				}
			}
			if has {
				features++
			}
			assert.Equal(t, want, got, "%s: metadata.version", ours.Name())
		}
	}
	t.Logf("%d of %d releases agree with kversion on every API; %d of %d (release, API) pairs agree; metadata.version agrees on %d KRaft tables", releasesAgree, len(kversionReleases), agree, apis, features)
	assert.Equal(t, []string(nil), departures)
	assert.Equal(t, len(kversionReleases), releasesAgree)
}

// kmsgVersions is a table as kversion reads an ApiVersions answer.
func kmsgVersions(r release.Release) *kversion.Versions {
	resp := kmsg.NewPtrApiVersionsResponse()
	for _, a := range r.APIs {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = a.APIKey, a.MinVersion, a.MaxVersion
		resp.ApiKeys = append(resp.ApiKeys, k)
	}
	return kversion.FromApiVersionsResponse(resp)
}

// kversionSkips are the keys kversion's guess ignores (broker-internal
// and telemetry APIs).
var kversionSkips = []int16{4, 5, 6, 7, 27, 56, 57, 58, 67, 71, 72}

// TestKversionGuessesEveryTable: kversion keeps the KRaft broker tables
// before 4.0 and the controller tables unexported, but its VersionGuess
// walks them; fed each of our tables (all 61) it must name that release,
// or one whose table is ours once its skipped keys are set aside.
func TestKversionGuessesEveryTable(t *testing.T) {
	all := release.Releases()
	exact, equalOutsideSkips := 0, 0
	var other []string
	for _, r := range all {
		guess := kmsgVersions(r).VersionGuess()
		if guess == "v"+r.Version {
			exact++
			continue
		}
		name := strings.TrimPrefix(guess, "v")
		ok := false
		for _, o := range all {
			if o.Version != name || o.Role != r.Role {
				continue
			}
			ok = true
			for _, c := range release.Diff(o, r) {
				if !slices.Contains(kversionSkips, c.Key) {
					ok = false
				}
			}
		}
		if ok {
			equalOutsideSkips++
			other = append(other, r.Name()+" → "+guess)
			continue
		}
		t.Errorf("%s: kversion guesses %q", r.Name(), guess)
	}
	t.Logf("kversion names %d of %d tables exactly; %d more as a release whose table differs only in keys it skips: %s", exact, len(all), equalOutsideSkips, strings.Join(other, ", "))
}

// TestProbeKfake asks kfake, capped at each release kversion exports,
// for its ApiVersions and guesses the release. kfake leaves out the APIs
// it does not implement (broker-internal ones, for instance), may stop
// short of a release's newest version, and sets its own minimums, so the
// match is the nearest, not exact: the guess must be the release (or one
// as near), and no difference may offer more than the release has.
func TestProbeKfake(t *testing.T) {
	var lookalikes []string
	defer func() { t.Logf("guessed as a table kfake cannot tell apart: %s", strings.Join(lookalikes, ", ")) }()
	for _, kr := range kversionReleases {
		cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.MaxVersions(kr.v()))
		require.NoError(t, err)
		conn, err := net.Dial("tcp", cluster.ListenAddrs()[0])
		require.NoError(t, err)
		require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
		resp, _, err := release.Ask(conn, "kwire-interop")
		conn.Close()
		cluster.Close()
		require.NoError(t, err, kr.name)
		m := release.Guess(resp)
		want, err := release.ByName(kr.name)
		require.NoError(t, err)
		// The guess must be the release, or a table kfake's answer cannot
		// tell from it: the same maximum, or absence, for every API kfake
		// offers (3.4 added only APIs kfake lacks; a KRaft broker of a
		// release differs from the ZooKeeper one in APIs kfake lacks).
		if m.Release.Name() != want.Name() {
			for _, a := range resp.ApiKeys {
				w, inWant := want.Lookup(a.ApiKey)
				g, inGuess := m.Release.Lookup(a.ApiKey)
				if inWant != inGuess || w.MaxVersion != g.MaxVersion {
					t.Errorf("kfake capped at %s: guessed %s, which kfake's answer tells apart by key %d", kr.name, m.Release.Name(), a.ApiKey)
				}
			}
			lookalikes = append(lookalikes, kr.name+" → "+m.Release.Name())
		}
		for _, c := range m.Differences {
			if c.New != nil && (c.Old == nil || c.New.MaxVersion > c.Old.MaxVersion) {
				t.Errorf("kfake capped at %s: %s offers more than the release", kr.name, c)
			}
		}
	}
}
