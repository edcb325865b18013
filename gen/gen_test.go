package gen

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeSchemas writes name -> JSON text files into a new directory.
func writeSchemas(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func generate(t *testing.T, dirs ...string) *Result {
	t.Helper()
	res, err := Generate(Config{SchemaDirs: dirs, Package: "msgs", Registry: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// mustContain fails unless the file contains each line (compared with
// runs of spaces collapsed, since gofmt aligns columns).
func mustContain(t *testing.T, res *Result, file string, lines ...string) {
	t.Helper()
	src, ok := res.Files[file]
	if !ok {
		t.Fatalf("no file %s; have %v", file, keys(res.Files))
	}
	norm := collapse(string(src))
	for _, l := range lines {
		if !strings.Contains(norm, collapse(l)) {
			t.Errorf("%s lacks %q:\n%s", file, l, src)
		}
	}
}

func mustNotContain(t *testing.T, res *Result, file string, subs ...string) {
	t.Helper()
	norm := collapse(string(res.Files[file]))
	for _, s := range subs {
		if strings.Contains(norm, collapse(s)) {
			t.Errorf("%s contains %q", file, s)
		}
	}
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out) // map order is random; callers compare joined lists
	return out
}

// pair makes a request/response schema pair for API key 1000 named Foo.
func pair(valid, flexible, reqFields, respFields string, extra ...string) map[string]string {
	x := strings.Join(extra, "")
	return map[string]string{
		"FooRequest": `{"apiKey": 1000, "type": "request", "name": "FooRequest",
			"validVersions": "` + valid + `", "flexibleVersions": "` + flexible + `",
			"fields": [` + reqFields + `]` + x + `}`,
		"FooResponse": `{"apiKey": 1000, "type": "response", "name": "FooResponse",
			"validVersions": "` + valid + `", "flexibleVersions": "` + flexible + `",
			"fields": [` + respFields + `]}`,
	}
}

func TestStripComments(t *testing.T) {
	in := `// licence
{
  "name": "A//B", // trailing comment
  "about": "say \"//hi\" and /* not */ this", /* block
  comment */ "x": "\\" // after an escaped backslash
}`
	got := string(stripComments([]byte(in)))
	for _, want := range []string{`"name": "A//B",`, `"about": "say \"//hi\" and /* not */ this",`, `"x": "\\"`} {
		if !strings.Contains(got, want) {
			t.Errorf("stripComments lost %s:\n%s", want, got)
		}
	}
	for _, gone := range []string{"licence", "trailing", "block", "after an"} {
		if strings.Contains(got, gone) {
			t.Errorf("stripComments kept %q:\n%s", gone, got)
		}
	}
	if strings.Count(got, "\n") != strings.Count(in, "\n") {
		t.Errorf("line count changed")
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"GroupId":              "GroupID",
		"TopicIds":             "TopicIDs",
		"ClusterId":            "ClusterID",
		"ThrottleTimeMs":       "ThrottleTimeMs",
		"IncarnationUuid":      "IncarnationUUID",
		"ReplicaDirectoryId":   "ReplicaDirectoryID",
		"Url":                  "URL",
		"Identity":             "Identity",
		"Ideal":                "Ideal",
		"KRaftVersionFeature":  "KRaftVersionFeature",
		"SaslHandshakeRequest": "SaslHandshakeRequest",
		"ProducerIdsStart":     "ProducerIDsStart",
		"v1Name":               "V1Name",
		"IsrNodes":             "IsrNodes",
	} {
		if got := GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFileBase(t *testing.T) {
	for in, want := range map[string]string{
		"ConsumerGroupHeartbeat": "consumer_group_heartbeat",
		"Produce":                "produce",
		"KRaftVersionRecord":     "kraft_version_record",
		"AllocateProducerIds":    "allocate_producer_ids",
		"RequestHeader":          "request_header",
		"UnitTest":               "unit_test_msg",
		"RunOnLinux":             "run_on_linux_msg",
	} {
		if got := fileBase(in); got != want {
			t.Errorf("fileBase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVersionRangesAndDefaults(t *testing.T) {
	dir := writeSchemas(t, pair("0-5", "4+", `
		// a comment between fields
		{ "name": "GroupId", "type": "string", "versions": "0+", "about": "x // not a comment" },
		{ "name": "Middle", "type": "int32", "versions": "1-3", "default": "-1" },
		{ "name": "Late", "type": "int64", "versions": "3-5", "default": -1, "ignorable": true },
		{ "name": "One", "type": "bool", "versions": "2", "default": false },
		{ "name": "Max", "type": "int32", "versions": "0+", "default": "0x7fffffff" },
		{ "name": "Min", "type": "int32", "versions": "0+", "default": "-2147483648" },
		{ "name": "Name", "type": "string", "versions": "1+", "nullableVersions": "2+", "default": "null" },
		{ "name": "Empty", "type": "string", "versions": "0+", "default": "" },
		{ "name": "Data", "type": "bytes", "versions": "0+", "nullableVersions": "0+" },
		{ "name": "Batches", "type": "records", "versions": "0+", "nullableVersions": "0+" },
		{ "name": "TopicIds", "type": "[]uuid", "versions": "0+" },
		{ "name": "Ratio", "type": "float64", "versions": "5+", "default": "0.5" },
		{ "name": "Future", "type": "int8", "versions": "7+" }`,
		`{ "name": "ErrorCode", "type": "int16", "versions": "0+" }`))
	res := generate(t, dir)
	mustContain(t, res, "foo.go",
		Header,
		"// FooRequest is API key 1000, versions 0-5, flexible from 4.",
		"type FooRequest struct {",
		"_ struct{} `kafka:\"api=1000,versions=0-5,flexible=4+,reqheader=0-3:1/4+:2\"`",
		"GroupID string `kafka:\"v=0+\"`",
		"Middle int32 `kafka:\"v=1-3,default=-1\"`",
		"Late int64 `kafka:\"v=3+,default=-1,ignorable\"`",
		"One bool `kafka:\"v=2,default=false\"`",
		"Max int32 `kafka:\"v=0+,default=0x7fffffff\"`",
		"Min int32 `kafka:\"v=0+,default=-2147483648\"`",
		"Name *string `kafka:\"v=1+,nullable=2+,default=null\"`",
		"Empty string `kafka:\"v=0+,default=\"`",
		"Data []byte `kafka:\"v=0+,nullable=0+\"`",
		"Batches []byte `kafka:\"v=0+,nullable=0+,records\"`",
		"TopicIDs []kwire.UUID `kafka:\"v=0+\"`",
		"Ratio float64 `kafka:\"v=5+,default=0.5\"`",
		"UnknownTags kwire.UnknownTags\n}",
		`import "github.com/kwirelabs/kwire/kwire"`,
		"func NewFooRequest() *FooRequest {",
		"*v = FooRequest{}\nv.Middle = -1\nv.Late = -1\nv.Max = 0x7fffffff\nv.Min = -2147483648\nv.Ratio = 0.5\n}",
		"// FooResponse is API key 1000, versions 0-5, flexible from 4.",
	)
	// A field in no valid version is not generated; prose never is.
	mustNotContain(t, res, "foo.go", "Future", "not a comment", "a comment between")
	mustContain(t, res, "apis.go", `{Key: 1000, Name: "Foo", MinVersion: 0, MaxVersion: 5, FlexibleFrom: 4,`,
		"NewRequest: func() any { return new(FooRequest) },")
}

func TestNeverFlexible(t *testing.T) {
	dir := writeSchemas(t, pair("0-2", "none", `{ "name": "A", "type": "int32", "versions": "0+" }`, `{ "name": "B", "type": "[]int32", "versions": "1+" }`))
	res := generate(t, dir)
	mustContain(t, res, "foo.go", "// FooRequest is API key 1000, versions 0-2, never flexible.", "`kafka:\"api=1000,versions=0-2,flexible=none,reqheader=0+:1\"`")
	mustNotContain(t, res, "foo.go", "UnknownTags", "import")
	mustContain(t, res, "apis.go", "FlexibleFrom: -1")
}

func TestTaggedFields(t *testing.T) {
	dir := writeSchemas(t, pair("0-3", "2+", `
		{ "name": "A", "type": "int32", "versions": "0+" },
		{ "name": "Cluster", "type": "string", "versions": "2+", "taggedVersions": "2+", "tag": 0,
		  "nullableVersions": "2+", "default": "null" },
		{ "name": "Epoch", "type": "int32", "versions": "3+", "taggedVersions": "3+", "tag": "1", "default": "-1" },
		{ "name": "Leader", "type": "Leader", "versions": "2+", "taggedVersions": "2+", "tag": 2, "fields": [
		  { "name": "LeaderId", "type": "int32", "versions": "2+", "default": "-1" }
		]}`, ``))
	res := generate(t, dir)
	mustContain(t, res, "foo.go",
		"Cluster *string `kafka:\"v=2+,nullable=2+,tag=0,tagged=2+,default=null\"`",
		"Epoch int32 `kafka:\"v=3+,tag=1,tagged=3+,default=-1\"`",
		"Leader FooRequestLeader `kafka:\"v=2+,tag=2,tagged=2+\"`",
		"// FooRequestLeader is the type of FooRequest.Leader.",
		"type FooRequestLeader struct {\nLeaderID int32 `kafka:\"v=2+,default=-1\"`\nUnknownTags kwire.UnknownTags\n}",
		"*v = FooRequest{}\nv.Epoch = -1\nv.Leader.Default()\n}",
		"*v = FooRequestLeader{}\nv.LeaderID = -1\n}",
	)
}

func TestCommonStructsAndNesting(t *testing.T) {
	dir := writeSchemas(t, pair("0-1", "0+", `
		{ "name": "Topics", "type": "[]FooRequestTopic", "versions": "0+", "fields": [
		  { "name": "Name", "type": "string", "versions": "0+" },
		  { "name": "Partitions", "type": "[]Partition", "versions": "0+" }
		]},
		{ "name": "Spare", "type": "[]Partition", "versions": "1+", "nullableVersions": "1+" },
		{ "name": "Owner", "type": "FooOwner", "versions": "0+", "nullableVersions": "0+", "fields": [
		  { "name": "Id", "type": "int32", "versions": "0+" }
		]},
		{ "name": "Unused", "type": "int8", "versions": "0+" }`, ``,
		`, "commonStructs": [
		  { "name": "Partition", "versions": "0+", "fields": [
		    { "name": "Index", "type": "int32", "versions": "0+" }
		  ]},
		  { "name": "Orphan", "versions": "0+", "fields": [
		    { "name": "X", "type": "int32", "versions": "0+" }
		  ]}
		]`))
	res := generate(t, dir)
	mustContain(t, res, "foo.go",
		"Topics []FooRequestTopic `kafka:\"v=0+\"`",
		"// FooRequestTopic is an element of FooRequest.Topics.",
		"Partitions []FooRequestPartition `kafka:\"v=0+\"`",
		"// FooRequestPartition is a common struct of FooRequest.",
		"Spare []FooRequestPartition `kafka:\"v=1+,nullable=1+\"`",
		// FooOwner starts with the API name: not FooRequestFooOwner.
		"Owner *FooRequestOwner `kafka:\"v=0+,nullable=0+\"`",
		// A nullable struct without a null default starts present, as in Kafka.
		"v.Owner = new(FooRequestOwner)\nv.Owner.Default()",
	)
	mustNotContain(t, res, "foo.go", "Orphan", "FooRequestFooRequestTopic", "FooRequestFooOwner")
	// The common struct comes where it is first used.
	src := string(res.Files["foo.go"])
	if i, j := strings.Index(src, "type FooRequestTopic struct"), strings.Index(src, "type FooRequestPartition struct"); i < 0 || j < i {
		t.Errorf("type order: FooRequestTopic at %d, FooRequestPartition at %d", i, j)
	}
}

func TestSameStructNameDifferentFields(t *testing.T) {
	dir := writeSchemas(t, pair("0", "0+", `
		{ "name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
		  { "name": "Items", "type": "[]Item", "versions": "0+", "fields": [
		    { "name": "A", "type": "int32", "versions": "0+" } ]}
		]},
		{ "name": "Groups", "type": "[]Group", "versions": "0+", "fields": [
		  { "name": "Items", "type": "[]Item", "versions": "0+", "fields": [
		    { "name": "B", "type": "int64", "versions": "0+" } ]}
		]},
		{ "name": "More", "type": "[]More", "versions": "0+", "fields": [
		  { "name": "Items", "type": "[]Item", "versions": "0+", "fields": [
		    { "name": "A", "type": "int32", "versions": "0+" } ]}
		]}`, ``))
	res := generate(t, dir)
	mustContain(t, res, "foo.go",
		"Items []FooRequestTopicItem `kafka:\"v=0+\"`",
		"Items []FooRequestGroupItem `kafka:\"v=0+\"`",
		// Identical definitions share one type.
		"// FooRequestTopicItem is an element of FooRequestTopic.Items and an element of FooRequestMore.Items.",
	)
	mustNotContain(t, res, "foo.go", "FooRequestMoreItem")
}

// A legacy tree with old versions, and a newer one that dropped them.
func TestLegacyMerge(t *testing.T) {
	legacy := writeSchemas(t, pair("0-3", "3+", `
		{ "name": "Timeout", "type": "int32", "versions": "0+" },
		{ "name": "OldOnly", "type": "int64", "versions": "0", "default": "-1" },
		{ "name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
		  { "name": "Name", "type": "string", "versions": "0+" },
		  { "name": "Legacy", "type": "int32", "versions": "1" },
		  { "name": "Index", "type": "int32", "versions": "2+" }
		]},
		{ "name": "Renamed", "type": "int32", "versions": "3+" }`,
		`{ "name": "ErrorCode", "type": "int16", "versions": "0+" }`))
	current := writeSchemas(t, pair("2-5", "3+", `
		{ "name": "Timeout", "type": "int32", "versions": "2+" },
		{ "name": "Topics", "type": "[]Topic", "versions": "2+", "fields": [
		  { "name": "Name", "type": "string", "versions": "2+", "nullableVersions": "5+" },
		  { "name": "Index", "type": "int32", "versions": "2+" },
		  { "name": "Added", "type": "bool", "versions": "5+" }
		]},
		{ "name": "NewName", "type": "int32", "versions": "3+" }`,
		`{ "name": "ErrorCode", "type": "int16", "versions": "2+" }`))
	res := generate(t, legacy, current)
	mustContain(t, res, "foo.go",
		"// FooRequest is API key 1000, versions 0-5, flexible from 3.",
		"Timeout int32 `kafka:\"v=0+\"`",
		"OldOnly int64 `kafka:\"v=0,default=-1\"`",
		"Topics []FooRequestTopic `kafka:\"v=0+\"`",
		"Name *string `kafka:\"v=0+,nullable=5+\"`",
		"Legacy int32 `kafka:\"v=1\"`",
		"Index int32 `kafka:\"v=2+\"`",
		"Added bool `kafka:\"v=5+\"`",
		"NewName int32 `kafka:\"v=3+\"`",
		"ErrorCode int16 `kafka:\"v=0+\"`",
	)
	// Version 3 comes from the newer tree, so the legacy name is gone.
	mustNotContain(t, res, "foo.go", "Renamed")
	src := collapse(string(res.Files["foo.go"]))
	if !strings.Contains(src, collapse("Timeout int32 `kafka:\"v=0+\"`\nOldOnly int64")) ||
		!strings.Contains(src, collapse("Name *string `kafka:\"v=0+,nullable=5+\"`\nLegacy int32 `kafka:\"v=1\"`\nIndex")) {
		t.Errorf("legacy-only fields are not where the legacy schema had them:\n%s", res.Files["foo.go"])
	}
	for _, m := range res.Messages {
		if err := m.CheckVersions(); err != nil {
			t.Error(err)
		}
	}
}

func TestMergeErrors(t *testing.T) {
	for name, c := range map[string]struct {
		legacy, current map[string]string
		want            string
	}{
		"gap in a field's versions": {
			pair("0-3", "none", `{ "name": "A", "type": "int32", "versions": "0+" }`, ``),
			pair("2-4", "none", `{ "name": "A", "type": "int32", "versions": "3+" }`, ``),
			"versions",
		},
		"request and response disagree": {
			pair("0-3", "none", ``, ``),
			map[string]string{"FooRequest": `{"apiKey": 1000, "type": "request", "name": "FooRequest", "validVersions": "0-4", "flexibleVersions": "none", "fields": []}`},
			"disagree",
		},
		"tag number changes": {
			pair("0-3", "0+", `{ "name": "A", "type": "int32", "versions": "0+", "taggedVersions": "0+", "tag": 1 }`, ``),
			pair("2-4", "0+", `{ "name": "A", "type": "int32", "versions": "0+", "taggedVersions": "0+", "tag": 2 }`, ``),
			"tag",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Generate(Config{SchemaDirs: []string{writeSchemas(t, c.legacy), writeSchemas(t, c.current)}, Package: "p"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

// A field whose type changes between trees becomes two fields.
func TestTypeChangeAcrossTrees(t *testing.T) {
	legacy := writeSchemas(t, pair("0-2", "none", `{ "name": "Offsets", "type": "[]int64", "versions": "0+" }`, ``))
	current := writeSchemas(t, pair("1-3", "none", `{ "name": "Offsets", "type": "int64", "versions": "1+" }`, ``))
	res := generate(t, legacy, current)
	mustContain(t, res, "foo.go", "Offsets int64 `kafka:\"v=1+\"`", "OffsetsV0 []int64 `kafka:\"v=0\"`")
	if len(res.Warnings) != 1 || !strings.Contains(string(res.Warnings[0]), "Offsets") {
		t.Errorf("warnings = %v", res.Warnings)
	}
}

func TestHeadersAndData(t *testing.T) {
	dir := writeSchemas(t, map[string]string{
		"RequestHeader": `{"type": "header", "name": "RequestHeader", "validVersions": "0-2", "flexibleVersions": "2+", "fields": [
			{ "name": "CorrelationId", "type": "int32", "versions": "0+" },
			{ "name": "ClientId", "type": "string", "versions": "1+", "nullableVersions": "1+", "ignorable": true, "flexibleVersions": "none" }]}`,
		"KRaftVersionRecord": `{"type": "data", "name": "KRaftVersionRecord", "validVersions": "0", "flexibleVersions": "0+", "fields": [
			{ "name": "Version", "type": "int16", "versions": "0+" }]}`,
	})
	res, err := Generate(Config{SchemaDirs: []string{dir}, Package: "p", Registry: false})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, res, "request_header.go",
		"// RequestHeader is a message header, versions 0-2, flexible from 2.",
		"_ struct{} `kafka:\"versions=0-2,flexible=2+\"`",
		"ClientID *string `kafka:\"v=1+,nullable=1+,compact=none,ignorable\"`")
	mustContain(t, res, "kraft_version_record.go",
		"// KRaftVersionRecord is a data structure (not an API message), versions 0, flexible from 0.",
		"_ struct{} `kafka:\"versions=0,flexible=0+\"`")
	if _, ok := res.Files["apis.go"]; ok {
		t.Error("apis.go written with Registry off")
	}
}

func TestSchemaErrors(t *testing.T) {
	for name, text := range map[string]string{
		"unknown key":  `{"type": "data", "name": "X", "validVersions": "0", "flexibleVersions": "none", "fields": [], "colour": 1}`,
		"unknown type": `{"type": "data", "name": "X", "validVersions": "0", "flexibleVersions": "none", "fields": [{ "name": "A", "type": "Nope", "versions": "0+" }]}`,
		"open valid":   `{"type": "data", "name": "X", "validVersions": "0+", "flexibleVersions": "none", "fields": []}`,
		"bad range":    `{"type": "data", "name": "X", "validVersions": "0", "flexibleVersions": "none", "fields": [{ "name": "A", "type": "int8", "versions": "2-1" }]}`,
	} {
		if _, err := ParseSchema(name, []byte(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.go")
	hand := filepath.Join(dir, "hand.go")
	os.WriteFile(stale, []byte(Header+"\n\npackage p\n"), 0o644)
	os.WriteFile(hand, []byte("package p\n"), 0o644)
	if err := WriteFiles(dir, map[string][]byte{"new.go": []byte(Header + "\n\npackage p\n")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale generated file kept")
	}
	if _, err := os.Stat(hand); err != nil {
		t.Error("hand-written file removed")
	}
	if err := WriteFiles(dir, map[string][]byte{"hand.go": []byte(Header + "\n")}); err == nil {
		t.Error("overwrote a hand-written file")
	}
}

func TestKwireImportQualifier(t *testing.T) {
	dir := writeSchemas(t, map[string]string{"X": `{"type": "data", "name": "X", "validVersions": "0", "flexibleVersions": "0+",
		"fields": [{ "name": "Id", "type": "uuid", "versions": "0+" }]}`})
	res, err := Generate(Config{SchemaDirs: []string{dir}, Package: "p", KwireImport: "example.com/kwire/v2"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, res, "x.go", `import "example.com/kwire/v2"`, "ID kwire.UUID", "UnknownTags kwire.UnknownTags")
}

func TestReservedFieldNames(t *testing.T) {
	for _, name := range []string{"Default", "UnknownTags"} {
		dir := writeSchemas(t, map[string]string{"X": `{"type": "data", "name": "X", "validVersions": "0", "flexibleVersions": "0+",
			"fields": [{ "name": "` + name + `", "type": "int8", "versions": "0+" }]}`})
		if _, err := Generate(Config{SchemaDirs: []string{dir}, Package: "p"}); err == nil || !strings.Contains(err.Error(), "taken") {
			t.Errorf("field %s: err = %v", name, err)
		}
	}
}
