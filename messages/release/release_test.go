package release

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

func TestReleasesCoverEveryReleaseAndRole(t *testing.T) {
	var names []string
	count := map[Role]int{}
	for _, r := range Releases() {
		names = append(names, r.Name())
		count[r.Role]++
		require.NotEmpty(t, r.APIs, r.Name())
		for i := 1; i < len(r.APIs); i++ {
			require.Less(t, r.APIs[i-1].APIKey, r.APIs[i].APIKey, "%s: APIs sorted by key, once each", r.Name())
		}
	}
	// 0.8.0 to 3.9 in ZooKeeper mode; KRaft brokers and controllers from
	// 2.8 (there was no 2.9) to 4.4.
	assert.Equal(t, map[Role]int{ZooKeeper: 29, KRaft: 16, Controller: 16}, count)
	assert.Equal(t, "0.8.0", names[0])
	assert.Equal(t, []string{"4.4", "4.4-controller"}, names[len(names)-2:])
	assert.Contains(t, names, "3.7-kraft")
	assert.Contains(t, names, "2.8-controller")
}

func TestByName(t *testing.T) {
	for in, want := range map[string]string{
		"3.7": "3.7", "3.7.0": "3.7", "3.7.2": "3.7", "v3.7": "3.7", "v3.7.1": "3.7", " 3.7 ": "3.7",
		"0.10.2": "0.10.2", "0.10.2.1": "0.10.2", "v0.8.0": "0.8.0", "0.8.2.2": "0.8.2",
		"1.0": "1.0", "1.0.2": "1.0", "2.8": "2.8",
		"3.7-kraft": "3.7-kraft", "3.7.1-kraft": "3.7-kraft", "3.9-controller": "3.9-controller",
		"4.0": "4.0", "4.0-kraft": "4.0", "4.4.0": "4.4", "4.1-controller": "4.1-controller", "3.9-zk": "3.9",
	} {
		r, err := ByName(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, r.Name(), in)
		}
	}
	for in, msg := range map[string]string{
		"":           "not a Kafka version",
		"3":          "from 1.0 has 2 numbers (like 3.7)",
		"0.10":       "before 1.0 has 3 numbers (like 0.10.2): one of 0.10.0, 0.10.1, 0.10.2",
		"v0.8":       "one of 0.8.0, 0.8.1, 0.8.2",
		"3.7.0.1":    "too many numbers",
		"0.10.2.0.1": "too many numbers",
		"3.x":        "not a Kafka version",
		"3.7-broker": "unknown role",
		"2.9":        "no such Kafka release",
		"0.7.0":      "no such Kafka release",
		"4.5":        "no such Kafka release",
		"4.0-zk":     "Kafka 4.0 has no zk table",
		"2.7-kraft":  "Kafka 2.7 has no kraft table",
		"3.7--kraft": "not a Kafka version",
		"v":          "not a Kafka version",
		"3.-7":       "unknown role",
		"99999.1":    "not a Kafka version",
	} {
		_, err := ByName(in)
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), msg, in)
		}
	}
}

// TestTablesAreVersionsKwireSpeaks: every range in every table is one
// package messages can encode and decode.
func TestTablesAreVersionsKwireSpeaks(t *testing.T) {
	for _, r := range Releases() {
		for _, a := range r.APIs {
			api, ok := messages.Lookup(a.APIKey)
			require.True(t, ok, "%s: key %d", r.Name(), a.APIKey)
			assert.True(t, api.MinVersion <= a.MinVersion && a.MaxVersion <= api.MaxStable(),
				"%s: %s %s is outside messages' %d-%d", r.Name(), api.Name, rangeString(a), api.MinVersion, api.MaxStable())
		}
	}
}

// TestReleasesOnlyGrow: within a role, a later release never offers less
// of an API than the one before, but for the drops the tables name:
// KIP-896's minimums in 4.0 and the APIs a role stopped serving.
func TestReleasesOnlyGrow(t *testing.T) {
	var drops []string
	last := map[Role]Release{}
	for _, r := range Releases() {
		if prev, ok := last[r.Role]; ok {
			for _, c := range Diff(prev, r) {
				switch {
				case c.New == nil:
					drops = append(drops, r.Name()+": "+c.String())
				case c.Old != nil && c.New.MaxVersion < c.Old.MaxVersion:
					t.Errorf("%s: %s lowers the maximum", r.Name(), c)
				case c.Old != nil && c.New.MinVersion > c.Old.MinVersion && r.Version != "4.0":
					t.Errorf("%s: %s raises the minimum outside 4.0", r.Name(), c)
				}
			}
		}
		last[r.Role] = r
	}
	assert.Equal(t, []string{
		"3.0-kraft: DescribeQuorum dropped (was 0)",
		"3.0-controller: Metadata dropped (was 0-11)",
		"3.2-kraft: Envelope dropped (was 0)",
		"4.0-controller: ControlledShutdown dropped (was 0-3)",
	}, drops)
}

func TestGuessGivesEveryTableBack(t *testing.T) {
	all := Releases()
	for _, r := range all {
		m := Guess(r.ApiVersionsResponse())
		require.True(t, m.Exact, "%s: %s", r.Name(), m)
		var same []string
		for _, o := range all {
			if len(Diff(o, r)) == 0 && slices.Equal(o.Features, r.Features) {
				same = append(same, o.Name())
			}
		}
		got := []string{m.Release.Name()}
		for _, tie := range m.Ties {
			got = append(got, tie.Name())
		}
		assert.ElementsMatch(t, same, got, "%s: the guess is the release or one with the same table, and names the others", r.Name())
		if len(same) == 1 {
			assert.Equal(t, r.Name(), m.String())
		} else {
			assert.Contains(t, m.String(), "same table as")
		}
	}
}

func TestGuessNearest(t *testing.T) {
	r37, err := ByName("3.7")
	require.NoError(t, err)
	resp := r37.ApiVersionsResponse()
	// A 3.7 broker with Produce bumped one and an API kwire does not know.
	resp.ApiKeys[0].MaxVersion++
	resp.ApiKeys = append(resp.ApiKeys, messages.ApiVersionsResponseApiVersion{ApiKey: 999, MaxVersion: 2})
	m := Guess(resp)
	assert.False(t, m.Exact)
	assert.Equal(t, "3.7", m.Release.Name())
	require.Len(t, m.Differences, 2)
	assert.Equal(t, "Produce 0-10 → 0-11", m.Differences[0].String())
	assert.Equal(t, "key 999 added (0-2)", m.Differences[1].String())
	assert.Equal(t, "nearest 3.7, 2 APIs differ (release → broker): Produce 0-10 → 0-11; key 999 added (0-2)", m.String())

	// A KRaft 3.7 broker without the telemetry APIs (no receiver
	// configured) is still exactly 3.7-kraft.
	k37, err := ByName("3.7-kraft")
	require.NoError(t, err)
	var apis []kwire.APIVersionRange
	for _, a := range k37.APIs {
		if a.APIKey != 71 && a.APIKey != 72 {
			apis = append(apis, a)
		}
	}
	m = GuessVersions(apis)
	assert.True(t, m.Exact, m.String())
	assert.Equal(t, "3.7-kraft", m.Release.Name())

	// Nothing at all: the answer is some release, far off, never a panic.
	m = GuessVersions(nil)
	assert.False(t, m.Exact)
	assert.NotEmpty(t, m.Differences)
}

func TestDiff(t *testing.T) {
	a, err := ByName("3.8")
	require.NoError(t, err)
	b, err := ByName("3.9")
	require.NoError(t, err)
	var got []string
	for _, c := range Diff(a, b) {
		got = append(got, c.String())
	}
	assert.Equal(t, []string{"Fetch 0-16 → 0-17", "ListOffsets 0-8 → 0-9", "FindCoordinator 0-5 → 0-6", "ApiVersions 0-3 → 0-4"}, got)

	// Diff is the whole difference: applying it to old gives new, for
	// every pair of neighbours.
	all := Releases()
	for i := 1; i < len(all); i++ {
		old, new := all[i-1], all[i]
		m := map[int16]kwire.APIVersionRange{}
		for _, x := range old.APIs {
			m[x.APIKey] = x
		}
		for _, c := range Diff(old, new) {
			if c.New == nil {
				delete(m, c.Key)
			} else {
				m[c.Key] = *c.New
			}
		}
		require.Len(t, m, len(new.APIs), "%s → %s", old.Name(), new.Name())
		for _, x := range new.APIs {
			require.Equal(t, x, m[x.APIKey], "%s → %s", old.Name(), new.Name())
		}
	}
}

func TestParseErrors(t *testing.T) {
	keys := map[string]int16{"Produce": 0, "Fetch": 1}
	for text, msg := range map[string]string{
		"Produce 0":                                            "releases.txt:1: an API before the first release line",
		"release 3.7":                                          "want \"release VERSION ROLE\"",
		"release 3.7.0 zk":                                     "version \"3.7.0\"",
		"release 3.7 broker":                                   "unknown role",
		"release 3.7 zk\nNope 0":                               "releases.txt:2: unknown API \"Nope\"",
		"release 3.7 zk\nProduce 3-1":                          "bad version range",
		"release 3.7 zk\nProduce x":                            "bad version range",
		"release 3.7 zk\nProduce":                              "want \"NAME MIN-MAX\"",
		"release 3.7 zk\nFetch -":                              "dropped but was not offered",
		"release 3.7 zk\nProduce 0\nrelease 3.7 zk":            "listed twice",
		"release 3.6 zk\nProduce 0\nrelease 3.7 zk\nProduce 0": "what the previous zk release had already",
	} {
		_, err := parse(text, keys)
		if assert.Error(t, err, text) {
			assert.Contains(t, err.Error(), msg, text)
		}
	}
	got, err := parse("# c\nrelease 0.9.0 zk\nProduce 0-1 # KIP\n\nrelease 0.8.0 zk\nProduce 0\nFetch 0\n", keys)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "0.8.0", got[0].Version, "sorted by version")
	assert.Equal(t, []kwire.APIVersionRange{{APIKey: 0, MinVersion: 0, MaxVersion: 1}}, got[1].APIs, "a role's first block starts empty")
}

func TestRoleString(t *testing.T) {
	assert.Equal(t, "zk kraft controller role(9)", strings.Join([]string{ZooKeeper.String(), KRaft.String(), Controller.String(), Role(9).String()}, " "))
}

// TestGuessWeighsMaximumsFirst: a broker on other code (its own minimums,
// some APIs left out) is still placed by the maximums it offers.
func TestGuessWeighsMaximumsFirst(t *testing.T) {
	r39, err := ByName("3.9")
	require.NoError(t, err)
	var apis []kwire.APIVersionRange
	for _, a := range r39.APIs {
		switch {
		case a.APIKey >= 4 && a.APIKey <= 7, a.APIKey == 56, a.APIKey == 58, a.APIKey == 67:
			continue // broker-internal APIs a look-alike leaves out
		case a.APIKey == 0:
			a.MinVersion = 3
		case a.APIKey == 1:
			a.MinVersion = 4
		}
		apis = append(apis, a)
	}
	m := GuessVersions(apis)
	assert.False(t, m.Exact)
	assert.Equal(t, "3.9", m.Release.Version, m.String())
	for _, c := range m.Differences {
		assert.True(t, c.New == nil || c.New.MaxVersion == c.Old.MaxVersion, "only absences and minimums differ: %s", c)
	}
}

// TestGuessReadsMetadataVersion: KRaft 3.3 and 3.4 brokers offer the same
// APIs; metadata.version tells them apart, and a range no release has is
// said.
func TestGuessReadsMetadataVersion(t *testing.T) {
	for _, name := range []string{"3.3-kraft", "3.4-kraft", "3.7-controller", "3.8-controller"} {
		r, err := ByName(name)
		require.NoError(t, err)
		m := Guess(r.ApiVersionsResponse())
		assert.True(t, m.Exact)
		assert.Equal(t, name, m.String())
	}
	r, err := ByName("3.4-kraft")
	require.NoError(t, err)
	resp := r.ApiVersionsResponse()
	resp.SupportedFeatures[0].MaxVersion = 9
	m := Guess(resp)
	assert.False(t, m.Exact)
	assert.Equal(t, "nearest 3.4-kraft (as near: 3.3-kraft), metadata.version 1-9 here, 1-8 in 3.4-kraft", m.String())

	// Without features (a ZooKeeper-mode answer, or before ApiVersions
	// v3) the tables with the same APIs tie.
	resp.SupportedFeatures = nil
	m = Guess(resp)
	assert.True(t, m.Exact)
	assert.Equal(t, "3.4-kraft (same table as 3.3-kraft)", m.String())
}

// An Inkless broker built on 4.1 offers its DisklessCommit at key 93,
// which Apache gave StreamsGroupTopologyDescriptionUpdate in 4.4: read as
// Apache's, the key is an API 4.1 lacks, so 4.1 is not an exact match.
// Ignoring the replaced key gives 4.1 back.
func TestGuessIgnoringAReplacedKey(t *testing.T) {
	r41, err := ByName("4.1")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r41.Lookup(93); ok {
		t.Fatal("4.1 has key 93: the case tests nothing")
	}
	resp := r41.ApiVersionsResponse()
	resp.ApiKeys = append(resp.ApiKeys, messages.ApiVersionsResponseApiVersion{ApiKey: 93, MinVersion: 0, MaxVersion: 0})

	m := Guess(resp)
	if m.Exact && m.Release.Name() == "4.1" {
		t.Fatalf("Guess reads the vendor's key 93 and still says exactly 4.1: %s", m)
	}
	t.Logf("Guess: %s", m)
	m = GuessIgnoring(resp, []int16{93})
	if !m.Exact || m.Release.Name() != "4.1" || !slices.Equal(m.Ignored, []int16{93}) {
		t.Fatalf("GuessIgnoring(93) = %s", m)
	}
	if s := m.String(); !strings.Contains(s, "key 93 left out") {
		t.Errorf("String() = %q", s)
	}
}
