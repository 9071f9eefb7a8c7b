#!/bin/sh
# Builds the libFuzzer targets (fuzz/, CULPRIT_FUZZ=ON) with clang-14 in build-fuzz, installing
# clang-14 and its runtime when missing. Shared by scripts/ci-fuzz.sh (CI's deterministic step)
# and scripts/fuzz-campaign.sh (the longer campaign). JOBS: parallel compile jobs (default 2).
set -eu
cd "$(dirname "$0")/.."
if ! command -v clang++-14 >/dev/null 2>&1 || ! dpkg -s libclang-rt-14-dev >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends clang-14 libclang-rt-14-dev >/dev/null
fi
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCULPRIT_FUZZ=ON \
  -DCULPRIT_DEVELOPER_MODE=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "${JOBS:-2}"
