#!/usr/bin/env bash
# bench-replay.sh: end-to-end replay speed of rdmatop against tshark on the
# same large capture (issue 2 target: rdmatop >= 25x faster than
# `tshark -r FILE -T fields -e infiniband.bth.psn`).
#
# usage: tools/bench-replay.sh [COPIES]   (default 40 copies of lossy1.pcap)
# Needs tshark and mergecap (Debian packages tshark, wireshark-common).
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-40}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
files=(); for _ in $(seq "$copies"); do files+=(testdata/rxe/pcap/lossy1.pcap); done
mergecap -a -w "$tmp/big.pcap" "${files[@]}"
go build -o "$tmp/rdmatop" ./cmd/rdmatop
ls -l "$tmp/big.pcap" | awk '{printf "capture: %.1f MB, ", $5/1e6}'
capinfos -cM "$tmp/big.pcap" | awk -F: '/Number of packets/{print $2+0, "packets"}'
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
r=$(t "$tmp/rdmatop" replay "$tmp/big.pcap" --json)
w=$(t tshark -n -o infiniband.rroce.port:4791 -r "$tmp/big.pcap" -T fields -e infiniband.bth.psn)
echo "rdmatop replay --json: ${r} s"
echo "tshark -T fields:      ${w} s"
echo "speed-up: $(echo "scale=1; $w / $r" | bc)x"
