#!/bin/bash
# run.sh OUTDIR [SPECS] [NAME...]: run the wire-truth campaign (campaign.sh)
# in the rxe-lab VM with the two-point topology, then write each run's
# truth and its committed form with tools/wiretruth:
#
#   test/lab/twopoint/run.sh /tmp/wt                         # specs.txt, every run
#   test/lab/twopoint/run.sh /tmp/wt specs.txt loss1-write   # one run
#   RXE_MTU=4500 test/lab/twopoint/run.sh /tmp/wt4k specs-4096.txt
#   test/lab/twopoint/run.sh /tmp/one "x | write | loss 3% | -"   # a spec line by hand
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
flock /tmp/rxe-lab.lock "$lab" run -q --no-topo -i "$in" -o "$out" -t $((120 + 40 * n)) \
    -e RXE_MTU="${RXE_MTU:-1500}" -e ONLY="$*" "$in/campaign.sh"
for d in "$out"/*/; do
    [ -f "$d/veth0.pcap" ] || continue
    go run ./tools/wiretruth -dir "$d" -write "$d"
done
echo "results in $out"
