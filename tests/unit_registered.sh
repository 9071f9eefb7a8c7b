#!/bin/sh
# Every unit test case the binary lists is a ctest test. catch_discover_tests reads the list
# through CMake, where an unbalanced `[` or `]` in a case's name joins the names after it into one
# list element (CMake's bracket rule) and a `;` cuts one: the cases past it then drop out of ctest
# without a word (a name with a lone `[` once hid 320 of them). The ctest entries carry
# `-w NoTests` (tests/CMakeLists.txt), so an entry that matches no case fails on its own.
# Usage: unit_registered.sh UNIT_TEST_BINARY BUILD_DIR
set -eu
binary=$1 build=$2
listed=$("$binary" --list-test-names-only | grep -c .)
# The discovered entries: label `unit`, less this check and the other guards named `unit.*`.
registered=$(ctest --test-dir "$build" -N -L '^unit$' -E '^unit\.' | sed -n 's/^Total Tests: //p')
if [ "$listed" != "$registered" ]; then
  echo "FAIL: the unit test binary lists $listed cases, ctest runs $registered of them" >&2
  echo "(a case name with an unbalanced [ or ], or a ;, hides the ones after it from catch_discover_tests)" >&2
  exit 1
fi
echo "unit tests: all $listed cases are ctest tests"
