package kwiretest

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
)

// update rewrites golden files instead of comparing with them:
// go test -run TestX -kwiretest.update
var update = flag.Bool("kwiretest.update", false, "rewrite kwiretest golden files under testdata/")

// GoldenRequest compares the request frame of msg at version (correlation
// id 1, client id "kwiretest") and its layout tree with
// testdata/NAME.golden, or writes that file when the test runs with
// -kwiretest.update.
func GoldenRequest(t testing.TB, name string, msg any, version int16) {
	t.Helper()
	client := "kwiretest"
	frame, tree, err := kwire.LayoutRequest(msg, version, 1, &client)
	if err != nil {
		t.Fatalf("kwiretest: %v", err)
	}
	Golden(t, name, frame, tree)
}

// GoldenResponse is GoldenRequest for a response frame.
func GoldenResponse(t testing.TB, name string, msg any, version int16) {
	t.Helper()
	frame, tree, err := kwire.LayoutResponse(msg, version, 1)
	if err != nil {
		t.Fatalf("kwiretest: %v", err)
	}
	Golden(t, name, frame, tree)
}

// Golden compares a frame (as a hex dump) and its layout tree with
// testdata/NAME.golden, or writes the file with -kwiretest.update.
func Golden(t testing.TB, name string, frame []byte, tree *kwire.LayoutNode) {
	t.Helper()
	got := "# kwiretest golden file: a frame and its layout. Rewrite with go test -kwiretest.update\n\n" +
		hex.Dump(frame) + "\n" + tree.Format()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatalf("kwiretest: %v", err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("kwiretest: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("kwiretest: %v (create it with go test -kwiretest.update)", err)
	}
	if bytes.Equal(want, []byte(got)) {
		return
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Errorf("%s differs from this run at line %d:\nwant %s\n got %s\n(rewrite it with go test -kwiretest.update if the change is intended)", path, i+1, w, g)
			return
		}
	}
}
