#!/bin/sh
# Installs what culprit needs to build and test on Debian 12 (run as root). Idempotent.
# The `culprit run` / `collect` tests (tests/run) use sshd + ssh, setpriv (util-linux), ps and python3.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build pkg-config ccache \
  libre2-dev libsimdjson-dev libboost-program-options-dev libsqlite3-dev libfmt-dev \
  catch2 libtomlplusplus-dev libarchive-dev chromium fonts-dejavu-core \
  sqlite3 zstd xz-utils gzip zip tar ca-certificates \
  openssh-server openssh-client util-linux procps python3 >/dev/null
