#!/bin/sh
# Issue 16: SQL someone else wrote reads, never writes. `culprit query` on a saved timeline and
# [[diagnosis]] queries in a --rules folder: a DELETE, an ATTACH, PRAGMA writable_schema, a second
# statement and a recursive CTE that never ends are each refused or stopped with their message,
# the other rules still diagnose, and no file on disk changes (checksums before and after).
# usage: read_only.sh CULPRIT SOURCE_DIR WORK_DIR
set -u
culprit=$1; src=$2; work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail=0
check() { # NAME WANT_RC GOT_RC STDERR_FILE NEEDLE
  if [ "$3" != "$2" ] || ! grep -q -- "$5" "$4"; then
    echo "FAIL $1: exit $3 (want $2), stderr:"; cat "$4"; fail=1
  else
    echo "ok   $1"
  fi
}
incident="$src/fixtures/incidents/two-node-stale-embeddings/inputs"
"$culprit" --db t.db "$incident" >/dev/null 2>&1
sum_before=$(sha256sum t.db)

"$culprit" query t.db "DELETE FROM events" >out 2>err; check query_delete 2 $? err "only reading the timeline"
"$culprit" query --db t.db "ATTACH DATABASE '$work/x.db' AS e" >out 2>err; check query_attach 2 $? err "only reading the timeline"
"$culprit" query t.db "PRAGMA writable_schema=ON" >out 2>err; check query_pragma_writable_schema 2 $? err "only reading the timeline"
"$culprit" query t.db "UPDATE sqlite_master SET sql = ''" >out 2>err; check query_update_schema 2 $? err "only reading the timeline\|may not be modified"
"$culprit" query t.db "SELECT count(*) FROM json_each('[1,2]')" >out 2>err; check query_table_valued_function 0 $? out "2"
"$culprit" query t.db "SELECT count(*) FROM events; -- a comment
/* and another */" >out 2>err; check query_trailing_comments 0 $? out "count"
"$culprit" query t.db "SELECT 1; DELETE FROM events" >out 2>err; check query_second_statement 2 $? err "one statement only"
"$culprit" query --timeout 1 t.db "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r" \
  >out 2>err; check query_endless_cte 2 $? err "time budget"
"$culprit" query t.db "SELECT count(*) AS n FROM events" >out 2>err; rc=$?
if [ $rc -ne 0 ] || ! grep -qx '[0-9][0-9]*' out; then echo "FAIL query_select: exit $rc"; cat out err; fail=1; else echo "ok   query_select"; fi

mkdir rules
cat > rules/bad.toml <<RULES
[[diagnosis]]
id = "attach-elsewhere"
verdict = "cuda_oom"
title = "attach"
priority = 10
query = "ATTACH DATABASE '$work/y.db' AS e"
message = "x"

[[diagnosis]]
id = "delete-events"
verdict = "cuda_oom"
title = "delete"
priority = 10
query = "DELETE FROM events"
message = "x"

[[diagnosis]]
id = "writable-schema"
verdict = "cuda_oom"
title = "pragma"
priority = 10
query = "PRAGMA writable_schema=ON"
message = "x"
RULES
"$culprit" rules check rules >out 2>err; rc=$?
check rules_check_names_writing_rules 2 $rc err "bad.toml:6:.*attach-elsewhere.*only reading"
check rules_check_names_delete 2 $rc err "bad.toml:14:.*delete-events.*only reading"
check rules_check_names_pragma 2 $rc err "bad.toml:22:.*writable-schema.*only reading"
# The run goes on with every other rule: the seed's foreign vLLM holder is still found.
"$culprit" --format json --rules rules "$incident" >out 2>err; rc=$?
check run_with_writing_rules 2 $rc err "attach-elsewhere"
grep -q '"role": *"foreign"' out || { echo "FAIL run_with_writing_rules: the other rules did not diagnose"; fail=1; }

mkdir slow
cat > slow/endless.toml <<'RULES'
[[diagnosis]]
id = "never-ends"
verdict = "cuda_oom"
title = "loop"
priority = 10
query = """
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
SELECT (SELECT count(*) FROM r) AS event_id, '' AS host, NULL AS ts, 'low' AS confidence
"""
message = "x"
RULES
"$culprit" --format json --rules slow --rule-timeout 1 "$incident" >out 2>err; rc=$?
check run_endless_rule_stopped 0 $rc err "never-ends.*time budget"
grep -q '"role": *"foreign"' out || { echo "FAIL run_endless_rule_stopped: the other rules did not diagnose"; fail=1; }

# A regex over the memory budget is refused with its reason.
mkdir big
python3 -c "
p = '[a-z0-9]{1000}' * 400
open('big/big.toml', 'w').write('[[signal]]\nid = \"too_big\"\nkind = \"log\"\nseverity = \"info\"\ndescription = \"x\"\npattern = \'%s\'\n' % p)"
"$culprit" rules check big >out 2>err; check rules_check_regex_memory_budget 2 $? err "too_big.*needs more memory"

sum_after=$(sha256sum t.db)
[ "$sum_before" = "$sum_after" ] || { echo "FAIL the timeline file changed"; fail=1; }
for f in x.db y.db; do [ ! -e "$f" ] || { echo "FAIL $f was created"; fail=1; }; done
exit $fail
