#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over a bundle made by scripts/gpu-bundle.sh
# and carried as gpu-carry/. Steps are picked by name:
#   tests      every test binary with GPU_PRIMS_REQUIRE_GPU=1 (summary line "N passed, M failed")
#   sanitize   compute-sanitizer memcheck, racecheck and synccheck over the gpu-sync kernels
#   sanitize-props  memcheck, racecheck and synccheck over the GPU-vs-CPU property tests of
#              gpu-reduce, gpu-scan and gpu-conv1d (small random inputs, every kernel family;
#              SANITIZE_BINS picks a subset)
#   leaks      compute-sanitizer memcheck --leak-check full over test binaries (LEAK_BINS, default
#              every binary of the bundle; LEAK_TIMEOUT seconds each, default 300; LEAK_FILTER
#              is passed to each binary as its test-name filter): "clean" when no leak and no
#              memory error is reported and the binary's tests pass under the sanitizer (API
#              errors are not reported: several tests provoke them on purpose, e.g. bad PTX);
#              binaries without CUDA calls are listed as such; LEAK_SKIP (default
#              gpu-sync__context_lost, which faults on purpose) names binaries left out
#   report     the report with PyTorch/CuPy peers (REPORT_SIZES, default 20,24,28)
#   report30   reduce (and the copy reference) at 2^30 elements, with peers
#   sync       the uneven-workload demonstration at 2^12, 2^14 and 2^16 items
#   benches    the criterion benches
#   first-call first-call latency in fresh processes (CUDA_CACHE_DISABLE=1; cubins and PTX)
#              and the kernel bytes each crate embeds; rows are written as they are measured
#              (`preload` from PTX with no JIT cache alone takes ~190 s on an H100)
#   tests-split  the tests step with the binaries dealt out over every GPU (one group per GPU,
#              run side by side; gpu-dist's binaries left to dist-tests); never beside timings
#   dist-tests gpu-dist's test binaries with every GPU visible, GPU_PRIMS_REQUIRE_GPUS set to
#              their count (multi-GPU tests fail rather than skip)
#   dist-weak  the weak-scaling table (`dist --weak`, DIST_LOG2 default 30) and PyTorch's peer
#              (scripts/peers_dist.py)
#   dist-huge  an array of 0.75 of each GPU's memory per GPU made, reduced, scanned and checked
# NCCL: where no libnccl.so is on the loader's path, the nvidia-nccl Python package's
# libnccl.so.2 is linked as libnccl.so in a temporary directory put on LD_LIBRARY_PATH.
# NCCL_NVLS_ENABLE=0 is kept (set when unset): NVLink multicast stays off.
# The tests step prints its wall time; run it as `CUDA_CACHE_DISABLE=1 scripts/gpu-run.sh tests`
# for the fresh-machine figure, with GPU_PRIMS_KERNEL_IMAGES=ptx to test the PTX path.
# Logs and results are packed into $OUT/results.tar.gz (the device tool returns few files).
set -uo pipefail
cd "$(dirname "$0")/.."
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
RES="$(mktemp -d)"
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
if ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so '; then
  nccl2="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)"
  if [ -n "$nccl2" ] && [ -f "$nccl2" ]; then
    mkdir -p /tmp/nccl-lib && ln -sf "$nccl2" /tmp/nccl-lib/libnccl.so
    export LD_LIBRARY_PATH="/tmp/nccl-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "libnccl.so: $nccl2 (the nvidia-nccl Python package)"
  fi
fi
NGPU="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"
trap 'tar -C "$RES" -czf "${OUT:-/tmp}/results.tar.gz" . ' EXIT
status=0
for step in "$@"; do
  case "$step" in
    tests)
      t0=$(date +%s.%N)
      OUT="$RES" TEST_TIMEOUT="${TEST_TIMEOUT:-300}" gpu-bundle/run-tests.sh ${TEST_FILTER:-} 2>&1 | tee "$RES/tests-summary.txt" | tail -n 40
      echo "tests wall time: $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s (CUDA_CACHE_DISABLE=${CUDA_CACHE_DISABLE:-unset}, GPU_PRIMS_KERNEL_IMAGES=${GPU_PRIMS_KERNEL_IMAGES:-unset})" | tee -a "$RES/tests-summary.txt"
      grep -q " 0 failed$" "$RES/tests-summary.txt" || status=1 ;;
    tests-split)
      t0=$(date +%s.%N)
      bins="$(ls gpu-bundle/tests | grep -v '^gpu-dist__')"
      for g in $(seq 0 $((NGPU - 1))); do
        group="$(echo "$bins" | awk -v n="$NGPU" -v g="$g" 'NR % n == g' | tr '\n' ' ')"
        ( CUDA_VISIBLE_DEVICES=$g OUT="$RES/split$g" TEST_BINS="$group" TEST_TIMEOUT="${TEST_TIMEOUT:-300}" \
            gpu-bundle/run-tests.sh ${TEST_FILTER:-} >"$RES/split$g.txt" 2>&1 ) &
      done
      wait
      cat "$RES"/split*.txt | grep -v -E '^\(|passed, .* failed$' | tee "$RES/tests-summary.txt" | tail -n 60
      cat "$RES"/split*.txt | awk '/ passed, .* failed$/ {p += $1; f += $3} END {printf "%d passed, %d failed\n", p, f}' | tee -a "$RES/tests-summary.txt"
      echo "tests-split wall time: $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s over $NGPU GPUs" | tee -a "$RES/tests-summary.txt"
      grep -q " 0 failed$" "$RES/tests-summary.txt" || status=1 ;;
    dist-tests)
      OUT="$RES/dist" TEST_BINS="$(ls gpu-bundle/tests | grep '^gpu-dist__' | tr '\n' ' ')" \
        GPU_PRIMS_REQUIRE_GPUS="$NGPU" TEST_TIMEOUT="${TEST_TIMEOUT:-300}" \
        gpu-bundle/run-tests.sh --nocapture ${TEST_FILTER:-} 2>&1 | tee "$RES/dist-tests.txt" | tail -n 30
      grep -h -E "^(one process|[0-9]+ processes|rank 0: error)" "$RES"/dist/tests/*.log 2>/dev/null
      grep -q " 0 failed$" "$RES/dist-tests.txt" || status=1 ;;
    dist-weak)
      timeout "${DIST_TIMEOUT:-300}" gpu-bundle/bin/dist --weak --log2 "${DIST_LOG2:-30}" 2>&1 | tee "$RES/dist-weak.md" || status=1
      timeout "${DIST_TIMEOUT:-300}" python3 scripts/peers_dist.py --log2 "${DIST_LOG2:-30}" 2>"$RES/peers-dist.log" | tee "$RES/peers-dist.md" || { echo "peers_dist.py failed:"; tail -n 20 "$RES/peers-dist.log"; } ;;
    dist-huge)
      timeout "${DIST_TIMEOUT:-300}" gpu-bundle/bin/dist --huge 2>&1 | tee "$RES/dist-huge.txt" || status=1 ;;
    first-call)
      mkdir -p "$RES/first-call"
      timeout "${FIRST_CALL_TIMEOUT:-600}" gpu-bundle/bin/first-call --out "$RES/first-call" 2>&1 | tail -n 40 || status=1 ;;
    sanitize)
      for tool in memcheck racecheck synccheck; do
        if GPU_PRIMS_REQUIRE_GPU=1 compute-sanitizer --tool "$tool" --error-exitcode 1 \
             gpu-bundle/tests/gpu-sync__sanitize --test-threads=1 >"$RES/sanitize-$tool.log" 2>&1; then
          echo "compute-sanitizer $tool: clean ($(grep -m1 'ERROR SUMMARY' "$RES/sanitize-$tool.log"))"
        else
          echo "compute-sanitizer $tool: FAILED"; tail -n 30 "$RES/sanitize-$tool.log"; status=1
        fi
      done ;;
    sanitize-props)
      for bin in ${SANITIZE_BINS:-gpu-reduce__properties gpu-scan__properties gpu-conv1d__properties}; do
        for tool in memcheck racecheck synccheck; do
          log="$RES/sanitize-$bin-$tool.log"
          if timeout "${SANITIZE_TIMEOUT:-150}" env GPU_PRIMS_REQUIRE_GPU=1 QUICKCHECK_TESTS="${QUICKCHECK_TESTS:-20}" \
               compute-sanitizer --tool "$tool" --error-exitcode 1 gpu-bundle/tests/$bin gpu --test-threads=1 >"$log" 2>&1; then
            echo "compute-sanitizer $tool $bin: clean ($(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log")) $(grep -m1 'test result' "$log")"
          else
            echo "compute-sanitizer $tool $bin: FAILED or timed out"; grep -m5 -E "=====|test result" "$log"; status=1
          fi
        done
      done ;;
    leaks)
      mkdir -p "$RES/leaks"
      for bin in ${LEAK_BINS:-$(ls gpu-bundle/tests)}; do
        # gpu-sync__context_lost faults on purpose (in a child process): nothing to check there.
        case " ${LEAK_SKIP-gpu-sync__context_lost} " in *" $bin "*) echo "leak check $bin: skipped"; continue ;; esac
        log="$RES/leaks/$bin.log"
        if timeout "${LEAK_TIMEOUT:-300}" env GPU_PRIMS_REQUIRE_GPU=1 QUICKCHECK_TESTS="${QUICKCHECK_TESTS:-20}" \
             compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 1 \
             gpu-bundle/tests/$bin ${LEAK_FILTER:-} --test-threads=1 >"$log" 2>&1; then
          echo "leak check $bin: clean ($(grep -m1 'ERROR SUMMARY' "$log")) $(grep -m1 'test result' "$log")"
        elif grep -q "terminated before first instrumented API call" "$log" && grep -q "test result: ok" "$log"; then
          echo "leak check $bin: no CUDA calls (CPU tests only) $(grep -m1 'test result' "$log")"
        else
          echo "leak check $bin: FAILED or timed out ($(grep -m1 'ERROR SUMMARY' "$log"))"
          grep -m8 -E "Leaked|=====.*(bytes|Error)|test result" "$log"; status=1
        fi
      done ;;
    report)
      mkdir -p "$RES/report"
      timeout "${PEERS_TIMEOUT:-200}" python3 scripts/peers.py --sizes "${REPORT_SIZES:-20,24,28}" --out "$RES/report/peers.json" 2>"$RES/report/peers.log" || echo "peers.py failed (see peers.log)"
      timeout "${REPORT_TIMEOUT:-400}" gpu-bundle/bin/report --sizes "${REPORT_SIZES:-20,24,28}" ${REPORT_ARGS:-} \
        --out "$RES/report" --peers "$RES/report/peers.json" 2>"$RES/report/progress.log" >"$RES/report/table.txt"
      echo "report rc=$?"; tail -n 60 "$RES/report/table.txt" ;;
    report30)
      mkdir -p "$RES/report30"
      timeout 120 python3 scripts/peers.py --sizes 30 --ops sum,max --out "$RES/report30/peers.json" 2>"$RES/report30/peers.log" || echo "peers.py failed"
      timeout 200 gpu-bundle/bin/report --only core,reduce --sizes 30 --out "$RES/report30" \
        --peers "$RES/report30/peers.json" 2>"$RES/report30/progress.log" >"$RES/report30/table.txt"
      echo "report30 rc=$?"; grep -E "auto|copy" "$RES/report30/table.txt" ;;
    sync)
      for k in 12 14 16; do
        mkdir -p "$RES/sync$k"
        timeout 60 gpu-bundle/bin/report --only sync --sync-items "$k" --out "$RES/sync$k" 2>/dev/null >"$RES/sync$k/table.txt"
        echo "sync 2^$k rc=$?"; grep -E "^sync|note" "$RES/sync$k/table.txt"
      done ;;
    benches)
      OUT="$RES" timeout "${BENCH_TIMEOUT:-300}" gpu-bundle/run-benches.sh ${BENCH_ARGS:-} >"$RES/benches.log" 2>&1; echo "benches rc=$?"; tail -n 20 "$RES/benches.log" ;;
    *) echo "unknown step $step"; status=2 ;;
  esac
done
exit $status
