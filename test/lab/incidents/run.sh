#!/bin/bash
# run.sh OUTDIR [NAME...]: build rdmatop statically and run the incident
# job (incidents.sh) in the rxe-lab VM (shared/lab/rxe-lab; `rxe-lab build`
# once first), for the named incidents or all of them. Like test/lab/run.sh,
# but the job needs shared/lab/faults' program and this directory's helpers
# in the guest, takes longer than 300 s for all incidents, and takes a list.
#
#   RXE_LAB_CACHE=/var/cache/rxe-lab test/lab/incidents/run.sh /tmp/inc
#   test/lab/incidents/run.sh /tmp/inc-loss loss-fwd-2pct loss-rev-2pct
#
# RDMATOP=FILE uses that binary instead of building one (it must be static).
# Afterwards copy OUTDIR/NAME.{pcapng.gz,truth.txt} to testdata/incidents/.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:?usage: run.sh OUTDIR [NAME...]}; shift
lab=${RXE_LAB:-../shared/lab/rxe-lab}
in=$(mktemp -d); trap 'rm -rf "$in"' EXIT
if [ -n "${RDMATOP:-}" ]; then
    cp "$RDMATOP" "$in/rdmatop"
else
    CGO_ENABLED=0 go build -buildvcs=true -o "$in/rdmatop" ./cmd/rdmatop
fi
cp "$(dirname "$lab")"/faults/rxe-faults.py test/lab/incidents/memlock-qp.py "$in/"
rm -rf "$out"
# about 20 s per incident under TCG
n=$#; [ "$n" -gt 0 ] || n=33
"$lab" run -q -i "$in" -o "$out" -t $((60 + 30 * n)) -e INCIDENTS="$*" test/lab/incidents/incidents.sh
echo "results in $out"
