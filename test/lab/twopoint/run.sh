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
names() { grep -v '^\s*\(#\|$\)' "$in/specs.txt" | cut -d'|' -f1 | xargs -n1; }
# lab DIR NAMES...: one VM, the named runs (all of them when none is named).
lab() {
    local dir=$1; shift
    flock /tmp/rxe-lab.lock "$lab" run -q --no-topo -i "$in" -o "$dir" -t $((120 + ${SECONDS_PER_RUN:-40} * n)) \
        -e RXE_MTU="${RXE_MTU:-1500}" -e CLIENT_TIMEOUT="${CLIENT_TIMEOUT:-90}" -e ONLY="$*" "$in/campaign.sh"
}
# A failed lab run (a job timeout, or a guest kernel that crashed: some
# corrupt+loss draws panic rdma_rxe) still leaves the runs it finished;
# their truth is written, and the exit status says it failed. After a
# crash the run that was under way is named in OUTDIR/lab-crashes.txt
# (not retried: it would likely crash again) and a new VM runs the rest,
# up to LAB_ATTEMPTS VMs in all.
rc=0
lab "$out" "$@" || rc=$?
attempt=1
while [ $rc -ne 0 ] && [ "$attempt" -lt "${LAB_ATTEMPTS:-3}" ]; do
    rest=()
    for name in $(names); do
        [ $# -gt 0 ] && ! echo " $* " | grep -q " $name " && continue
        [ -f "$out/$name/veth0.pcap" ] && continue
        if [ -d "$out/$name" ]; then
            grep -qs "^$name:" "$out/lab-crashes.txt" || echo "$name: the lab VM stopped during this run" >> "$out/lab-crashes.txt"
            continue
        fi
        rest+=("$name")
    done
    [ ${#rest[@]} -eq 0 ] && break
    attempt=$((attempt + 1)); part="$out/attempt-$attempt"
    echo "lab attempt $attempt: ${#rest[@]} runs left"
    rc=0; lab "$part" "${rest[@]}" || rc=$?
    for d in "$part"/*/; do [ -f "$d/meta.txt" ] && mv "$d" "$out/"; done
done
for d in "$out"/*/; do
    [ -f "$d/veth0.pcap" ] || continue
    go run ./tools/wiretruth -dir "$d" -write "$d" || { echo "no truth for $d"; rc=1; }
done
[ -s "$out/lab-crashes.txt" ] && { cat "$out/lab-crashes.txt"; rc=1; }
echo "results in $out"
exit $rc
