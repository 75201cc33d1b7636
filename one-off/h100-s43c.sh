#!/usr/bin/env bash
# Forty-third session: the 16-bit warpgroup kernel with its span in the 128-byte swizzle (branch
# s43-swizzle), carry gpu-carry2 from one-off/carry-s43c.sh. PART (in order, default
# "harness tests"):
#   harness  the fixed harness (one-off/wg-swizzle-harness.cu: each thread checks the granules it
#            copied) on this branch, where its wg1 is the branch's kernel: racecheck over its
#            checks (both kernels), then both timed
#   tests    every gpu-conv1d test binary (GPU_PRIMS_REQUIRE_GPU=1; four side by side, with the
#            three sanitizers over gpu_cross_warpgroup_f16 as a fifth lane; oom_gpu and
#            fault_injection alone after them)
#   table    issue 13's table alone on the GPU: PyTorch and CuPy (scripts/peers.py) then the
#            report at 2^28, f16 and bf16 (sum, max, cumsum, conv1d w 3/7/31/127), f32 w 127
#   accuracy the accuracy tests with Strategy::Warpgroup (gpu_half_accuracy_by_path,
#            gpu_accuracy_wide_dynamic_range, --nocapture: their printed max |y - y64| / sum|x m|),
#            then the gpu binary whole and tuning_gpu (the new crossings' assertions)
#   acc2     the gpu binary whole with --nocapture (its accuracy lines), then tuning_gpu
#   small    the fixed-width FMA kernels against warpgroup at w 3-11 (2^28, f16 and bf16;
#            Auto keeps the FMA kernels below tensor_min_width = 11)
#   cross    Auto's crossings (warpgroup against tensor_core): the report, conv1d only, f16 and
#            bf16, w 15/23/47/63/95 at 2^28 and 15/31/63/95/127/191 at 2^24, 2^25 and 2^26
# Results: $OUT/s43c.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
[ -d gpu-carry2/s43c ] || tar -C gpu-carry2 -xJf gpu-carry2/s43c.tar.xz; C=gpu-carry2/s43c
R="$OUT/s43c"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s43c.tgz s43c && rm -rf s43c)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
rows() { grep -E "\| (copy|auto|warpgroup|tensor_core) \|" "$1" | grep -vE "with copies|block=|rayon" | cut -d'|' -f3-10; }
for part in ${PART:-harness tests}; do
  case $part in
    harness)
      step nvcc 120 nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include \
        -o /tmp/wgs one-off/wg-swizzle-harness.cu
      if [ -x /tmp/wgs ]; then
        step san-h-racecheck 120 env QUICK=1 VARIANTS=sw0 compute-sanitizer --tool racecheck /tmp/wgs 18 1
        tail -1 "$R/san-h-racecheck.out"; grep -c "sw0: 0 outputs differ" "$R/san-h-racecheck.out"
        step h-time28 90 env SKIP_CHECKS=1 VARIANTS=sw0 /tmp/wgs 28 20 31,63,127,255
        grep -E "^round|copy" "$R/h-time28.out"
      fi ;;
    table)
      step peers-half 100 python3 scripts/peers.py --sizes 28 --types f16,bf16 --ops sum,max,cumsum,conv1d \
        --widths 3,7,31,127 --out "$R/peers-half.json"
      step report-half 150 "$C/benches__report" --device-only --only core,reduce,scan,conv1d \
        --sizes 28 --types f16,bf16 --widths 3,7,31,127 --cpu-reps 1 --peers "$R/peers-half.json" --out "$R/report-half"
      rows "$R/report-half/report.md"
      step report-f32-w127 60 "$C/benches__report" --device-only --only core,conv1d \
        --sizes 28 --types f32 --widths 127 --cpu-reps 1 --out "$R/report-f32-w127"
      rows "$R/report-f32-w127/report.md" ;;
    accuracy)
      export GPU_PRIMS_REQUIRE_GPU=1
      for t in gpu_half_accuracy_by_path gpu_accuracy_wide_dynamic_range; do
        step "acc-$t" 120 "$C/gpu-conv1d__gpu" "$t" --exact --nocapture
        grep -hE "accuracy|test result" "$R/acc-$t.out" | grep -iE "Warpgroup|wgmma|test result"
      done
      step gpu-all 200 "$C/gpu-conv1d__gpu"
      step tuning 60 "$C/gpu-conv1d__tuning_gpu"
      grep -h "^test result" "$R/gpu-all.out" "$R/tuning.out" ;;
    acc2)
      # The gpu binary whole, once, with its printed accuracy lines (a shorter accuracy).
      export GPU_PRIMS_REQUIRE_GPU=1
      step gpu-all 200 "$C/gpu-conv1d__gpu" --nocapture
      step tuning 60 "$C/gpu-conv1d__tuning_gpu"
      grep -hE "accuracy" "$R/gpu-all.out" | grep -E "Warpgroup|warpgroup" 
      grep -h "^test result" "$R/gpu-all.out" "$R/tuning.out" ;;
    small)
      step small-28 150 "$C/benches__report" --device-only --only core,conv1d \
        --sizes 28 --types f16,bf16 --widths 3,5,7,9,11 --cpu-reps 1 --out "$R/small-28"
      grep -E "\| (copy|auto|warpgroup|register_tiled) \|" "$R/small-28/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f3-10 ;;
    cross)
      step cross-28 150 "$C/benches__report" --device-only --only core,conv1d \
        --sizes 28 --types f16,bf16 --widths 15,23,47,63,95 --cpu-reps 1 --out "$R/cross-28"
      rows "$R/cross-28/report.md"
      step cross-24-26 150 "$C/benches__report" --device-only --only core,conv1d \
        --sizes 24,25,26 --types f16,bf16 --widths 15,31,63,95,127,191 --cpu-reps 1 --out "$R/cross-24-26"
      rows "$R/cross-24-26/report.md" ;;
    tests)
      # Four lanes of test binaries and a fifth of the sanitizers (nothing here is timed).
      export GPU_PRIMS_REQUIRE_GPU=1
      run_one() {
        if [ "$1" = sanitizers ]; then
          for t in racecheck memcheck synccheck; do
            timeout "$(cap 90)" compute-sanitizer --tool $t --error-exitcode 9 $C/gpu-conv1d__gpu \
              gpu_cross_warpgroup_f16 --exact > "$R/san-$t.out" 2> "$R/san-$t.log"
            echo "san-$t rc=$?" >> "$R/rc.txt"
          done
          return
        fi
        timeout "$(cap 300)" "$C/$1" > "$R/$1.out" 2> "$R/$1.log"; echo "$1 rc=$?" >> "$R/rc.txt"
      }
      export -f run_one left cap; export C R T0
      for n in host_pipeline sanitizers fft_gpu fft_parts_gpu kernels axis_gpu gpu tuning_gpu gpu_conv1d properties inputs cpu axis_cpu; do
        case $n in sanitizers) echo sanitizers ;; *) echo "gpu-conv1d__$n" ;; esac
      done | xargs -P 5 -I{} bash -c 'run_one {}'
      cat "$R/rc.txt"
      step oom 60 $C/gpu-conv1d__oom_gpu
      step fault 60 $C/gpu-conv1d__fault_injection
      for f in "$R"/gpu-conv1d__*.out "$R"/oom.out "$R"/fault.out; do printf '%s: ' "$(basename "$f" .out)"; grep -h "^test result" "$f" | tail -1; done
      grep -h "FAILED\|panicked" "$R"/*.out "$R"/*.log | head -20
      for t in racecheck memcheck synccheck; do
        grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$R/san-$t.out" | tail -2
      done ;;
  esac
done
echo "all done at $(( $(date +%s) - T0 ))s"
