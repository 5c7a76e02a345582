#!/usr/bin/env bash
# c100 (thin cells' own velocity + the flux point functions without branches or subnormal
# handling): the kp GPU tests (gpu::, mixed_gpu::), the examples' GPU test, memcheck on the
# flux kernels' test; ncu (SpeedOfLight, instructions) of one RK2 step's kernels on the 4096²
# dam break, main (86c489f) beside this build; the 4096² flood as shipped; the shore lake.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
SEC="--section SpeedOfLight --section LaunchStats --metrics smsp__inst_executed.sum"
for b in before now; do
  bin=$S/hydrokern; [ $b = before ] && bin=$S/hydrokern-before
  for p in f32 f64; do
    r ncu-$b-$p 120 ncu -k regex:kp_ --launch-skip 20 --launch-count 12 $SEC $bin --tuning off --precision $p dam-break --nx 4096 --t-end 0.02 --output /tmp/n-$b-$p
  done
done
r t-kp-gpu 330 $S/kp --include-ignored --test-threads=4 gpu --skip thacker_converges_to_400 --skip diag --skip kp_gpu_shore_lake_stays_at_rest
r t-examples-gpu 120 $S/examples --include-ignored --nocapture gpu
r memcheck-flux 150 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu gpu::kp_gpu_films_and_launches_past_t_stop
for p in f32 f64; do
  r flood-4096-$p 150 $S/hydrokern --tuning off --precision $p flood --nx 4096 --output /tmp/fl-$p
done
r t-kp-shore-gpu 240 $S/kp --include-ignored --nocapture --exact gpu::kp_gpu_shore_lake_stays_at_rest
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|ERROR SUMMARY" $OUT/r/t-*.log $OUT/r/memcheck*.log | head -20
for f in $OUT/r/flood*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-60) | $(grep -h 'held the model' $f | cut -c1-50)"; done
for f in $OUT/r/ncu-*.log; do echo "== $(basename $f)"; awk '/kp_flux_stream_clamp|kp_rk/{k=$1} /Duration/{if(k){print k, $NF; k=""}}' $f | sort | uniq -c | head; done
