#!/bin/sh
# fetch-icount.sh BINARY: instructions per fetch (icount.sh, LOOP=1 GOGC=off)
# of every shape and codec of BenchmarkFetch, kgo against kwire and
# kwire-iter, with the floor of BenchmarkFetchFloor (CRC-32C alone,
# decompression alone), as the table in README's issue-29 section.
#   go test -c -o /tmp/interop.test . && sh fetch-icount.sh /tmp/interop.test
# SHAPES and CODECS narrow it; LIBS="kgo kwire kwire-iter kafka-go" adds kafka-go.
bin=$1
here=$(dirname "$0")
count() { LOOP=1 GOGC=off sh "$here/icount.sh" "$bin" "$1" 2 5 | awk '{print $2}'; }
m() { echo "scale=2; $1/1000000" | bc | sed 's/^\./0./'; }
ratio() { echo "scale=3; $1/$2" | bc | sed 's/^\./0./'; }
echo "| shape | codec | kgo | kwire (ratio) | kwire-iter (ratio) | CRC alone | decompression alone | floor (sum) | floor / kgo | kwire - floor | kgo - floor | meets ≤ 0.9× |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for s in ${SHAPES:-base small large headers manybatches onebatch}; do
	for c in ${CODECS:-none gzip snappy lz4 zstd}; do
		kgo=$(count "Fetch\$/shape=$s/codec=$c/lib=kgo\$")
		kw=$(count "Fetch\$/shape=$s/codec=$c/lib=kwire\$")
		it=$(count "Fetch\$/shape=$s/codec=$c/lib=kwire-iter\$")
		crc=$(count "FetchFloor/shape=$s/codec=$c/op=crc\$")
		dec=0
		[ "$c" = none ] || dec=$(count "FetchFloor/shape=$s/codec=$c/op=decompress\$")
		floor=$((crc + dec))
		meets=no
		[ "$(echo "$kw*10 <= $kgo*9" | bc)" = 1 ] && meets=yes
		echo "| $s | $c | $(m "$kgo") M | $(m "$kw") M ($(ratio "$kw" "$kgo")×) | $(m "$it") M ($(ratio "$it" "$kgo")×) | $(m "$crc") M | $(m "$dec") M | $(m "$floor") M | $(ratio "$floor" "$kgo")× | $(m $((kw - floor))) M | $(m $((kgo - floor))) M | $meets |"
	done
done
