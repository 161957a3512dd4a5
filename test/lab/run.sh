#!/bin/bash
# run.sh JOB [OUTDIR]: build rdmatop statically and run test/lab/JOB.sh in
# the rxe-lab VM (shared/lab/rxe-lab; `rxe-lab build` once first).
set -euo pipefail
cd "$(dirname "$0")/../.."
job=$1; out=${2:-/tmp/rdmatop-lab-$job}
lab=${RXE_LAB:-../shared/lab/rxe-lab}
in=$(mktemp -d); trap 'rm -rf "$in"' EXIT
CGO_ENABLED=0 go build -buildvcs=true -o "$in/rdmatop" ./cmd/rdmatop
# the faults job drives shared/lab/faults' programs
[ "$job" = faults ] && cp "$(dirname "$lab")"/faults/* "$in/"
rm -rf "$out"
"$lab" run -q -i "$in" -o "$out" -t 300 "test/lab/$job.sh"
echo "results in $out"
