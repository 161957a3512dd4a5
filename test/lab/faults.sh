#!/bin/bash
# rxe-lab job: rdmatop records the host while shared/lab/faults provokes
# every fault scenario (RNR, remote access, retry exceeded, invalid
# request, remote operational error). Run from the repo root with
#   test/lab/run.sh faults
# (run.sh copies shared/lab/faults next to the binary). Results: the
# faults job's own output per scenario (tool.out: the verbs view of every
# QP state change) and faults.bundle.gz (rdmatop's recording).
set -u
cd "$LAB_IN"
./rdmatop record -o "$LAB_OUT/faults.bundle.gz" --interval 250ms 2> "$LAB_OUT/record.err" &
rec=$!
sleep 2
F_SEED=1 F_HOLD=4 bash ./faults-job.sh
sleep 2
kill -INT $rec; wait $rec; echo "record exit $?" >> "$LAB_OUT/record.err"
