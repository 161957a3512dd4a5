#!/usr/bin/env bash
# bench-replay.sh: end-to-end replay speed and memory of rdmatop against
# tshark on the same large captures (issue 12, "Scale: captures of AI
# clusters with 100k+ QPs"):
#
#   lossy x40  testdata/rxe/pcap/lossy1.pcap copied COPIES times (mergecap -a);
#              target: rdmatop >= 50x faster than tshark
#   four traffic shapes from tools/gen-manyqp (issue 19), each with the
#   targets rdmatop >= 10x faster than tshark and peak RSS <= 200 MB:
#     one pair     120,000 QPs x 5 packets between one pair of hosts (one
#                  server and one storage target; every flow in one pair's
#                  index)
#     64 hosts     120,000 QPs x 5 packets among 64 hosts (issue 12)
#     churn        1,000,000 short-lived QPs x 2 packets (SEND, ACK): the
#                  flow table (65,536) evicts all the time
#     long-lived   100 QPs x 6,000 packets at a high rate
#
# Both are timed the same way, output to /dev/null:
#   rdmatop replay FILE --json
#   tshark -n -o infiniband.rroce.port:4791 -r FILE -T fields -e infiniband.bth.psn
# Wall time is measured around the run (nanosecond clock); peak RSS is
# /usr/bin/time's %M (its %e, 10 ms resolution, is too coarse for a
# sub-second run). With --runs N each is run N times: the fastest wall time
# and the largest peak RSS are reported.
#
# usage: tools/bench-replay.sh [--strict] [--runs N] [--qps N] [COPIES]
#   COPIES    copies of lossy1.pcap (default 40)
#   --qps N   QPs of the one-pair and 64-host shapes (default 120000)
#   --strict  exit 1 when a target is missed (default: report and exit 0)
#   RDMATOP=/path/to/rdmatop  time that binary instead of building ./cmd/rdmatop
#
# Needs go, tshark, mergecap and capinfos (Debian packages tshark,
# wireshark-common) and GNU time at /usr/bin/time (Debian package time).
# The captures go to a temporary directory (about 0.6 GB), removed at exit.
set -euo pipefail
cd "$(dirname "$0")/.."

# Targets of issue 12.
lossy_speedup=50
manyqp_speedup=10
manyqp_rss_mb=200

strict=0 runs=1 qps=120000 copies=40
usage() { sed -n '/^# usage:/,/^# The captures/p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--strict) strict=1 ;;
	--runs) runs=${2:?--runs needs a number}; shift ;;
	--qps) qps=${2:?--qps needs a number}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "bench-replay.sh: unknown flag $1" >&2; usage >&2; exit 2 ;;
	*) copies=$1 ;;
	esac
	shift
done

for tool in go tshark mergecap capinfos; do
	command -v "$tool" >/dev/null || { echo "bench-replay.sh: $tool not found (Debian: tshark, wireshark-common)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench-replay.sh: /usr/bin/time not found (Debian package time)" >&2; exit 2; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GOFLAGS=${GOFLAGS:--buildvcs=false}
if [ -n "${RDMATOP:-}" ]; then
	rdmatop=$RDMATOP
else
	go build -o "$tmp/rdmatop" ./cmd/rdmatop
	rdmatop=$tmp/rdmatop
fi
go build -o "$tmp/gen-manyqp" ./tools/gen-manyqp

echo "host: $(nproc) CPUs, $(uname -sr); $("$rdmatop" --version 2>/dev/null | head -n1 || true)"
echo "tshark: $(tshark --version 2>/dev/null | head -n1)"

# measure OKCODES CMD...: runs CMD (stdout and stderr captured, not shown)
# and sets wall (s) and rss (KB). OKCODES lists the exit statuses that mean
# it worked ("0 1" for rdmatop: 1 is "findings").
measure() {
	local ok=$1 s e rc
	shift
	rc=0
	s=$(date +%s%N)
	/usr/bin/time -o "$tmp/time" -f '%e %M' "$@" >/dev/null 2>"$tmp/stderr" || rc=$?
	e=$(date +%s%N)
	if [[ " $ok " != *" $rc "* ]]; then
		echo "bench-replay.sh: $* exited with status $rc:" >&2
		tail -n 20 "$tmp/stderr" >&2
		exit 2
	fi
	wall=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", (e - s) / 1e9 }')
	rss=$(tail -n 1 "$tmp/time" | awk '{ print $2 }')
}

# best OKCODES CMD...: measure --runs times; fastest wall, largest RSS.
best() {
	local ok=$1 w='' r=0 i
	shift
	for ((i = 0; i < runs; i++)); do
		measure "$ok" "$@"
		if [ -z "$w" ] || awk -v a="$wall" -v b="$w" 'BEGIN { exit !(a < b) }'; then w=$wall; fi
		if ((rss > r)); then r=$rss; fi
	done
	wall=$w rss=$r
}

missed=0 checked=0
# verdict OK TEXT: counts and prints PASS or FAIL.
verdict() {
	checked=$((checked + 1))
	if [ "$1" = 1 ]; then echo "  $2  PASS"; else echo "  $2  FAIL"; missed=$((missed + 1)); fi
}

# bench NAME FILE SPEEDUP [RSSMB]: rdmatop and tshark on FILE against the
# targets (speed-up at least SPEEDUP, rdmatop's peak RSS at most RSSMB).
bench() {
	local name=$1 file=$2 target=$3 rsslimit=${4:-} pkts size rw rr tw tr up ok
	pkts=$(capinfos -cM "$file" | awk -F: '/Number of packets/ { print $2 + 0 }')
	size=$(stat -c %s "$file" | awk '{ printf "%.1f", $1 / 1e6 }')
	echo
	echo "== $name: $pkts packets, $size MB"
	best "0 1" "$rdmatop" replay "$file" --json
	rw=$wall rr=$rss
	best "0" tshark -n -o infiniband.rroce.port:4791 -r "$file" -T fields -e infiniband.bth.psn
	tw=$wall tr=$rss
	awk -v rw="$rw" -v rr="$rr" -v tw="$tw" -v tr="$tr" -v n="$pkts" 'BEGIN {
		printf "  %-28s %9s %9s %13s\n", "", "wall s", "peak MB", "packets/s"
		printf "  %-28s %9.3f %9.1f %13.0f\n", "rdmatop replay --json", rw, rr / 1024, n / rw
		printf "  %-28s %9.3f %9.1f %13.0f\n", "tshark -T fields bth.psn", tw, tr / 1024, n / tw
	}'
	up=$(awk -v r="$rw" -v t="$tw" 'BEGIN { printf "%.1f", t / r }')
	ok=$(awk -v u="$up" -v t="$target" 'BEGIN { print (u >= t) ? 1 : 0 }')
	verdict "$ok" "speed-up ${up}x (target >= ${target}x)"
	if [ -n "$rsslimit" ]; then
		ok=$(awk -v r="$rr" -v l="$rsslimit" 'BEGIN { print (r / 1024 <= l) ? 1 : 0 }')
		verdict "$ok" "rdmatop peak RSS $(awk -v r="$rr" 'BEGIN { printf "%.1f", r / 1024 }') MB (target <= ${rsslimit} MB)"
	fi
}

files=()
for _ in $(seq "$copies"); do files+=(testdata/rxe/pcap/lossy1.pcap); done
mergecap -a -w "$tmp/lossy.pcap" "${files[@]}"
bench "lossy1.pcap x$copies" "$tmp/lossy.pcap" "$lossy_speedup"
rm -f "$tmp/lossy.pcap"

# shape NAME GEN-FLAGS...: one traffic shape, generated, benched, removed.
shape() {
	local name=$1
	shift
	"$tmp/gen-manyqp" -o "$tmp/shape.pcap" "$@" 2>/dev/null
	bench "$name (tools/gen-manyqp $*)" "$tmp/shape.pcap" "$manyqp_speedup" "$manyqp_rss_mb"
	rm -f "$tmp/shape.pcap"
}
shape "one pair" -qps "$qps" -hosts 2
shape "64 hosts" -qps "$qps" -hosts 64
shape "churn" -qps 1000000 -packets-per-qp 2 -hosts 64
shape "long-lived" -qps 100 -packets-per-qp 6000 -hosts 8 -batch 100

echo
if [ "$missed" = 0 ]; then
	echo "all $checked targets met"
else
	echo "$missed of $checked targets missed$([ "$strict" = 1 ] || echo ' (exit 0 without --strict)')"
	if [ "$strict" = 1 ]; then exit 1; fi
fi
exit 0
