#!/bin/sh
# Installs what culprit needs on Debian 12 (run as root). Idempotent.
#   scripts/setup-debian.sh          what building and the whole test suite need
#   scripts/setup-debian.sh build    only what building needs (the README's first command: quick)
# The test-only packages: Chromium (the HTML report check), sqlite3 / zstd / xz / zip (hostile and
# archive inputs), for the `culprit run` / `collect` tests (tests/run) sshd + ssh, setpriv
# (util-linux), ps and python3, python3-jsonschema (the JSON contract's tests, tests/schema),
# groff, zsh and fish (the man page is rendered and the completions parsed by tests/cli),
# pybind11-dev / python3-dev (the Python module, python/) with python3-pytest (its tests,
# tests/python), slurm-wlm + munge (the job-array and epilog tests, tests/slurm: they start
# their own throw-away daemons), python3-torch (a real torchrun on CPU, tests/run/run_torchrun.sh:
# its TORCHELASTIC_ERROR_FILE record; and the exception hook's allocator snapshot against the real
# torch's signatures and exception types, tests/python/test_memory_snapshot.py) and prometheus
# (its promtool checks `scan --prometheus`, tests/scan/prometheus.sh; the package's server is not
# started by the tests), podman + runc + busybox-static (a real container as the foreign GPU
# holder, tests/run/run_container_real.sh: its image is made of the static busybox, no registry;
# runc because crun refuses hybrid cgroup hierarchies, which some sandboxes have).
set -eu
export DEBIAN_FRONTEND=noninteractive
# The block scanner's SIMD literal matcher: Hyperscan on x86-64, its Vectorscan port elsewhere.
case $(dpkg --print-architecture 2> /dev/null || echo amd64) in
  amd64) hyperscan=libhyperscan-dev ;;
  *) hyperscan=libvectorscan-dev ;;
esac
build="build-essential cmake ninja-build pkg-config ccache \
  libre2-dev libsimdjson-dev libboost-program-options-dev libsqlite3-dev libfmt-dev \
  catch2 libtomlplusplus-dev libarchive-dev $hyperscan ca-certificates"
tests="chromium fonts-dejavu-core sqlite3 zstd xz-utils gzip zip tar \
  openssh-server openssh-client util-linux procps python3 python3-jsonschema \
  groff-base zsh fish pybind11-dev python3-dev python3-pytest slurm-wlm munge python3-torch prometheus ripgrep time \
  podman runc busybox-static"
case "${1:-all}" in
  build) packages=$build ;;
  all) packages="$build $tests" ;;
  *) echo "usage: $0 [build|all]" >&2; exit 2 ;;
esac
apt-get update -qq
# shellcheck disable=SC2086 # the package lists are word lists
apt-get install -y -qq --no-install-recommends $packages >/dev/null
# simdjson's source of the installed version, so the executable links no C++ shared library
# (CMakeLists.txt, "the C++ runtime"). Where it cannot be fetched the build links the shared one.
"$(dirname "$0")/fetch-simdjson-source.sh" || true
