package gen

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Three schema generations of one API, exercising what the merge and the
// extract must carry: a rename by key, a removed API ("none"), versions
// only older sets define, tags, field-level flexible versions, common and
// inline structs, defaults, ignorable, map keys and the unstable marker.
func threeGenerations(t *testing.T) []string {
	legacy := writeSchemas(t, map[string]string{
		"OldNameRequest": `// licence text that must not reach the extract
{"apiKey": 1000, "type": "request", "name": "OldNameRequest", "validVersions": "0-2", "flexibleVersions": "2+",
 "fields": [
  { "name": "Legacy", "type": "int64", "versions": "0", "default": "-1", "about": "prose" },
  { "name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
     { "name": "Name", "type": "string", "versions": "0+", "mapKey": true, "entityType": "topicName" },
     { "name": "Parts", "type": "[]int32", "versions": "0+" }]},
  { "name": "Client", "type": "string", "versions": "1+", "nullableVersions": "1+", "flexibleVersions": "none" }]}`,
		"OldNameResponse": `{"apiKey": 1000, "type": "response", "name": "OldNameResponse", "validVersions": "0-2", "flexibleVersions": "2+",
 "fields": [{ "name": "ErrorCode", "type": "int16", "versions": "0+" }]}`,
		"GoneRequest": `{"apiKey": 1001, "type": "request", "name": "GoneRequest", "validVersions": "0-1", "flexibleVersions": "none",
 "fields": [{ "name": "A", "type": "int32", "versions": "0+" }]}`,
		"GoneResponse": `{"apiKey": 1001, "type": "response", "name": "GoneResponse", "validVersions": "0-1", "flexibleVersions": "none",
 "fields": [{ "name": "B", "type": "int32", "versions": "0+" }]}`,
	})
	current := writeSchemas(t, map[string]string{
		"OldNameRequest": `{"apiKey": 1000, "type": "request", "name": "OldNameRequest", "validVersions": "1-3", "flexibleVersions": "2+",
 "fields": [
  { "name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
     { "name": "Name", "type": "string", "versions": "0+", "mapKey": true },
     { "name": "Parts", "type": "[]int32", "versions": "0+" }]},
  { "name": "Client", "type": "string", "versions": "1+", "nullableVersions": "1+", "flexibleVersions": "none" },
  { "name": "Hint", "type": "Hint", "versions": "3+", "nullableVersions": "3+", "taggedVersions": "3+", "tag": 0, "default": "null" }],
 "commonStructs": [{ "name": "Hint", "versions": "3+", "fields": [{ "name": "Id", "type": "uuid", "versions": "3+" }]}]}`,
		"OldNameResponse": `{"apiKey": 1000, "type": "response", "name": "OldNameResponse", "validVersions": "1-3", "flexibleVersions": "2+",
 "fields": [{ "name": "ErrorCode", "type": "int16", "versions": "0+" }]}`,
		"GoneRequest":  `{"apiKey": 1001, "type": "request", "name": "GoneRequest", "validVersions": "none", "flexibleVersions": "none", "fields": []}`,
		"GoneResponse": `{"apiKey": 1001, "type": "response", "name": "GoneResponse", "validVersions": "none", "flexibleVersions": "none", "fields": []}`,
	})
	newest := writeSchemas(t, map[string]string{
		"NewNameRequest": `{"apiKey": 1000, "type": "request", "name": "NewNameRequest", "validVersions": "2-4", "flexibleVersions": "2+",
 "latestVersionUnstable": true,
 "fields": [
  { "name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
     { "name": "Name", "type": "string", "versions": "0-3", "mapKey": true, "ignorable": true },
     { "name": "TopicId", "type": "uuid", "versions": "4+", "mapKey": true, "ignorable": true },
     { "name": "Parts", "type": "[]int32", "versions": "0+" }]},
  { "name": "Client", "type": "string", "versions": "1+", "nullableVersions": "1+", "flexibleVersions": "none" },
  { "name": "Hint", "type": "Hint", "versions": "3+", "nullableVersions": "3+", "taggedVersions": "3+", "tag": 0, "default": "null" },
  { "name": "Max", "type": "int32", "versions": "4+", "default": "0x7fffffff" }],
 "commonStructs": [{ "name": "Hint", "versions": "3+", "fields": [{ "name": "Id", "type": "uuid", "versions": "3+" }]}]}`,
		"NewNameResponse": `{"apiKey": 1000, "type": "response", "name": "NewNameResponse", "validVersions": "2-4", "flexibleVersions": "2+",
 "fields": [{ "name": "ErrorCode", "type": "int16", "versions": "0+" }, { "name": "Throttle", "type": "int32", "versions": "4+", "default": "0" }]}`,
	})
	return []string{legacy, current, newest}
}

func TestExtractGeneratesTheSameGo(t *testing.T) {
	dirs := threeGenerations(t)
	files, warnings, err := Extract(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	extract := t.TempDir()
	if err := WriteExtract(extract, files); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(slices.Sorted(maps.Keys(files)), " "); got != "GoneRequest.json GoneResponse.json NewNameRequest.json NewNameResponse.json" {
		t.Errorf("extract files %s", got)
	}
	req := string(files["NewNameRequest.json"])
	for _, want := range []string{`"validVersions": "0-4"`, `"latestVersionUnstable": true`, `"mapKey": true`, `"default": "0x7fffffff"`, `"tag": 0`, `"flexibleVersions": "none"`, `"commonStructs"`} {
		if !strings.Contains(req, want) {
			t.Errorf("extract lacks %s:\n%s", want, req)
		}
	}
	for _, prose := range []string{"about", "prose", "licence", "entityType"} {
		if strings.Contains(req, prose) {
			t.Errorf("extract contains %q", prose)
		}
	}

	fromSources, fromExtract := generate(t, dirs...), generate(t, extract)
	if len(fromSources.Files) != len(fromExtract.Files) {
		t.Fatalf("%d files from the sources, %d from the extract", len(fromSources.Files), len(fromExtract.Files))
	}
	for name, want := range fromSources.Files {
		if got := fromExtract.Files[name]; !bytes.Equal(got, want) {
			t.Errorf("%s differs:\nfrom the sources:\n%s\nfrom the extract:\n%s", name, want, got)
		}
	}
	mustContain(t, fromExtract, "new_name.go", "type NewNameRequest struct", "Legacy int64 `kafka:\"v=0,default=-1\"`")
	mustContain(t, fromExtract, "apis.go", `Name: "NewName"`, "LatestVersionUnstable: true", `Name: "Gone", MinVersion: 0, MaxVersion: 1`)

	// The extract is a fixed point: extracting it again changes nothing.
	again, _, err := Extract([]string{extract})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		if !bytes.Equal(again[name], want) {
			t.Errorf("re-extracting changed %s:\n%s", name, again[name])
		}
	}
}

func TestWriteExtractRemovesStaleFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "DroppedRequest.json")
	if err := os.WriteFile(stale, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteExtract(dir, map[string][]byte{"A.json": []byte("{}\n")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("a stale extract file was kept")
	}
}

func TestExtractRefusesItsOwnInput(t *testing.T) {
	dirs := threeGenerations(t)
	err := Command([]string{"-schemas", strings.Join(dirs, ","), "-extract", dirs[0]}, new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "also a -schemas directory") {
		t.Errorf("err = %v", err)
	}
}
