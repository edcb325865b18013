package proctest

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOutputHoldsTheEndAfterWait: a process that writes many lines and
// exits at once has every one of them in its Output once Wait returns,
// the last included, and each was handed to onLine in order.
func TestOutputHoldsTheEndAfterWait(t *testing.T) {
	var lines []string
	out := NewOutput(func(l string) { lines = append(lines, l) })
	cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt 2000 ]; do echo "line $i" >&2; i=$((i+1)); done; printf 'no newline' >&2`)
	cmd.Stderr = out
	p, err := Start(cmd)
	require.NoError(t, err)
	require.NoError(t, p.Wait(time.Minute))
	text := out.String()
	require.True(t, strings.HasSuffix(text, "line 1999\nno newline"), "the end of the output: %q", text[max(0, len(text)-40):])
	require.Len(t, lines, 2000)
	for i, l := range lines {
		require.Equal(t, "line "+strconv.Itoa(i), l)
	}
}

// TestAwait: Await finds a line written after it started waiting, does
// not take a line still being written (it gives up at its deadline),
// and gives up with nil when the process exits without the line.
func TestAwait(t *testing.T) {
	out := NewOutput(nil)
	cmd := exec.Command("sh", "-c", `read x; printf 'ready at 1'; read x; echo 2; read x; echo done`)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	cmd.Stderr, cmd.Stdout = out, out
	p, err := Start(cmd)
	require.NoError(t, err)
	defer p.Kill()
	ready := regexp.MustCompile(`ready at (\d+)`)

	_, err = in.Write([]byte("go\n"))
	require.NoError(t, err)
	for deadline := time.Now().Add(time.Minute); !strings.Contains(out.String(), "ready at 1"); time.Sleep(time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the process wrote nothing")
	}
	// "ready at 1" without its newline is not a line yet.
	require.Nil(t, out.Await(ready, p.Exited(), 10*time.Millisecond))
	_, err = in.Write([]byte("go\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"ready at 12", "12"}, out.Await(ready, p.Exited(), time.Minute))

	in.Write([]byte("go\n"))
	require.Nil(t, out.Await(regexp.MustCompile(`never`), p.Exited(), time.Minute), "the process exited")
	require.NoError(t, p.Wait(time.Minute))
	require.Equal(t, "ready at 12\ndone\n", out.String())
}

// TestWaitKillsAtTheDeadline: a process still running at Wait's deadline
// is killed and Wait says so.
func TestWaitKillsAtTheDeadline(t *testing.T) {
	p, err := Start(exec.Command("sleep", "600"))
	require.NoError(t, err)
	require.ErrorIs(t, p.Wait(50*time.Millisecond), ErrTimeout)
	require.NotNil(t, p.Cmd.ProcessState, "waited for")
}
