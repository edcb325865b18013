package gen

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The generated code must compile and its constructors work, with the registry and with defaults of
// every kind. It is built in a scratch module against a stand-in kwire
// package, so no network or module cache is needed.
func TestGeneratedCodeCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	schemas := pair("0-3", "2+", `
		{ "name": "Name", "type": "string", "versions": "0+", "nullableVersions": "1+", "default": "abc" },
		{ "name": "Plain", "type": "string", "versions": "0+", "default": "xyz" },
		{ "name": "Mask", "type": "int32", "versions": "0+", "default": "0xffffffff" },
		{ "name": "Port", "type": "uint16", "versions": "0+", "default": "9092" },
		{ "name": "Ratio", "type": "float64", "versions": "0+", "default": "0.25" },
		{ "name": "On", "type": "bool", "versions": "0+", "default": true },
		{ "name": "Id", "type": "uuid", "versions": "0+" },
		{ "name": "Data", "type": "bytes", "versions": "0+", "nullableVersions": "0+", "default": "null" },
		{ "name": "Records", "type": "records", "versions": "0+", "nullableVersions": "0+" },
		{ "name": "Leader", "type": "Leader", "versions": "2+", "taggedVersions": "2+", "tag": 0, "fields": [
		  { "name": "Epoch", "type": "int32", "versions": "2+", "default": "-1" } ]},
		{ "name": "Maybe", "type": "Leader2", "versions": "0+", "nullableVersions": "0+", "fields": [
		  { "name": "Epoch", "type": "int32", "versions": "0+", "default": "-1" } ]},
		{ "name": "Items", "type": "[]Item", "versions": "0+" }`,
		`{ "name": "ErrorCode", "type": "int16", "versions": "0+" }`,
		`, "commonStructs": [{ "name": "Item", "versions": "0+", "fields": [
		    { "name": "Size", "type": "int64", "versions": "0+", "default": "-1" } ]}]`)
	res, err := Generate(Config{SchemaDirs: []string{writeSchemas(t, schemas)}, Package: "msgs", KwireImport: "scratch/kwire", Registry: true})
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":         "module scratch\n\ngo 1.26\n",
		"kwire/kwire.go": "package kwire\n\ntype UUID [16]byte\n\ntype UnknownTags []struct{}\n",
		"msgs/registry.go": `package msgs

type API struct {
	Key                     int16
	Name                    string
	MinVersion, MaxVersion  int16
	FlexibleFrom            int16
	LatestVersionUnstable   bool
	NewRequest, NewResponse func() any
}
`,
		"msgs/check_test.go": `package msgs

import "testing"

func TestDefaults(t *testing.T) {
	r := NewFooRequest()
	if *r.Name != "abc" || r.Plain != "xyz" || r.Mask != -1 || r.Port != 9092 || r.Ratio != 0.25 || !r.On ||
		r.Leader.Epoch != -1 || r.Maybe == nil || r.Maybe.Epoch != -1 || r.Data != nil {
		t.Errorf("NewFooRequest() = %+v", r)
	}
	var it FooRequestItem
	it.Size = 5
	it.Default()
	if it.Size != -1 || len(apis) != 1 || apis[0].Name != "Foo" {
		t.Errorf("Default: %+v, apis: %+v", it, apis)
	}
}
`,
	}
	for name, data := range res.Files {
		files["msgs/"+name] = string(data)
	}
	for name, text := range files {
		p := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Generous: on a fresh clone the build cache is empty.
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "test", "./...")
	cmd.WaitDelay = 5 * time.Second
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test of the generated code: %v\n%s\n%s", err, out, res.Files["foo.go"])
	}
}
