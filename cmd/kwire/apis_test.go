package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPIsSizesIsTheCommittedTable: `kwire apis -sizes` prints the table
// `go generate ./messages` commits, notes included, but for the custom
// API this package's tests register (custom_api_test.go).
func TestAPIsSizesIsTheCommittedTable(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"apis", "-sizes"}, &out))
	var got []string
	for _, line := range strings.SplitAfter(out.String(), "\n") {
		if !strings.HasPrefix(line, "1000\t") {
			got = append(got, line)
		}
	}
	want, err := os.ReadFile("../../messages/testdata/minimal-sizes.tsv")
	require.NoError(t, err)
	assert.Equal(t, string(want), strings.Join(got, ""), "regenerate with `go generate ./messages`")
	assert.Contains(t, out.String(), "\n68\tConsumerGroupHeartbeat\t1\t55\t51\tresponse includes 1 presence marker")

	file := t.TempDir() + "/sizes.tsv"
	require.NoError(t, run([]string{"apis", "-sizes", "-o", file}, &out))
	written, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, out.String(), string(written), "-o writes what standard output gets")
	assert.ErrorContains(t, run([]string{"apis", "-o", file}, &out), "usage: kwire apis [-sizes [-o FILE]]")
}
