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
	want, err := generate(skeleton)
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
	saved, savedFixed := compact, fixedForms
	t.Cleanup(func() { compact, fixedForms = saved, savedFixed })

	compact.ReadRecords = ""
	if _, err := generate(skeleton); err == nil || !strings.Contains(err.Error(), "Compact") || !strings.Contains(err.Error(), "ReadRecords") {
		t.Fatalf("a compact form without ReadRecords: %v, want an error naming it", err)
	}
	compact = saved

	fixedForms = append([]fixedForm{{Codes: "cInt24", Kinds: "kInt32", W: 3, Acc: "uint32", Put: "put24(AT, V)", Get: "get24(SRC[OFF:])"}}, savedFixed...)
	if _, err := generate(skeleton); err == nil || !strings.Contains(err.Error(), "cInt24") {
		t.Fatalf("a fixed width no run stores: %v, want an error naming it", err)
	}
	fixedForms = append([]fixedForm{{Codes: "cInt32b", Kinds: "kInt32", W: 4, Acc: "uint32"}}, savedFixed...)
	if _, err := generate(skeleton); err == nil || !strings.Contains(err.Error(), "cInt32b") {
		t.Fatalf("a fixed form without Put and Get: %v, want an error naming it", err)
	}
	fixedForms = savedFixed

	savedOrder := codeOrder
	t.Cleanup(func() { codeOrder = savedOrder })
	codeOrder = savedOrder[1:]
	if _, err := generate(skeleton); err == nil || !strings.Contains(err.Error(), "codeOrder") {
		t.Fatalf("a code left out of codeOrder: %v, want an error naming codeOrder", err)
	}
	codeOrder = savedOrder
	if _, err := generate(skeleton); err != nil {
		t.Fatalf("the description as it is: %v", err)
	}
}
