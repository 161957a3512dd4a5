#!/bin/bash
# run.sh JOB [OUTDIR]: build rdmatop statically and run test/lab/JOB.sh in
# the rxe-lab VM (shared/lab/rxe-lab; `rxe-lab build` once first).
# run.sh truth SPEC [OUTDIR]: a wire-truth run (docs/wiretruth.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
job=$1
# run.sh truth SPEC [OUTDIR]: one wire-truth run of a spec line (see
# test/lab/twopoint/specs.txt for the columns), its truth written beside.
if [ "$job" = truth ]; then
    exec test/lab/twopoint/run.sh "${3:-/tmp/rdmatop-truth}" "${2:?usage: run.sh truth SPEC [OUTDIR]}"
fi
out=${2:-/tmp/rdmatop-lab-$job}
lab=${RXE_LAB:-../shared/lab/rxe-lab}
in=$(mktemp -d); trap 'rm -rf "$in"' EXIT
CGO_ENABLED=0 go build -buildvcs=true -o "$in/rdmatop" ./cmd/rdmatop
# the faults job drives shared/lab/faults' programs
[ "$job" = faults ] && cp "$(dirname "$lab")"/faults/* "$in/"
rm -rf "$out"
"$lab" run -q -i "$in" -o "$out" -t 300 "test/lab/$job.sh"
echo "results in $out"
