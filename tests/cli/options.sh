#!/bin/sh
# Issue 15, options: each command below exits 2 with a one-line reason naming the option, in every
# subcommand that takes it, instead of running with the value misread; a typo of a subcommand is
# not read as a missing input. usage: options.sh CULPRIT SOURCE_DIR WORK_DIR
set -u
culprit=$1; src=$2; work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
incident="$src/fixtures/incidents/two-node-stale-embeddings/inputs"
fail=0
expect() { # NAME NEEDLE CMD...
  name=$1; needle=$2; shift 2
  "$@" >out 2>err; rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < err)" -ne 1 ] || ! grep -q -- "$needle" err; then
    echo "FAIL $name: exit $rc (want 2 and one line with '$needle'):"; cat err; fail=1
  else
    echo "ok   $name: $(cat err)"
  fi
}
expect typo_scna "did you mean \`culprit scan\`" "$culprit" scna "$incident"
expect color_sometimes "--color 'sometimes'" "$culprit" --color=sometimes "$incident"
expect year_24 "--year 24" "$culprit" --year 24 "$incident"
expect year_99999 "--year 99999" "$culprit" --year 99999 "$incident"
expect jobs_minus_3 "--jobs -3" "$culprit" --jobs -3 "$incident"
expect max_events_minus_1 "--max-events -1" "$culprit" --max-events -1 "$incident"
expect timeline_color "--color 'sometimes'" "$culprit" timeline --color=sometimes "$incident"
expect timeline_year "--year 24" "$culprit" timeline --year 24 "$incident"
expect scan_jobs "--jobs -3" "$culprit" scan --jobs -3 "$incident"
expect scan_year "--year 24" "$culprit" scan --year 24 "$incident"
expect scan_missing_dir "nope-dir: error\[input-missing\]" "$culprit" scan nope-dir
# -o names the path the user gave and the reason, never culprit's temporary file.
expect output_missing_folder "cannot write /nonexistent/dir/r.txt: /nonexistent/dir does not exist" \
  "$culprit" -o /nonexistent/dir/r.txt "$incident"
if grep -q "tmp-" err; then echo "FAIL output_missing_folder: names the temporary file"; fail=1; fi
mkdir -p out-dir && touch out-dir/plain
expect output_under_a_file "cannot write out-dir/plain/r.txt: out-dir/plain is not a folder" \
  "$culprit" -o out-dir/plain/r.txt "$incident"
# --rules naming a folder that is not there: exit 2, the path and the system's reason (it ended
# with "the rules have errors").
"$culprit" --rules /nonexistent "$incident" >out 2>err; rc=$?
if [ $rc -eq 2 ] && grep -q "^/nonexistent: error\[rule-unreadable\]: not a readable directory: No such file or directory" err
then echo "ok   rules_nonexistent: $(head -1 err)"; else echo "FAIL rules_nonexistent: exit $rc"; cat err; fail=1; fi
# A file named like a typo is an input, not a typo.
printf 'hello\n' > scna
"$culprit" scna >out 2>err; rc=$?
if grep -q "did you mean" err; then echo "FAIL file_named_scna: taken for a typo"; fail=1; else echo "ok   file_named_scna (exit $rc)"; fi
exit $fail
