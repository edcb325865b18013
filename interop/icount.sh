#!/bin/sh
# icount.sh BINARY BENCH-REGEX: instructions per operation of one benchmark,
# counted by callgrind (immune to the load of a shared machine). It runs the
# benchmark at two fixed iteration counts and divides the difference, so
# setup and the test binary's own start-up cancel out.
#   go test -c -o /tmp/interop.test . && ./icount.sh /tmp/interop.test 'Encode/HeartbeatRequestV4/lib=kwire$'
# LOOP=1 counts only inside the benchmark closures (the b.Loop bodies and
# what they call): the runtime's background work (GC, scavenger) falls
# outside, so an encode row counts the same on every run.
set -e
bin=$1 bench=$2 lo=${3:-2000} hi=${4:-12000}
only=
if [ -n "$LOOP" ]; then
	only="--toggle-collect=github.com/kwirelabs/kwire/interop.bench*.func* --toggle-collect=github.com/kwirelabs/kwire/interop.Benchmark*.func*"
fi
count() {
	out=$(mktemp)
	# shellcheck disable=SC2086
	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind $only --callgrind-out-file="$out" "$bin" -test.run '^$' -test.bench "$bench" -test.benchtime "${1}x" -test.count 1 >/dev/null 2>&1
	grep '^summary:' "$out" | awk '{print $2}'
	rm -f "$out"
}
a=$(count "$lo")
b=$(count "$hi")
echo "$bench $(( (b - a) / (hi - lo) ))"
