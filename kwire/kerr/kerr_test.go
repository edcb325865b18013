package kerr_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire/kerr"
)

// The generated table must say exactly what the facts file says.
func TestTableMatchesTSV(t *testing.T) {
	data, err := os.ReadFile("error-codes.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")[1:]
	codes := kerr.Codes()
	if len(lines) != 138 || len(codes) != 138 {
		t.Fatalf("%d rows in the TSV, %d codes in the table; want 138", len(lines), len(codes))
	}
	if codes[0] != -1 || codes[len(codes)-1] != 136 {
		t.Fatalf("codes run %d..%d, want -1..136", codes[0], codes[len(codes)-1])
	}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		n, _ := strconv.Atoi(f[0])
		c := codes[i]
		if int(c) != n || c.Name() != f[1] || strconv.FormatBool(c.Retriable()) != f[2] {
			t.Errorf("row %q: table has %d %s %v", l, c, c.Name(), c.Retriable())
		}
		if !c.Known() || c.Description() == "" {
			t.Errorf("%s: not known or no description", f[1])
		}
	}
}

func TestErrorsIsEveryCode(t *testing.T) {
	for _, c := range kerr.Codes() {
		wrapped := fmt.Errorf("produce to t-0: %w", c)
		if !errors.Is(wrapped, c) {
			t.Errorf("%s: errors.Is fails through a wrap", c)
		}
		if errors.Is(wrapped, c+1) || errors.Is(wrapped, c-1) {
			t.Errorf("%s: errors.Is matches a neighbour", c)
		}
		var got kerr.Code
		if !errors.As(wrapped, &got) || got != c {
			t.Errorf("%s: errors.As gives %v", c, got)
		}
		if kerr.IsRetriable(wrapped) != c.Retriable() {
			t.Errorf("%s: IsRetriable disagrees with Retriable", c)
		}
		if back, ok := kerr.ByName(c.Name()); !ok || back != c {
			t.Errorf("ByName(%s) = %v, %v", c.Name(), back, ok)
		}
		err := kerr.Err(int16(c))
		if (c == kerr.None) != (err == nil) || (err != nil && !errors.Is(err, c)) {
			t.Errorf("Err(%d) = %v", c, err)
		}
		if want := c.Name() + " (" + strconv.Itoa(int(c)) + "): "; !strings.HasPrefix(c.Error(), want) {
			t.Errorf("Error() = %q, want prefix %q", c.Error(), want)
		}
	}
}

func TestNamedConstants(t *testing.T) {
	for _, tc := range []struct {
		c         kerr.Code
		n         int16
		name      string
		retriable bool
	}{
		{kerr.UnknownServerError, -1, "UNKNOWN_SERVER_ERROR", false},
		{kerr.None, 0, "NONE", false},
		{kerr.NotLeaderOrFollower, 6, "NOT_LEADER_OR_FOLLOWER", true},
		{kerr.InvalidTopicException, 17, "INVALID_TOPIC_EXCEPTION", false},
		{kerr.UnknownTopicID, 100, "UNKNOWN_TOPIC_ID", true},
		{kerr.ControllerIDNotRegistered, 136, "CONTROLLER_ID_NOT_REGISTERED", false},
	} {
		if int16(tc.c) != tc.n || tc.c.Name() != tc.name || tc.c.Retriable() != tc.retriable {
			t.Errorf("%s: got %d %s %v", tc.name, int16(tc.c), tc.c.Name(), tc.c.Retriable())
		}
	}
}

func TestUnknownCode(t *testing.T) {
	c := kerr.Code(137)
	if c.Known() || c.Name() != "UNKNOWN_ERROR_CODE_137" || c.Retriable() || !errors.Is(fmt.Errorf("x: %w", c), kerr.Code(137)) {
		t.Fatalf("code 137: %v %s %v", c.Known(), c.Name(), c.Retriable())
	}
	if _, ok := kerr.ByName("NO_SUCH_ERROR"); ok {
		t.Fatal("ByName found a name not in the table")
	}
}
