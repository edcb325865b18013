package gen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// The facts of Kafka's schemas kept in the repository (written by `kwire
// gen -extract` from Kafka's three schema sets, see messages/generate.go;
// .ci/run checks them against Kafka's files). These tests need nothing
// outside the repository.
const extractDir = "../messages/schemas"

var kafkaDirs = []string{extractDir}

// -update rewrites messages/ instead of comparing with it. Unlike `go
// generate ./messages` it works even when messages/ does not compile.
var update = flag.Bool("update", false, "regenerate ../messages from the extract")

// The extract is canonical: extracting it again gives the same files.
func TestExtractIsAFixedPoint(t *testing.T) {
	files, warnings, err := Extract(kafkaDirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	onDisk, err := filepath.Glob(filepath.Join(extractDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(onDisk) != len(files) {
		t.Errorf("%d files in %s, the extract of them has %d", len(onDisk), extractDir, len(files))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(extractDir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the extract writes (%v)", name, err)
		}
	}
}

// The committed messages package must be exactly what the generator
// makes from the schemas: this is the drift check. Run `go generate
// ./messages` after changing the generator.
func TestMessagesPackageUpToDate(t *testing.T) {
	res, err := Generate(Config{SchemaDirs: kafkaDirs, Package: "messages", KwireImport: DefaultKwireImport, Registry: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Logf("warning: %s", w)
	}
	const dir = "../messages"
	if *update {
		if err := WriteFiles(dir, res.Files); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range res.Files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./messages)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("messages/%s differs from the generator's output (run go generate ./messages)", name)
		}
	}
	onDisk, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, p := range onDisk {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := res.Files[filepath.Base(p)]; !ok && IsGenerated(data) {
			t.Errorf("messages/%s is a generated file the generator no longer makes", filepath.Base(p))
		}
	}
}

// The extract covers keys 0-94 at Kafka 4.4's versions and what Kafka 4.0
// removed; every message, seen at each version, is a valid schema.
func TestKafkaMergeEveryVersion(t *testing.T) {
	msgs, warnings, err := MergeDirs(kafkaDirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("unexpected warnings: %v", warnings)
	}
	byName := map[string]*Message{}
	pairs, apis := 0, map[int]bool{}
	for _, m := range msgs {
		byName[m.Name] = m
		if err := m.CheckVersions(); err != nil {
			t.Error(err)
		}
		if m.Type == "request" {
			apis[m.APIKey] = true
			pairs += m.Max - m.Min + 1
		}
	}
	keys := make([]int, 0, len(apis))
	for k := range apis {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	if len(keys) != 95 || keys[0] != 0 || keys[94] != 94 {
		t.Errorf("API keys %v, want 0-94", keys)
	}
	t.Logf("%d APIs, %d (API, version) pairs", len(keys), pairs)

	for _, c := range []struct {
		name     string
		min, max int
		// a field path and the versions it must be in
		path     []string
		versions string
	}{
		{"ProduceRequest", 0, 13, []string{"TopicData", "PartitionData", "Records"}, "0+"},
		{"ProduceRequest", 0, 13, []string{"TopicData", "Name"}, "0-12"},
		{"ProduceRequest", 0, 13, []string{"TopicData", "TopicId"}, "13+"},
		{"FetchRequest", 0, 18, []string{"ReplicaId"}, "0-14"},
		{"MetadataRequest", 0, 13, []string{"AllowAutoTopicCreation"}, "4+"},
		{"ListOffsetsRequest", 0, 11, []string{"Topics", "Partitions", "MaxNumOffsets"}, "0"},
		{"ListOffsetsResponse", 0, 11, []string{"Topics", "Partitions", "OldStyleOffsets"}, "0"},
		{"OffsetCommitRequest", 0, 10, []string{"Topics", "Partitions", "CommitTimestamp"}, "1"},
		{"TxnOffsetCommitRequest", 0, 6, []string{"GenerationIdOrMemberEpoch"}, "3+"},
		{"ListConfigResourcesRequest", 0, 1, []string{"ResourceTypes"}, "1+"},
		{"InitProducerIdRequest", 0, 6, []string{"TransactionalId"}, "0+"},
		{"LeaderAndIsrRequest", 0, 7, []string{"ControllerId"}, "0+"},
		{"ShareFetchRequest", 0, 2, []string{"GroupId"}, "0+"},
		{"StreamsGroupHeartbeatRequest", 0, 1, []string{"EndpointInformationEpoch"}, "0+"},
		{"DescribeConfigsResponse", 0, 4, []string{"Results", "Configs", "IsDefault"}, "0"},
		{"ConsumerGroupHeartbeatRequest", 0, 1, []string{"SubscribedTopicRegex"}, "1+"},
		{"VoteRequest", 0, 2, []string{"Topics", "Partitions", "ReplicaEpoch"}, "0+"},
		{"RequestHeader", 0, 2, []string{"ClientId"}, "1+"},
	} {
		m := byName[c.name]
		if m == nil {
			t.Errorf("%s missing", c.name)
			continue
		}
		if m.Min != c.min || m.Max != c.max {
			t.Errorf("%s: versions %d-%d, want %d-%d", c.name, m.Min, m.Max, c.min, c.max)
		}
		f := findField(m, c.path...)
		if f == nil {
			t.Errorf("%s: no field %v", c.name, c.path)
			continue
		}
		if got := f.Present.format(m.Max); got != c.versions {
			t.Errorf("%s.%v: versions %s, want %s", c.name, c.path, got, c.versions)
		}
	}
	// VoteRequest's pre-rename field names come only from legacy versions
	// that the newer tree also defines, so they must not appear.
	for _, name := range []string{"CandidateEpoch", "CandidateId", "CandidateDirectoryId"} {
		if findField(byName["VoteRequest"], "Topics", "Partitions", name) != nil {
			t.Errorf("VoteRequest has the legacy field %s", name)
		}
	}
}

// findField follows a path of schema field names into nested structs.
func findField(m *Message, path ...string) *MField {
	fields := m.Fields
	var f *MField
	for _, name := range path {
		f = nil
		for _, g := range fields {
			if g.Name == name {
				f = g
			}
		}
		if f == nil {
			return nil
		}
		if f.Struct != nil {
			fields = f.Struct.Fields
		}
	}
	return f
}
