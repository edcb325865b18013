package release

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

var kafkaSchemas = flag.String("kafka-schemas", "", "the directory holding Kafka's schema sets (kafka-schemas-legacy, kafka-schemas, kafka-schemas-2026); default ../shared beside the project, skipped if absent")

// requestSchema is what this test reads of a Kafka request schema.
type requestSchema struct {
	APIKey                int16    `json:"apiKey"`
	Type                  string   `json:"type"`
	Name                  string   `json:"name"`
	ValidVersions         string   `json:"validVersions"`
	LatestVersionUnstable bool     `json:"latestVersionUnstable"`
	Listeners             []string `json:"listeners"`
}

// offered is the range a node offers by default: the valid versions
// without an unstable latest one; ok is false when nothing is left.
func (s requestSchema) offered() (lo, hi int16, ok bool) {
	if s.ValidVersions == "none" || s.ValidVersions == "" {
		return 0, 0, false
	}
	lo, hi, err := parseRange(s.ValidVersions)
	if err != nil {
		panic(err)
	}
	if s.LatestVersionUnstable {
		hi--
	}
	return lo, hi, lo <= hi
}

func (s requestSchema) listens(role string) bool { return slices.Contains(s.Listeners, role) }

func schemaSet(t *testing.T, name string) map[int16]requestSchema {
	t.Helper()
	dir := *kafkaSchemas
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared")
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Skipf("Kafka's schema sets are not at %s (give -kafka-schemas DIR): the tables are not checked against them", dir)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, name, "*Request.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no request schemas in %s", filepath.Join(dir, name))
	out := map[int16]requestSchema{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var s requestSchema
		require.NoError(t, json.Unmarshal(stripLineComments(data), &s), f)
		if s.Type == "request" {
			out[s.APIKey] = s
		}
	}
	return out
}

// stripLineComments blanks the // comments Kafka's JSON files carry,
// leaving strings alone.
func stripLineComments(data []byte) []byte {
	out := slices.Clone(data)
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		}
	}
	return out
}

// agreement lists where a schema set and a release's tables of the KRaft
// roles part: every request the set offers to a listener must be in that
// role's table with the same range, and the table must offer nothing else.
func agreement(t *testing.T, set map[int16]requestSchema, version string) []string {
	t.Helper()
	var out []string
	for _, role := range []Role{KRaft, Controller} {
		listener := map[Role]string{KRaft: "broker", Controller: "controller"}[role]
		r, err := ByName(version + "-" + role.String())
		require.NoError(t, err)
		for key := int16(0); key <= 200; key++ {
			s, inSet := set[key]
			lo, hi, ok := s.offered()
			want := inSet && ok && s.listens(listener)
			got, has := r.Lookup(key)
			switch {
			case want && !has:
				out = append(out, fmt.Sprintf("%s: %s %d-%d is offered to %s in the set, not in the table", r.Name(), s.Name, lo, hi, listener))
			case !want && has:
				out = append(out, fmt.Sprintf("%s: %s %s is in the table, not offered to %s in the set", r.Name(), apiName(key), rangeString(got), listener))
			case want && (got.MinVersion != lo || got.MaxVersion != hi):
				out = append(out, fmt.Sprintf("%s: %s is %d-%d in the set, %s in the table", r.Name(), apiName(key), lo, hi, rangeString(got)))
			}
		}
	}
	return out
}

// TestSchemaSetsAgreeWithTheirReleases checks the tables against Kafka's
// own schema files, a source independent of franz-go's kversion: the set
// of August 2026 is the 4.4 branch, the one of December 2024 the trunk
// Kafka 4.0 was cut from. Where a set and a release part, the reason is
// written here; any other parting fails.
func TestSchemaSetsAgreeWithTheirReleases(t *testing.T) {
	t.Run("2026=4.4", func(t *testing.T) {
		got := agreement(t, schemaSet(t, "kafka-schemas-2026"), "4.4")
		require.Equal(t, []string{
			// The file says so: v0-2 were removed in 4.0 but are still
			// advertised for librdkafka's sake (KAFKA-18659).
			"4.4: Produce is 3-13 in the set, 0-13 in the table",
		}, got)
	})
	t.Run("2024-12=4.0", func(t *testing.T) {
		got := agreement(t, schemaSet(t, "kafka-schemas"), "4.0")
		// The trunk moved between December 2024 and the 4.0 release;
		// each parting is a change that landed in 4.0 after it.
		require.Equal(t, []string{
			"4.0: Produce is 3-12 in the set, 0-12 in the table",                                      // KAFKA-18659, as for 4.4
			"4.0: Metadata is 4-13 in the set, 0-13 in the table",                                     // KAFKA-18648 put v0-3 back (January 2025)
			"4.0: WriteTxnMarkers is 0-1 in the set, 1 in the table",                                  // v0 removed in 4.0 (the 2026 file says so)
			"4.0: StreamsGroupHeartbeatRequest 0-0 is offered to broker in the set, not in the table", // KIP-1071: early access in 4.1, stable in 4.2 (KAFKA-19869)
			"4.0: StreamsGroupDescribeRequest 0-0 is offered to broker in the set, not in the table",
			"4.0-controller: ControlledShutdownRequest 0-3 is offered to controller in the set, not in the table", // only ZooKeeper-mode brokers sent it
			"4.0-controller: AlterPartition is 0-3 in the set, 2-3 in the table",                                  // KAFKA-18601: servers assume a 3.3 baseline
		}, got)
	})
	t.Run("2024-10=3.9..4.0", func(t *testing.T) {
		// The October 2024 trunk is past the 3.9 branch and before 4.0:
		// for each role, every API it offers has its maximum between
		// 3.9's and 4.0's, and 3.9 offers exactly the APIs it does.
		set := schemaSet(t, "kafka-schemas-legacy")
		var out []string
		for _, role := range []struct{ old, next, listener string }{
			{"3.9", "4.0", "zkBroker"}, {"3.9-kraft", "4.0", "broker"}, {"3.9-controller", "4.0-controller", "controller"},
		} {
			old, err := ByName(role.old)
			require.NoError(t, err)
			next, err := ByName(role.next)
			require.NoError(t, err)
			for key := int16(0); key <= 200; key++ {
				s, inSet := set[key]
				_, hi, offered := s.offered()
				offered = inSet && offered && s.listens(role.listener)
				a, inOld := old.Lookup(key)
				switch {
				case inOld && !offered:
					out = append(out, fmt.Sprintf("%s: %s is offered, not to %s in the set", old.Name(), apiName(key), role.listener))
				case !inOld && offered:
					out = append(out, fmt.Sprintf("%s: %s is offered to %s in the set, not in the table", old.Name(), s.Name, role.listener))
				case inOld:
					top := int16(1 << 14)
					if n, ok := next.Lookup(key); ok {
						top = n.MaxVersion
					}
					if hi < a.MaxVersion || hi > top {
						out = append(out, fmt.Sprintf("%s: %s offers up to %d, outside %d (3.9) to %d (4.0)", old.Name(), s.Name, hi, a.MaxVersion, top))
					}
				}
			}
		}
		require.Equal(t, []string(nil), out)
	})
}
