package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The checked-in engine_codec_gen.go is what the description and the skeletons
// give (CI checks the same with go generate and git diff).
func TestGeneratedCodeIsUpToDate(t *testing.T) {
	skeleton, err := os.ReadFile("loops.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := formFuncs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(skeleton, funcs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "engine_codec_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("kwire/engine_codec_gen.go differs from what genforms generates: run go generate ./kwire")
	}
}

// A wire form lacking a piece fails the generation, naming the piece,
// rather than leaving its codes to the general path.
func TestFormLackingAPieceFailsTheGeneration(t *testing.T) {
	skeleton, err := os.ReadFile("loops.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := formFuncs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	saved, savedFixed := compact, fixedForms
	t.Cleanup(func() { compact, fixedForms = saved, savedFixed })

	compact.RecordsReader = ""
	if _, err := generate(skeleton, funcs); err == nil || !strings.Contains(err.Error(), "compact") || !strings.Contains(err.Error(), "RecordsReader") {
		t.Fatalf("a compact form without RecordsReader: %v, want an error naming it", err)
	}
	compact = saved
	compact.Put = "compactPutt"
	if _, err := generate(skeleton, funcs); err == nil || !strings.Contains(err.Error(), "compactPutt") {
		t.Fatalf("a compact form naming a function engine_forms.go lacks: %v, want an error naming it", err)
	}
	compact.Put = "compactPutNull"
	if _, err := generate(skeleton, funcs); err == nil || !strings.Contains(err.Error(), "2 parameters") {
		t.Fatalf("a compact Put of one parameter: %v, want an error naming the count", err)
	}
	compact = saved

	fixedForms = append([]fixedForm{{Codes: "cInt24", Kinds: "kInt32", W: 3, Acc: "uint32", Put: "put32", Get: "int32Get"}}, savedFixed...)
	if _, err := generate(skeleton, funcs); err == nil || !strings.Contains(err.Error(), "cInt24") {
		t.Fatalf("a fixed width no run stores: %v, want an error naming it", err)
	}
	fixedForms = append([]fixedForm{{Codes: "cInt32b", Kinds: "kInt32", W: 4, Acc: "uint32"}}, savedFixed...)
	if _, err := generate(skeleton, funcs); err == nil || !strings.Contains(err.Error(), "cInt32b") {
		t.Fatalf("a fixed form without Put and Get: %v, want an error naming it", err)
	}
	fixedForms = savedFixed

	savedOrder := codeOrder
	t.Cleanup(func() { codeOrder = savedOrder })
	codeOrder = savedOrder[1:]
	if _, err := generate(skeleton, funcs); err == nil || !strings.Contains(err.Error(), "codeOrder") {
		t.Fatalf("a code left out of codeOrder: %v, want an error naming codeOrder", err)
	}
	codeOrder = savedOrder
	if _, err := generate(skeleton, funcs); err != nil {
		t.Fatalf("the description as it is: %v", err)
	}
}

// inline copies a body of the one shape it takes, renamed token by
// token, and refuses any other.
func TestInline(t *testing.T) {
	funcs, err := formFuncs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	got, err := inline(funcs["compactRecordsLength"], "compactRecordsLength", []string{"m", "after"}, "buf", "at")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "m, after := -2, at\n") || strings.Contains(got, "src") || strings.Contains(got, "off") || strings.Contains(got, "return") {
		t.Fatalf("renamed copy:\n%s", got)
	}
	for _, name := range []string{"int32Length", "compactPut", "nosuch"} { // two returns; no results; none
		if _, err := inline(funcs[name], name, []string{"n", "next"}, "src", "off"); err == nil {
			t.Errorf("inline %s: no error", name)
		}
	}
}

// copyBody replaces parameters token by token: not a field or method
// name that happens to share a parameter's name, and an argument that is
// not a primary expression in parentheses.
func TestCopyBody(t *testing.T) {
	funcs, err := formFuncs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fn   string
		expr bool
		args []string
		want string
	}{
		{"compactPut", false, []string{"base.at(n)", "len(s)"}, "*base.at(n).uint8() = byte(len(s) + 1)"},
		{"compactPut", false, []string{"at", "a+b"}, "*at.uint8() = byte((a+b) + 1)"},
		{"compactSize", true, []string{"h.len"}, "wire.SizeUvarint(uint32(h.len + 1))"},
		{"boolAccepted", true, []string{"d", "src", "off"}, "(src[off] <= 1 || !d.exact)"},
	} {
		got, ok, err := copyBody(funcs[c.fn], c.fn, c.expr, c.args)
		if err != nil || !ok || got != c.want {
			t.Errorf("%s%v: %q %v %v, want %q", c.fn, c.args, got, ok, err, c.want)
		}
	}
	// A body of more than one statement stays a call.
	if _, ok, err := copyBody(funcs["compactPutLong"], "compactPutLong", true, []string{"base", "n", "l"}); ok || err != nil {
		t.Errorf("compactPutLong copied (%v)", err)
	}
}
