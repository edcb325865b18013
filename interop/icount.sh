#!/bin/sh
# icount.sh BINARY BENCH-REGEX: instructions per operation of one benchmark,
# counted by callgrind (immune to the load of a shared machine). It runs the
# benchmark at two fixed iteration counts and divides the difference, so
# setup and the test binary's own start-up cancel out.
#   go test -c -o /tmp/interop.test . && ./icount.sh /tmp/interop.test 'Encode/HeartbeatRequestV4/lib=kwire$'
set -e
bin=$1 bench=$2 lo=${3:-2000} hi=${4:-12000}
count() {
	out=$(mktemp)
	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" -test.run '^$' -test.bench "$bench" -test.benchtime "${1}x" -test.count 1 >/dev/null 2>&1
	grep '^summary:' "$out" | awk '{print $2}'
	rm -f "$out"
}
a=$(count "$lo")
b=$(count "$hi")
echo "$bench $(( (b - a) / (hi - lo) ))"
