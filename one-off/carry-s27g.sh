#!/usr/bin/env bash
# Builds gpu-carry3/s27g.tar.xz (twenty-seventh session, call G): gpu-conv1d's GPU test binaries
# (`--features cuda,fault-injection`) of main with the refitted FFT sizes and crossings, built
# into /tmp/s27/g first.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s27g
cp /tmp/s27/g/* gpu-carry2/s27g/
carry_pack s27g
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s27g.tar.xz gpu-carry3/ && rm -rf gpu-carry2
