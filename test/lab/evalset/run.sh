#!/bin/bash
# run.sh OUTDIR NAME...: run the evaluation-set job (evalset.sh) in the
# rxe-lab VM (shared/lab/rxe-lab; `rxe-lab build` once first) for the named
# incidents. Like test/lab/incidents/run.sh, but for the held-out
# evaluation set (testdata/evalset/); names are required (one VM boot per
# batch; keep a batch under ~15 min, about 25 s per incident under TCG).
#
#   RDMATOP=/tmp/rdmatop test/lab/evalset/run.sh /tmp/ev-a healthy-write-64k-full ...
#   RXE_MTU=4500 test/lab/evalset/run.sh /tmp/ev-c healthy-write-mtu4k-full ...
#
# RDMATOP=FILE uses that binary instead of building one (it must be
# static). RXE_MTU=N boots the VM with veth MTU N (4500: RoCE MTU 4096);
# the *-mtu4k incidents expect 4500, the others the default 1500.
# The lab is shared: wrap the call in `flock /tmp/rxe-lab.lock ...`.
# Afterwards copy OUTDIR/NAME.{pcapng.gz,truth.txt} to testdata/evalset/.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:?usage: run.sh OUTDIR NAME...}; shift
[ $# -gt 0 ] || { echo "usage: run.sh OUTDIR NAME..." >&2; exit 2; }
lab=${RXE_LAB:-../shared/lab/rxe-lab}
in=$(mktemp -d); trap 'rm -rf "$in"' EXIT
if [ -n "${RDMATOP:-}" ]; then
    cp "$RDMATOP" "$in/rdmatop"
else
    CGO_ENABLED=0 go build -buildvcs=true -o "$in/rdmatop" ./cmd/rdmatop
fi
cp "$(dirname "$lab")"/faults/rxe-faults.py "$in/"
rm -rf "$out"
mtu=()
[ -z "${RXE_MTU:-}" ] || mtu=(-e RXE_MTU="$RXE_MTU")
"$lab" run -q -i "$in" -o "$out" -t $((60 + 35 * $#)) "${mtu[@]}" -e INCIDENTS="$*" test/lab/evalset/evalset.sh
echo "results in $out"
