#!/bin/bash
# run.sh OUTDIR [SPECS] [NAME...]: run the wire-truth campaign (campaign.sh)
# in the rxe-lab VM with the two-point topology, then write each run's
# truth and its committed form with tools/wiretruth:
#
#   test/lab/twopoint/run.sh /tmp/wt                         # specs.txt, every run
#   test/lab/twopoint/run.sh /tmp/wt specs.txt loss1-write   # one run
#   RXE_MTU=4500 test/lab/twopoint/run.sh /tmp/wt4k specs-4096.txt
#   test/lab/twopoint/run.sh /tmp/one "x | write | loss 3% | -"   # a spec line by hand
#   SECONDS_PER_RUN=60 test/lab/twopoint/run.sh /tmp/c1/mtu1500 /tmp/c1/specs-mtu1500.txt  # drawn runs (make campaign)
#
# OUTDIR/NAME/ then holds the full captures, meta.txt, truth.json and the
# snaplen-128 gzip captures that testdata/wiretruth/ keeps.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:?usage: run.sh OUTDIR [SPECS|SPEC-LINE] [NAME...]}; shift
specs=${1:-specs.txt}; shift || true
lab=${RXE_LAB:-../shared/lab/rxe-lab}
in=$(mktemp -d); trap 'rm -rf "$in"' EXIT
cp test/lab/twopoint/topo.sh test/lab/twopoint/campaign.sh "$in/"
if [ -f "test/lab/twopoint/$specs" ]; then cp "test/lab/twopoint/$specs" "$in/specs.txt"
elif [ -f "$specs" ]; then cp "$specs" "$in/specs.txt"
else echo "$specs" > "$in/specs.txt"; fi
n=$(grep -vc '^\s*\(#\|$\)' "$in/specs.txt" || true)
rm -rf "$out"
# A failed lab run (a job timeout) still leaves the runs it finished:
# their truth is written, and the exit status says it failed.
rc=0
flock /tmp/rxe-lab.lock "$lab" run -q --no-topo -i "$in" -o "$out" -t $((120 + ${SECONDS_PER_RUN:-40} * n)) \
    -e RXE_MTU="${RXE_MTU:-1500}" -e CLIENT_TIMEOUT="${CLIENT_TIMEOUT:-90}" -e ONLY="$*" "$in/campaign.sh" || rc=$?
for d in "$out"/*/; do
    [ -f "$d/veth0.pcap" ] || continue
    go run ./tools/wiretruth -dir "$d" -write "$d" || { echo "no truth for $d"; rc=1; }
done
echo "results in $out"
exit $rc
