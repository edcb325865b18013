package kwiretest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/customapi"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kwiretest"
)

func sampleRequest() *customapi.LedgerRequest {
	owner, memo := "ops", "rent"
	return &customapi.LedgerRequest{
		LedgerID: kwire.UUID{1, 2, 3},
		Owner:    &owner,
		Accounts: []customapi.Account{{
			Name: "cash", Delta: -1500, Labels: []string{"eur"},
			Entries: []customapi.Entry{{ID: kwire.UUID{9}, Amount: 1500, Memo: &memo, Parts: [][]int32{{1, 2}, {}}}},
		}},
		Legacy: 7, // in v0-1 only, and ignorable: dropped from v2 on
	}
}

func TestRoundTripCustomAPI(t *testing.T) {
	kwiretest.RoundTrip(t, sampleRequest())
	withNote := sampleRequest()
	withNote.Note = "month end" // tagged from v2; v0 and v1 cannot carry it, so they skip this value
	kwiretest.RoundTrip(t, withNote)
	kwiretest.RoundTrip(t, &customapi.LedgerResponse{ThrottleTimeMs: 5, Balances: []customapi.Balance{{Name: "cash", Amount: -1, Pending: 3}}})
}

func TestGenCustomAPI(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(12)
	params.MinSuccessfulTests = 200
	ps := gopter.NewProperties(params)
	for v := int16(0); v <= 3; v++ {
		ps.Property(fmt.Sprintf("LedgerRequest v%d", v), prop.ForAll(
			func(m *customapi.LedgerRequest) (bool, error) { err := kwiretest.Check(m, v); return err == nil, err },
			kwiretest.Gen(&customapi.LedgerRequest{}, v)))
		ps.Property(fmt.Sprintf("LedgerResponse v%d", v), prop.ForAll(
			func(m *customapi.LedgerResponse) (bool, error) { err := kwiretest.Check(m, v); return err == nil, err },
			kwiretest.Gen(&customapi.LedgerResponse{}, v)))
	}
	ps.TestingRun(t)
}

func TestGenPanicsOnAMistake(t *testing.T) {
	assert.PanicsWithValue(t, "kwiretest.Gen: customapi.LedgerRequest has versions 0-3, not 4", func() {
		kwiretest.Gen(&customapi.LedgerRequest{}, 4)
	})
	type bad struct {
		_ struct{} `kafka:"versions=0"`
		N int      `kafka:"v=0+"`
	}
	assert.Panics(t, func() { kwiretest.Gen(&bad{}, 0) })
}

func TestGoldenCustomAPI(t *testing.T) {
	withNote := sampleRequest()
	withNote.Note = "month end"
	kwiretest.GoldenRequest(t, "ledger_request_v3", withNote, 3)
	kwiretest.GoldenRequest(t, "ledger_request_v1", sampleRequest(), 1)
	kwiretest.GoldenResponse(t, "ledger_response_v2", &customapi.LedgerResponse{Balances: []customapi.Balance{{Name: "cash", Pending: 300}}}, 2)
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	panic(r)
}

// run calls f with a recorder, stopping at Fatalf as a test would.
func run(f func(tb testing.TB)) *recorder {
	r := &recorder{}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		f(r)
	}()
	return r
}

func TestCheckFindsAValueThatDoesNotComeBack(t *testing.T) {
	// Legacy is not in v2 and is ignorable: encoding drops it; and the
	// tagged fields hold Go zeros, not their defaults, which decoding
	// gives back. So the decoded value differs. RoundTrip projects the
	// value it is given first, so it passes.
	err := kwiretest.Check(sampleRequest(), 2)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the decoded value differs")
	legal := new(customapi.LedgerRequest)
	require.NoError(t, kwire.FillMinimal(legal, 2))
	require.NoError(t, kwiretest.Check(legal, 2))
}

func TestRoundTripReportsMistakes(t *testing.T) {
	type badTags struct {
		_    struct{} `kafka:"versions=0-1"`
		Name string   `kafka:"v=0+,nullable=1+"`
	}
	r := run(func(tb testing.TB) { kwiretest.RoundTrip(tb, &badTags{}) })
	assert.True(t, r.fatal)
	assert.Equal(t, []string{`kwiretest: kwire: plan kwiretest_test.badTags.Name: invalid kafka struct tag: key "nullable" at version 1: type string cannot be null (null needs *string, []byte, a slice or a pointer to a struct)`}, r.errors)

	type noBound struct {
		N int32 `kafka:"v=0+"`
	}
	r = run(func(tb testing.TB) { kwiretest.RoundTrip(tb, &noBound{}) })
	assert.True(t, r.fatal)
	assert.Contains(t, r.errors[0], "pass kwiretest.Versions")
	r = run(func(tb testing.TB) {
		kwiretest.RoundTrip(tb, &noBound{N: 3}, kwiretest.Versions(0, 2), kwiretest.Samples(5))
	})
	assert.Empty(t, r.errors)
}

func TestGoldenReportsADifference(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "testdata"), 0o755))
	src, err := os.ReadFile(filepath.Join("testdata", "ledger_response_v2.golden"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "testdata", "x.golden"), src, 0o644))
	t.Chdir(dir)

	same := &customapi.LedgerResponse{Balances: []customapi.Balance{{Name: "cash", Pending: 300}}}
	r := run(func(tb testing.TB) { kwiretest.GoldenResponse(tb, "x", same, 2) })
	assert.Empty(t, r.errors)

	changed := &customapi.LedgerResponse{Balances: []customapi.Balance{{Name: "cash", Pending: 301}}}
	r = run(func(tb testing.TB) { kwiretest.GoldenResponse(tb, "x", changed, 2) })
	require.Len(t, r.errors, 1)
	assert.True(t, strings.HasPrefix(r.errors[0], "testdata/x.golden differs from this run at line "), r.errors[0])

	r = run(func(tb testing.TB) { kwiretest.GoldenResponse(tb, "missing", same, 2) })
	assert.True(t, r.fatal)
	assert.Contains(t, r.errors[0], "create it with go test -kwiretest.update")
}
