#!/usr/bin/env bash
# c126 (issue 14): the fused second stage of `kp07` and `bollermann` capped as `clamp`'s is
# (f64 128, f32 96; uncapped 162 / 176 and 105 / 108 registers): in c125 `bollermann`'s fused f64
# step (2.672 ms at 4096²) was slower than its two kernels apart (2.472). `bench kp` only: the
# build differs from c125's in `.maxnreg` directives alone.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
( time timeout 150 $S/hydrokern bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30 ) > $OUT/r/bench.log 2>&1
echo "bench rc $?"
grep "copy" $OUT/r/bench.log | head -1
grep "kp rk\|kp step" $OUT/r/bench.log | grep "fused\|apart\|in the stream" | grep -v "Manning\|early" | awk -F'|' '{print $3,$4,$5,$6,$8}'
