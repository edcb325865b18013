package messages

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
)

func TestAPIsCoverEveryKey(t *testing.T) {
	apis := APIs()
	if len(apis) != 95 {
		t.Fatalf("APIs() has %d entries, want 95 (keys 0-94)", len(apis))
	}
	for i, a := range apis {
		if a.Key != int16(i) {
			t.Fatalf("APIs()[%d].Key = %d, want %d (sorted, no gaps)", i, a.Key, i)
		}
		if got, ok := Lookup(a.Key); !ok || got.Name != a.Name {
			t.Errorf("Lookup(%d) = %v, %v", a.Key, got.Name, ok)
		}
		if a.NewRequest == nil || a.NewResponse == nil {
			t.Errorf("%s: nil constructor", a.Name)
		}
	}
	if _, ok := Lookup(95); ok {
		t.Error("Lookup(95) found an API")
	}
}

func TestAPIVersions(t *testing.T) {
	for _, c := range []struct {
		key          int16
		name         string
		min, max     int16
		flexibleFrom int16
	}{
		{0, "Produce", 0, 13, 9},
		{1, "Fetch", 0, 18, 12},
		{2, "ListOffsets", 0, 11, 6},
		{3, "Metadata", 0, 13, 9},
		{4, "LeaderAndIsr", 0, 7, 4}, // removed in Kafka 4.0: older schemas define it
		{8, "OffsetCommit", 0, 10, 8},
		{18, "ApiVersions", 0, 5, 3},
		{22, "InitProducerId", 0, 6, 2},
		{32, "DescribeConfigs", 0, 4, 4},
		{52, "Vote", 0, 2, 0},
		{68, "ConsumerGroupHeartbeat", 0, 1, 0},
		{74, "ListConfigResources", 0, 1, 0}, // was ListClientMetricsResources
		{78, "ShareFetch", 0, 2, 0},          // v0 from the December 2024 schemas
		{88, "StreamsGroupHeartbeat", 0, 1, 0},
		{89, "StreamsGroupDescribe", 0, 1, 0},
		{94, "UnregisterController", 0, 0, 0},
	} {
		a, ok := Lookup(c.key)
		if !ok {
			t.Errorf("key %d missing", c.key)
			continue
		}
		if a.Name != c.name || a.MinVersion != c.min || a.MaxVersion != c.max || a.FlexibleFrom != c.flexibleFrom {
			t.Errorf("key %d = %s %d-%d flexible from %d, want %s %d-%d flexible from %d",
				c.key, a.Name, a.MinVersion, a.MaxVersion, a.FlexibleFrom, c.name, c.min, c.max, c.flexibleFrom)
		}
	}
	// Kafka 4.4 marks only InitProducerId's newest version unstable.
	for _, a := range APIs() {
		if want := a.Key == 22; a.LatestVersionUnstable != want {
			t.Errorf("%s: LatestVersionUnstable %v, want %v", a.Name, a.LatestVersionUnstable, want)
		}
	}
	if a, _ := Lookup(22); a.MaxStable() != 5 {
		t.Errorf("InitProducerId MaxStable %d, want 5", a.MaxStable())
	}
	if a, _ := Lookup(5); a.FlexibleFrom != 2 || !a.IsFlexible(2) || a.IsFlexible(1) {
		t.Errorf("StopReplica flexible from %d", a.FlexibleFrom)
	}
}

// kafkaTag returns the kafka tag of the named field of the struct that v
// points to.
func kafkaTag(t *testing.T, v any, field string) string {
	t.Helper()
	f, ok := reflect.TypeOf(v).Elem().FieldByName(field)
	if !ok {
		t.Fatalf("%T has no field %s", v, field)
	}
	return f.Tag.Get("kafka")
}

// The fields that only the versions Kafka 4.0 removed have.
func TestLegacyOnlyFields(t *testing.T) {
	for _, c := range []struct {
		v     any
		field string
		want  string
	}{
		{new(ListOffsetsRequestPartition), "MaxNumOffsets", "v=0,default=1"},
		{new(ListOffsetsResponsePartitionResponse), "OldStyleOffsets", "v=0"},
		{new(OffsetCommitRequestPartition), "CommitTimestamp", "v=1,default=-1"},
		{new(DescribeConfigsResponseResourceResult), "IsDefault", "v=0"},
		// Kafka 4.4's header schema no longer marks ClientId ignorable.
		{new(RequestHeader), "ClientID", "v=1+,nullable=1+,compact=none"},
	} {
		if got := kafkaTag(t, c.v, c.field); got != c.want {
			t.Errorf("%T.%s: tag %q, want %q", c.v, c.field, got, c.want)
		}
	}
}

func TestConstructorsApplyDefaults(t *testing.T) {
	r := NewConsumerGroupHeartbeatRequest()
	if r.RebalanceTimeoutMs != -1 || r.InstanceID != nil {
		t.Errorf("NewConsumerGroupHeartbeatRequest() = %+v", r)
	}
	var p ListOffsetsRequestPartition
	p.Default()
	if p.CurrentLeaderEpoch != -1 || p.MaxNumOffsets != 1 {
		t.Errorf("ListOffsetsRequestPartition.Default() = %+v", p)
	}
}

// Every struct's tags must be accepted by the codec, and the smallest
// legal instance of every API and version must survive a round trip.
func TestEveryVersionRoundTrips(t *testing.T) {
	for _, a := range APIs() {
		for _, side := range []struct {
			name string
			new  func() any
		}{{"request", a.NewRequest}, {"response", a.NewResponse}} {
			info, err := kwire.MessageInfoOf(side.new())
			if err != nil {
				t.Errorf("%s %s: %v", a.Name, side.name, err)
				continue
			}
			if info.APIKey != a.Key {
				t.Errorf("%s %s: api key %d in the tag, %d in the table", a.Name, side.name, info.APIKey, a.Key)
			}
			for v := a.MinVersion; v <= a.MaxVersion; v++ {
				msg := side.new()
				if err := kwire.FillMinimal(msg, v); err != nil {
					t.Errorf("%s %s v%d: FillMinimal: %v", a.Name, side.name, v, err)
					continue
				}
				b, err := kwire.Marshal(msg, v)
				if err != nil {
					t.Errorf("%s %s v%d: Marshal: %v", a.Name, side.name, v, err)
					continue
				}
				back := side.new()
				if err := kwire.Unmarshal(b, back, v); err != nil {
					t.Errorf("%s %s v%d: Unmarshal: %v", a.Name, side.name, v, err)
					continue
				}
				b2, err := kwire.Marshal(back, v)
				if err != nil || !bytes.Equal(b, b2) {
					t.Errorf("%s %s v%d: re-Marshal gave %x, %v; want %x", a.Name, side.name, v, b2, err, b)
				}
			}
		}
	}
}

// Non-API structures and headers are generated too.
func TestNonAPITypes(t *testing.T) {
	for _, v := range []any{
		new(RequestHeader), new(ResponseHeader),
		new(ConsumerProtocolSubscription), new(ConsumerProtocolAssignment),
		new(DefaultPrincipalData), new(LeaderChangeMessage),
		new(KRaftVersionRecord), new(SnapshotHeaderRecord), new(SnapshotFooterRecord), new(VotersRecord),
	} {
		info, err := kwire.MessageInfoOf(v)
		if err != nil {
			t.Errorf("%T: %v", v, err)
			continue
		}
		if info.APIKey != -1 {
			t.Errorf("%T: api key %d, want none", v, info.APIKey)
		}
	}
	if got := kafkaTag(t, new(RequestHeader), "_"); !strings.Contains(got, "versions=0-2,flexible=2+") {
		t.Errorf("RequestHeader tag %q", got)
	}
}
