package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Generating for a package of one's own: a lone request, quoted defaults,
// the register file, and -check.

func TestLoneRequestIsAFileNotAnAPI(t *testing.T) {
	dir := writeSchemas(t, map[string]string{"PingRequest": `{"apiKey": 1002, "type": "request", "name": "PingRequest",
		"validVersions": "0", "flexibleVersions": "0+", "fields": [{ "name": "Nonce", "type": "int64", "versions": "0+" }]}`,
		"PongResponse": `{"apiKey": 1003, "type": "response", "name": "PongResponse",
		"validVersions": "0", "flexibleVersions": "none", "fields": []}`})
	res, err := Generate(Config{SchemaDirs: []string{dir}, Package: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys(res.Files), " "); got != "ping_request.go pong_response.go" || len(res.Warnings) != 0 {
		t.Fatalf("files %s, warnings %v", got, res.Warnings)
	}
	mustContain(t, res, "ping_request.go", "type PingRequest struct {", "`kafka:\"api=1002,versions=0,flexible=0+,reqheader=0+:2\"`")
	res, err = Generate(Config{SchemaDirs: []string{dir}, Package: "mine", MessagesImport: "example.com/msgs"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{"API key 1002 has a request and no response: left out of the API table",
		"API key 1003 has a response and no request: left out of the API table"}
	if len(res.Warnings) != 2 || res.Warnings[0] != want[0] || res.Warnings[1] != want[1] {
		t.Fatalf("warnings %q", res.Warnings)
	}
	mustContain(t, res, "apis.go", `import messages "example.com/msgs"`, "var APIs = []messages.API{}", "func Register(r *messages.Registry) error {")
}

func TestTagDefaultQuoting(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          "plain",
		"":               "",
		"-1":             "-1",
		"a,b":            "'a,b'",
		"it's":           "'it''s'",
		`say "hi"`:       `'say \"hi\"'`,
		` padded `:       `' padded '`,
		`back\slash`:     `'back\\slash'`,
		"'quoted start'": "'''quoted start'''",
	} {
		got, err := tagDefault(in)
		if err != nil || got != want {
			t.Errorf("tagDefault(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := tagDefault("a`b"); err == nil {
		t.Error("a backquote was accepted")
	}
}

func TestCheckFlag(t *testing.T) {
	schemas := writeSchemas(t, pair("0-1", "1+", `{ "name": "Name", "type": "string", "versions": "0+", "default": "x, y" }`, ``))
	out := t.TempDir()
	var stderr bytes.Buffer
	args := []string{"-schemas", schemas, "-out", out, "-package", "mine", "-registry=false", "-register"}
	if err := Command(append(args, "-check"), &stderr); err == nil || !strings.Contains(err.Error(), "apis.go is missing") {
		t.Fatalf("-check on an empty directory: %v", err)
	}
	if err := Command(args, &stderr); err != nil {
		t.Fatal(err)
	}
	if err := Command(append(args, "-check"), &stderr); err != nil {
		t.Fatalf("-check right after generating: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.go"))
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	data, _ := os.ReadFile(files[1])
	if err := os.WriteFile(files[1], append(data, "// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "old.go"), []byte(Header+"\n\npackage mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Command(append(args, "-check"), &stderr)
	if err == nil || !strings.Contains(err.Error(), filepath.Base(files[1])+" differs, old.go was generated but is no longer") {
		t.Fatalf("-check after an edit: %v", err)
	}
	if err := Command(append([]string{"-register"}, args[:6]...), &stderr); err == nil || !strings.Contains(err.Error(), "-registry=false") {
		t.Fatalf("-register with the messages registry: %v", err)
	}
}
