#!/bin/sh
# Puts the source of the installed simdjson (Debian's libsimdjson-dev) where the build looks for
# it: /usr/local/src/simdjson-VERSION/simdjson.cpp and simdjson.h, the library's single-file
# distribution from Debian's source package of that version. With it the culprit executable links
# simdjson statically and so loads no C++ shared library at start (CMakeLists.txt, "start-up");
# without it the build links libsimdjson.so as before. Idempotent; run as root.
#
# The system's apt sources are left as they are: the source list (deb-src for the same suites as
# the system's deb lines), apt's package lists for it and the download live in a temporary folder.
set -eu
version=$(dpkg-query -W -f='${Version}' libsimdjson-dev 2> /dev/null) || {
  echo "fetch-simdjson-source: libsimdjson-dev is not installed" >&2
  exit 1
}
upstream=${version%%-*}
dest=/usr/local/src/simdjson-$upstream
if [ -s "$dest/simdjson.cpp" ] && cmp -s "$dest/simdjson.h" /usr/include/simdjson.h; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/parts" "$work/source"
# deb-src lines for the suites and mirrors the system's deb lines name (both apt formats).
{
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && sed -n 's/^deb \(.*\)$/deb-src \1/p' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types: *deb$/Types: deb-src/' "$f" && echo
  done
} > "$work/parts/culprit.sources.tmp"
if grep -q '^Types:' "$work/parts/culprit.sources.tmp"; then
  mv "$work/parts/culprit.sources.tmp" "$work/parts/culprit.sources"
else
  mv "$work/parts/culprit.sources.tmp" "$work/parts/culprit.list"
fi
apt_private="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$work/parts \
  -o Dir::State::Lists=$work/lists -o APT::Sandbox::User=root"
# shellcheck disable=SC2086 # the options are a word list
apt-get $apt_private update -qq > /dev/null 2>&1 || true
cd "$work/source"
# shellcheck disable=SC2086
if ! apt-get $apt_private source --download-only -qq "simdjson=$version" > /dev/null 2>&1; then
  echo "fetch-simdjson-source: Debian's source of simdjson $version could not be fetched;" \
    "the culprit executable will link libsimdjson.so" >&2
  exit 1
fi
tar -xzf simdjson_"$upstream".orig.tar.gz --strip-components=2 \
  "simdjson-$upstream/singleheader/simdjson.cpp" "simdjson-$upstream/singleheader/simdjson.h"
if ! cmp -s simdjson.h /usr/include/simdjson.h; then
  echo "fetch-simdjson-source: the source's simdjson.h differs from the installed one; not used" >&2
  exit 1
fi
mkdir -p "$dest"
cp simdjson.cpp simdjson.h "$dest/"
echo "fetch-simdjson-source: $dest/simdjson.cpp"
