#!/usr/bin/env bash
# Captures Kafka traffic on the loopback (kgo via benchcap, kcat,
# kafka-python, all against kfake) with tcpdump, then times kwire sniff
# and tshark's Kafka dissector on the same file and counts what each
# decoded. Needs root (tcpdump), kcat, python3-kafka, tshark.
# Usage: interop/snifftest/bench.sh [DIR]   (run from the repository root)
set -euo pipefail
umask 077 # the capture and the decoded logs hold traffic
dir=${1:-$(mktemp -d)}
port=39092
root=$(pwd)
go build -o "$dir/kwire" ./cmd/kwire
(cd interop && go build -o "$dir/benchcap" ./snifftest/benchcap)
cd "$dir"
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
