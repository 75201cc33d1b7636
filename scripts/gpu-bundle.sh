#!/usr/bin/env bash
# gpu-bundle.sh — build every test, bench and bin executable of the workspace with
# `--features cuda` (tests: `cuda,fault-injection`) HERE (no GPU, no CUDA: linked against the stub from scripts/cuda-stub.sh) and
# pack them, stripped, into gpu-bundle/ with two runner scripts, so a GPU machine only has to run
# them (no Rust toolchain or build time needed there).
#
# Why: the GPU machine is lent briefly and has a real libcuda.so.1; the binaries only record the
# soname libcuda.so.1 (no rpath), so there they load the real driver. The stub is used for linking
# only and is never put on LD_LIBRARY_PATH by the runner scripts.
#
# Output (git-ignored):
#   gpu-bundle/tests/<crate>__<target>     test executables (cargo test --release --no-run)
#   gpu-bundle/benches/<crate>__<target>   criterion bench executables (cargo bench --no-run)
#   gpu-bundle/bin/<name>                  [[bin]] executables (cargo build --release --bins)
#   gpu-bundle/run-tests.sh [FILTER...]    runs every test binary with GPU_PRIMS_REQUIRE_GPU=1;
#                                          logs to $OUT/tests/<name>.log when $OUT is set;
#                                          TEST_THREADS=N -> --test-threads=N; TEST_TIMEOUT=secs per
#                                          binary (optional); last line "N passed, M failed"
#   gpu-bundle/run-benches.sh [ARGS...]    runs every bench binary with --bench ARGS...
# Usage: scripts/gpu-bundle.sh   (then ship gpu-bundle/ to the GPU machine and run
#        gpu-bundle/run-tests.sh there). Fails if the bundle exceeds 60 MiB.
# Env:   SKIP_PTX_CHECK=1 skips the (non-fatal) scripts/ptx.sh --check staleness warning;
#        CARRY_BENCHES=0 leaves the bench executables out of gpu-carry/ (not out of gpu-bundle/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$ROOT"

BUNDLE="$ROOT/gpu-bundle"
MAX_BYTES=$((60 * 1024 * 1024))
WORK="$ROOT/target/gpu-bundle-work"

log() { echo "gpu-bundle: $*" >&2; }

# Stub libcuda for linking (exports CUDA_LIBRARY_PATH, LD_LIBRARY_PATH for this build only).
# shellcheck source=scripts/cuda-stub-env.sh
source "$ROOT/scripts/cuda-stub-env.sh"

if [ "${SKIP_PTX_CHECK:-0}" != "1" ] && compgen -G "kernels/*.cu" >/dev/null; then
  if ! "$ROOT/scripts/ptx.sh" --check >/dev/null 2>"$ROOT/target/ptx-check.log"; then
    log "WARNING: committed PTX is stale or missing (scripts/ptx.sh --check failed):"
    sed 's/^/  /' "$ROOT/target/ptx-check.log" | tail -n 20 >&2
    log "WARNING: the bundle embeds the committed PTX; run scripts/ptx.sh to refresh it."
  fi
fi

rm -rf "$WORK"
mkdir -p "$WORK"

# Tests get the `fault-injection` feature too (its tests need it; it costs a thread-local check
# per driver call when nothing is armed); benches and bins are built without it.
# gpu-dist's NCCL transport (libnccl loaded at run time) is built into its tests and the
# `dist` command.
log "cargo test --workspace --release --features cuda,fault-injection,gpu-dist/nccl --no-run"
cargo test --workspace --release --features cuda,fault-injection,gpu-dist/nccl --no-run --message-format=json >"$WORK/tests.json"
log "cargo bench --workspace --features cuda --no-run"
cargo bench --workspace --features cuda --no-run --message-format=json >"$WORK/benches.json"
log "cargo build --workspace --release --features cuda,gpu-prims-benches/nccl --bins"
cargo build --workspace --release --features cuda,gpu-prims-benches/nccl --bins --message-format=json >"$WORK/bins.json"
cargo metadata --format-version 1 --no-deps >"$WORK/metadata.json"

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/tests" "$BUNDLE/benches" "$BUNDLE/bin"

# Select executables from the JSON messages and print "SRC<TAB>DEST" lines.
python3 - "$WORK" "$BUNDLE" >"$WORK/copy.tsv" <<'PY'
import json, os, sys
work, bundle = sys.argv[1], sys.argv[2]
meta = json.load(open(os.path.join(work, "metadata.json")))
pkg_by_manifest = {os.path.realpath(p["manifest_path"]): p["name"] for p in meta["packages"]}

def messages(name):
    with open(os.path.join(work, name)) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    m = json.loads(line)
                except ValueError:
                    continue
                if m.get("reason") == "compiler-artifact" and m.get("executable"):
                    yield m

def crate_of(m):
    mp = m.get("manifest_path")
    if mp and os.path.realpath(mp) in pkg_by_manifest:
        return pkg_by_manifest[os.path.realpath(mp)]
    pid = m["package_id"]  # fallback: "name ver (src)" or "src#name@ver"
    if "#" in pid:
        frag = pid.rsplit("#", 1)[1]
        return frag.split("@")[0] if "@" in frag else pid.split("#")[0].rstrip("/").rsplit("/", 1)[-1]
    return pid.split(" ")[0]

used, seen_src = set(), set()
def emit(sub, m, base):
    src = m["executable"]
    if (sub, src) in seen_src:
        return
    seen_src.add((sub, src))
    name = base
    if name in used:
        name = f"{base}__{m['target']['kind'][0]}"
    n = 2
    while name in used:
        name = f"{base}__{n}"; n += 1
    used.add(name)
    print(f"{src}\t{os.path.join(bundle, sub, name)}")

for m in messages("tests.json"):
    if m["profile"].get("test"):
        emit("tests", m, f"{crate_of(m)}__{m['target']['name']}")
for m in messages("benches.json"):
    if "bench" in m["target"]["kind"]:
        emit("benches", m, f"{crate_of(m)}__{m['target']['name']}")
for m in messages("bins.json"):
    if "bin" in m["target"]["kind"] and not m["profile"].get("test"):
        emit("bin", m, m["target"]["name"])
PY

count_tests=0 count_benches=0 count_bins=0
while IFS=$'\t' read -r src dst; do
  cp "$src" "$dst"
  chmod u+w "$dst"
  strip "$dst"
  case "$dst" in
    "$BUNDLE/tests/"*) count_tests=$((count_tests + 1)) ;;
    "$BUNDLE/benches/"*) count_benches=$((count_benches + 1)) ;;
    "$BUNDLE/bin/"*) count_bins=$((count_bins + 1)) ;;
  esac
done <"$WORK/copy.tsv"

# What was built: the commit, and whether the tree had changes beside it.
{ git -C "$ROOT" rev-parse HEAD; git -C "$ROOT" status --porcelain --untracked-files=no | head -20; } \
  >"$BUNDLE/COMMIT" 2>/dev/null || true

# ------------------------------------------------------------------------------------------------
cat >"$BUNDLE/run-tests.sh" <<'RUNNER'
#!/usr/bin/env bash
# run-tests.sh — run every test binary of this bundle on a GPU machine (real libcuda.so.1).
# Generated by scripts/gpu-bundle.sh. Sets GPU_PRIMS_REQUIRE_GPU=1 so GPU tests fail instead of
# skipping when no device is found. Arguments are passed to every binary (e.g. a test-name filter).
# Env: OUT=dir          -> each binary's output goes to $OUT/tests/<name>.log
#      TEST_THREADS=N   -> --test-threads=N (default: libtest's default, tests run in parallel)
#      TEST_TIMEOUT=s   -> kill a binary after s seconds (counts as 1 failed)
#      TEST_BINS="a b"  -> run only the named binaries
# A binary without a libtest "test result:" line, or exiting non-zero with no failed test counted,
# counts as 1 failed. Last line: "N passed, M failed"; exit status 1 if M > 0.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")" || exit 2
export GPU_PRIMS_REQUIRE_GPU=1
extra=()
if [ -n "${TEST_THREADS:-}" ]; then extra+=("--test-threads=$TEST_THREADS"); fi
if [ -n "${OUT:-}" ]; then logdir="$OUT/tests"; else logdir="$(mktemp -d)"; fi
mkdir -p "$logdir" || exit 2
total_pass=0 total_fail=0 total_ign=0 nbins=0
shopt -s nullglob
for bin in tests/*; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  name="$(basename "$bin")"
  if [ -n "${TEST_BINS:-}" ] && [[ " $TEST_BINS " != *" $name "* ]]; then continue; fi
  logf="$logdir/$name.log"
  nbins=$((nbins + 1))
  start=$SECONDS
  if [ -n "${TEST_TIMEOUT:-}" ]; then
    timeout -k 10 "$TEST_TIMEOUT" "./$bin" "${extra[@]}" "$@" >"$logf" 2>&1; rc=$?
  else
    "./$bin" "${extra[@]}" "$@" >"$logf" 2>&1; rc=$?
  fi
  secs=$((SECONDS - start))
  read -r p f i n < <(awk '
    /^test result: / {
      for (k = 1; k <= NF; k++) {
        v = $(k - 1) + 0
        if ($k ~ /^passed/) p += v; else if ($k ~ /^failed/) f += v; else if ($k ~ /^ignored/) ig += v
      }
      n++
    }
    END { printf "%d %d %d %d\n", p, f, ig, n }' "$logf")
  status=ok note=""
  if [ "$n" -eq 0 ]; then
    f=$((f + 1)); status=CRASH; note=" (no test result line, exit $rc)"
  elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; status=CRASH; note=" (exit $rc after its test result line)"
  elif [ "$f" -gt 0 ]; then
    status=FAIL
  fi
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then note="$note (timeout? TEST_TIMEOUT=${TEST_TIMEOUT:-})"; fi
  printf '[%-5s] %-45s passed=%d failed=%d ignored=%d %ss%s\n' "$status" "$name" "$p" "$f" "$i" "$secs" "$note"
  if [ "$status" != ok ]; then
    grep -A1 -E 'panicked at' "$logf" | grep -v '^--$' | head -n 20 | sed 's/^/    /'
    echo "    --- last lines of $name output ($logf) ---"
    tail -n 10 "$logf" | sed 's/^/    /'
  fi
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_ign=$((total_ign + i))
done
if [ "$nbins" -eq 0 ]; then echo "run-tests.sh: no test binaries in $(pwd)/tests" >&2; total_fail=$((total_fail + 1)); fi
echo "($nbins test binaries, $total_ign ignored; logs in $logdir)"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
RUNNER

cat >"$BUNDLE/run-benches.sh" <<'RUNNER'
#!/usr/bin/env bash
# run-benches.sh — run every criterion bench binary of this bundle on a GPU machine.
# Generated by scripts/gpu-bundle.sh. Each binary runs as `<bin> --bench ARGS...` (ARGS: criterion
# filter/options, e.g. `reduce --warm-up-time 1 --measurement-time 3`).
# Env: OUT=dir -> output also saved to $OUT/benches/<name>.log; criterion data goes to
#      $CRITERION_HOME (default $OUT/criterion, else <bundle>/criterion).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")" || exit 2
export GPU_PRIMS_REQUIRE_GPU=1
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT/benches" || exit 2
  export CRITERION_HOME="${CRITERION_HOME:-$OUT/criterion}"
else
  export CRITERION_HOME="${CRITERION_HOME:-$(pwd)/criterion}"
fi
failed=0 nbins=0
shopt -s nullglob
for bin in benches/*; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  name="$(basename "$bin")"
  nbins=$((nbins + 1))
  echo "=== $name"
  if [ -n "${OUT:-}" ]; then
    "./$bin" --bench "$@" 2>&1 | tee "$OUT/benches/$name.log"; rc=${PIPESTATUS[0]}
  else
    "./$bin" --bench "$@"; rc=$?
  fi
  if [ "$rc" -ne 0 ]; then echo "=== $name FAILED (exit $rc)"; failed=$((failed + 1)); fi
done
echo "run-benches.sh: $nbins bench binaries, $failed failed"
[ "$failed" -eq 0 ]
RUNNER
chmod +x "$BUNDLE/run-tests.sh" "$BUNDLE/run-benches.sh"

log "bundle: $count_tests test, $count_benches bench, $count_bins bin executable(s)"
echo "gpu-bundle size: $(du -sh "$BUNDLE" | cut -f1) in $BUNDLE"
# The device tool carries at most 64 MiB of working tree: ship the bundle xz-compressed in
# gpu-carry/ (ignored) and unpack it there with `tar xJf gpu-carry/bundle.tar.xz`.
CARRY="$ROOT/gpu-carry"
rm -rf "$CARRY" && mkdir -p "$CARRY"
# One thread and a dictionary larger than a binary: every test binary embeds the same kernel
# packs, and only a window that spans several binaries compresses those copies away.
# CARRY_BENCHES=0 leaves the criterion benches out of the carry (1.5 MB of xz: the working tree
# and the carry share the device tool's 64 MiB, and the tracked tree is about 34 MB).
exclude=()
if [ "${CARRY_BENCHES:-1}" = 0 ]; then exclude=(--exclude=gpu-bundle/benches); fi
tar -C "$ROOT" "${exclude[@]}" -cf - gpu-bundle | xz -T1 --lzma2=preset=6,dict=192MiB >"$CARRY/bundle.tar.xz"
bytes="$(du -sb "$CARRY" | cut -f1)"
echo "gpu-carry/bundle.tar.xz: $(du -sh "$CARRY" | cut -f1) (carry gpu-carry; unpack with: tar xJf gpu-carry/bundle.tar.xz)"
if [ "$bytes" -gt "$MAX_BYTES" ]; then
  echo "gpu-bundle.sh: compressed bundle is larger than 60 MiB ($bytes bytes); too big to carry to the GPU machine" >&2
  du -ab "$BUNDLE" | sort -n | tail -n 10 >&2
  exit 1
fi
if [ "$count_tests" -eq 0 ]; then
  echo "gpu-bundle.sh: warning: no test executables were produced" >&2
fi
