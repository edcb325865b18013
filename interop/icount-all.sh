#!/bin/sh
# icount-all.sh BINARY: instructions per operation, kwire and kmsg, for every
# row of the interop benchmarks, and their ratio (see icount.sh).
bin=$1
here=$(dirname "$0")
# ROWS adds rows, ONLY replaces them: ONLY="Scaling/Encode/MetadataResponseV12Topics1 ..."
for row in ${ONLY:-Encode/MetadataResponseV8 Encode/MetadataResponseV12 Encode/ConsumerGroupHeartbeatRequestV1 \
	Encode/HeartbeatRequestV4 Encode/ProduceRequestV9 Encode/FetchResponseV12 \
	Decode/MetadataResponseV8 Decode/MetadataResponseV12 Decode/ConsumerGroupHeartbeatRequestV1 \
	Decode/HeartbeatRequestV4 Decode/ProduceRequestV9 Decode/FetchResponseV12 \
	EncodeFrame/MetadataResponseV8 EncodeFrame/HeartbeatRequestV4 \
	DecodeFrame/MetadataResponseV8 DecodeFrame/HeartbeatRequestV4} ${ROWS}; do
	# 100,000 operations apart for the small rows: a one-off in the
	# runtime (the heap growing) then moves a row by under 1 %, where at
	# 10,000 apart kmsg's Heartbeat decode read 1,082 to 1,129.
	lo=20000 hi=120000
	case $row in
	*Topics1000) lo=4 hi=24 ;;
	*Topics100) lo=20 hi=120 ;;
	*Topics10) lo=200 hi=1200 ;;
	*Topics1) lo=2000 hi=12000 ;;
	*Metadata*) lo=200 hi=1200 ;;
	*Fetch*) lo=2000 hi=12000 ;;
	esac
	k=$("$here/icount.sh" "$bin" "^Benchmark${row%%/*}\$/${row#*/}\$/lib=kmsg\$" $lo $hi | awk '{print $2}')
	w=$("$here/icount.sh" "$bin" "^Benchmark${row%%/*}\$/${row#*/}\$/lib=kwire\$" $lo $hi | awk '{print $2}')
	echo "$row kmsg=$k kwire=$w ratio=$(echo "scale=2; $w/$k" | bc)"
done
