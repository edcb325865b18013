#!/usr/bin/env bash
# Captures Kafka traffic on the loopback (kgo via benchcap, kcat,
# kafka-python, all against kfake) with tcpdump, then times kwire sniff
# and tshark's Kafka dissector on the same file and counts what each
# decoded. Needs root (tcpdump), kcat, python3-kafka, tshark.
#
# Then, and alone with --shapes (no root, kcat or python needed), it
# times both on made-up captures of one traffic shape each (shapes/:
# 100,000 small Produce requests with their responses, 200 Fetch
# responses of 256 KiB, 2,000 Metadata exchanges of 300 partitions),
# PASSES (default 6) passes interleaved, and prints per shape the median
# wall and CPU time of each and their ratio.
# Usage: interop/snifftest/bench.sh [--shapes] [DIR]   (run from the repository root)
set -euo pipefail
umask 077 # the capture and the decoded logs hold traffic
only_shapes=
if [ "${1:-}" = --shapes ]; then only_shapes=1; shift; fi
dir=${1:-$(mktemp -d)}
port=39092
root=$(pwd)
go build -o "$dir/kwire" ./cmd/kwire
(cd interop && go build -o "$dir/benchcap" ./snifftest/benchcap && go build -o "$dir/shapes" ./snifftest/shapes)
cd "$dir"

shapes() {
  local names="small-produce large-fetch metadata"
  for s in $names; do [ -s "$s.pcap" ] || ./shapes -shape "$s" -o "$s.pcap"; done
  ls -l $(for s in $names; do echo "$s.pcap"; done)
  : > shapes.times
  for pass in $(seq 1 "${PASSES:-6}"); do
    for s in $names; do
      /usr/bin/time -a -o shapes.times -f "$s kwire %e %U %S" ./kwire sniff -r "$s.pcap" -json > /dev/null
      /usr/bin/time -a -o shapes.times -f "$s tshark %e %U %S" tshark -r "$s.pcap" -d tcp.port==9092,kafka -T json 2> /dev/null > /dev/null
    done
  done
  echo "shape: median wall (s) kwire / tshark = ratio; median CPU (user+sys, s) kwire / tshark = ratio; passes"
  for s in $names; do
    awk -v s="$s" '$1 == s { w[$2] = w[$2] " " $3; c[$2] = c[$2] " " ($4 + $5); n[$2]++ }
      function median(list,   a, k, i, j, t) {
        k = split(list, a, " ")
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
      }
      END {
        kw = median(w["kwire"]); tw = median(w["tshark"]); kc = median(c["kwire"]); tc = median(c["tshark"])
        printf "%s: %.2f / %.2f = %.1fx; %.2f / %.2f = %.1fx; %d\n", s, kw, tw, tw / kw, kc, tc, tc / kc, n["kwire"]
      }' shapes.times
  done
}

if [ -n "$only_shapes" ]; then shapes; exit; fi
rm -f bench.pcap
tcpdump -i lo -B 524288 -s 0 -Z root -w bench.pcap "tcp port $port" 2> tcpdump.err &
tcpdump=$!
sleep 2
./benchcap -port $port > benchcap.out 2>&1 &
until grep -q holding benchcap.out; do sleep 1; done
kcat -L -b 127.0.0.1:$port > /dev/null
kcat -C -b 127.0.0.1:$port -t bench-a -o beginning -c 5000 -q -e > /dev/null
seq 1 200 | sed 's/.*/k&:v&/' | kcat -P -b 127.0.0.1:$port -t bench-b -K:
/usr/bin/python3 - <<PY
from kafka import KafkaProducer, KafkaConsumer
p = KafkaProducer(bootstrap_servers='127.0.0.1:$port', client_id='bench-python')
for i in range(500):
    p.send('bench-a', key=b'py%d' % i, value=b'x' * 100)
p.flush(); p.close()
c = KafkaConsumer('bench-b', bootstrap_servers='127.0.0.1:$port', group_id=None, auto_offset_reset='earliest', consumer_timeout_ms=2000, client_id='bench-python')
n = 0
for m in c:
    n += 1
    if n >= 3000: break
c.close()
PY
wait %2 || true
kill -INT $tcpdump; wait $tcpdump || true
cat tcpdump.err
ls -l bench.pcap
for i in 1 2 3 4 5; do /usr/bin/time -f "kwire sniff -json: %e s wall, %U s user, %S s sys, %M KB max RSS" ./kwire sniff -r bench.pcap -json > kwire.json; done
/usr/bin/time -f "tshark -T json: %e s wall, %U s user, %S s sys, %M KB max RSS" tshark -r bench.pcap -d tcp.port==$port,kafka -T json > tshark.json 2> >(grep -v 'Running as user' >&2)
./kwire sniff -r bench.pcap -summary | tail -3
tshark -r bench.pcap -d tcp.port==$port,kafka -Y kafka -T fields -E occurrence=a -E separator='|' \
  -e kafka.correlation_id -e _ws.expert.message 2>/dev/null |
  awk -F'|' '{n=split($1,a,","); pdus+=n; if ($2=="") clean+=n; else if ($2 ~ /Malformed/) bad+=n; else if ($2 ~ /Request missing/) unpaired+=n}
    END {print "tshark: " pdus " Kafka PDUs; " clean " without an expert note; " bad " in packets marked malformed; " unpaired " responses with the request missing"}'
shapes
