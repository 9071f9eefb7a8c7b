#!/bin/sh
# Issue 15 item 6, conventions: the generated man page and completions list every option of every
# subcommand; the completions parse; the man page renders; `cmake --install` puts them in place;
# --version names the SQLite that runs; --json / --csv of `timeline` and `query`; `scan` takes
# diagnose's --tz, --host, --redact, --format and -o; --help lists every subcommand.
# usage: conventions.sh TEST CULPRIT SOURCE_DIR BUILD_DIR WORK_DIR [CMAKE]
# Exit 0 pass, 1 fail, 77 skipped (a tool the test needs is absent).
set -u
test=$1; culprit=$2; src=$3; build=$4; work=$5; cmake=${6:-cmake}
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
gen="$build/generated"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
incident="$src/fixtures/incidents/torchrun-rank-exception/inputs"   # one train.log, zoneless stamps, no host
hosts="$src/fixtures/incidents/two-node-stale-embeddings/inputs"    # two hosts, users, containers

# The subcommands as `culprit --help` lists them (`[diagnose]` is diagnose; `rules check` is two words).
commands() {
  "$culprit" --help | sed -n 's/^  culprit \([^-][^ ]*\)\( \(check\|literals\)\)\{0,1\}.*/\1\2/p' | sed 's/^\[diagnose\]/diagnose/'
}
# The long options a subcommand's --help shows (Boost's table: `  -f [ --format ] …` or `  --db …`).
help_options() { # COMMAND WORDS...
  "$culprit" "$@" --help | sed -n 's/^  \(-[A-Za-z0-9] \[ \)\{0,1\}--\([A-Za-z0-9-]*\).*/\2/p'
}
# The long options of a subcommand's section of the man page.
man_options() { # "COMMAND"
  awk -v cmd="$1" '/^\.SS /{ in_cmd = ($0 == ".SS \"" cmd "\"") } in_cmd && /^\\fB/' "$gen/culprit.1" |
    sed -n 's/.*\\fB\\-\\-\([^\\]*\(\\-[^\\]*\)*\)\\fR.*/\1/p' | sed 's/\\-/-/g'
}
# The options of a subcommand's block of the bash completion.
bash_options() { # "COMMAND"
  awk -v cmd="'$1')" '{ line = $0; sub(/^ +/, "", line) } line == cmd { getline; print; exit }' "$gen/culprit.bash" | sed "s/^ *opts='//; s/'$//" | tr ' ' '\n'
}

case $test in
help_lists_every_command)
  # `rules literals` too (it was missing), and every command word the dispatcher takes.
  for c in diagnose scan merge timeline query run collect "rules check" "rules literals"; do
    if commands | grep -qx "$c"; then ok "--help lists $c"; else bad "--help omits $c"; fi
  done ;;

generated_docs_list_every_option)
  # Both ways: every option a subcommand's parser shows in --help is in the man page, the bash,
  # zsh and fish completions; every option the man page lists is one the parser accepts.
  [ "$(commands | wc -l)" -ge 9 ] || bad "too few subcommands in --help: $(commands | tr '\n' ' ')"
  commands > cmds
  while read -r c; do
    # shellcheck disable=SC2086 # `rules check` is two words
    help_options $c | sort -u > help.txt
    man_options "$c" | sort -u > man.txt
    bash_options "$c" | grep '^--' | sed 's/^--//' | sort -u > bash.txt
    [ -s help.txt ] || bad "$c: --help lists no option"
    if ! cmp -s help.txt man.txt; then bad "$c: man page options differ from --help:"; diff help.txt man.txt; fi
    if ! cmp -s help.txt bash.txt; then bad "$c: bash completion options differ from --help:"; diff help.txt bash.txt; fi
    while read -r o; do
      grep -q -- "--$o\[\|,--$o}" "$gen/_culprit" || bad "$c: --$o missing from the zsh completion"
      grep -q -- " -l $o " "$gen/culprit.fish" || bad "$c: --$o missing from the fish completion"
      [ "$o" = help ] && continue
      # The parser takes it (a value where it wants one); --help then stops before anything runs.
      # shellcheck disable=SC2086
      if "$culprit" $c --"$o" --help >/dev/null 2>&1 || "$culprit" $c --"$o" 1 --help >/dev/null 2>&1; then :; else
        bad "$c: the parser refuses --$o"
      fi
    done < help.txt
    # shellcheck disable=SC2086
    if "$culprit" $c --no-such-option --help >/dev/null 2>&1; then
      bad "$c: an unknown option is accepted (the check above proves nothing)"
    fi
    ok "$c: $(wc -l < help.txt) options in --help, man, bash, zsh and fish"
  done < cmds ;;

bash_completion_syntax)
  bash -n "$gen/culprit.bash" && ok "bash -n culprit.bash" || bad "bash -n culprit.bash"
  # Completing works: `culprit scan --fo<TAB>` offers --format, `culprit --format <TAB>` its values.
  out=$(bash -c '. "$1"; COMP_WORDS=(culprit scan --fo); COMP_CWORD=2; _culprit; echo "${COMPREPLY[*]}"' _ "$gen/culprit.bash")
  [ "$out" = "--format" ] && ok "scan --fo -> $out" || bad "scan --fo -> '$out'"
  out=$(bash -c '. "$1"; COMP_WORDS=(culprit --format ""); COMP_CWORD=2; _culprit; echo "${COMPREPLY[*]}"' _ "$gen/culprit.bash")
  [ "$out" = "text markdown json html" ] && ok "--format -> $out" || bad "--format -> '$out'"
  out=$(bash -c '. "$1"; COMP_WORDS=(culprit rules l); COMP_CWORD=2; _culprit; echo "${COMPREPLY[*]}"' _ "$gen/culprit.bash")
  [ "$out" = "literals" ] && ok "rules l -> $out" || bad "rules l -> '$out'"
  if command -v zsh >/dev/null; then zsh -n "$gen/_culprit" && ok "zsh -n" || bad "zsh -n _culprit"; fi
  if command -v fish >/dev/null; then fish -n "$gen/culprit.fish" && ok "fish -n" || bad "fish -n culprit.fish"; fi ;;

man_page_renders)
  command -v groff >/dev/null || { echo "skipped: groff is not installed"; exit 77; }
  groff -man -Tutf8 -ww -z "$gen/culprit.1" 2>warnings.txt
  if [ -s warnings.txt ]; then bad "groff warns:"; cat warnings.txt; else ok "groff -man -ww renders culprit.1 without warnings"; fi
  groff -man -Tutf8 "$gen/culprit.1" 2>/dev/null | grep -q "rules literals" && ok "the rendered page has rules literals" ||
    bad "the rendered page lacks rules literals" ;;

install_destdir)
  DESTDIR="$work/root" "$cmake" --install "$build" --prefix /usr >install.log 2>&1 || { bad "cmake --install failed:"; cat install.log; }
  for f in bin/culprit share/man/man1/culprit.1 share/bash-completion/completions/culprit \
           share/zsh/site-functions/_culprit share/fish/vendor_completions.d/culprit.fish; do
    [ -s "$work/root/usr/$f" ] && ok "installed $f" || bad "not installed: $f"
  done
  cmp -s "$work/root/usr/share/man/man1/culprit.1" "$gen/culprit.1" || bad "the installed man page is not the generated one" ;;

version_sqlite)
  "$culprit" --version > version.txt
  for lib in RE2 SQLite simdjson fmt Boost libarchive toml++; do
    grep -q "^$lib [0-9A-Za-z]" version.txt && ok "--version names $lib: $(grep "^$lib " version.txt)" || bad "--version lacks $lib"
  done
  "$culprit" diagnose --db t.db "$incident" >/dev/null 2>&1
  runtime=$("$culprit" query t.db "SELECT sqlite_version() AS v" | sed -n 2p)
  printed=$(sed -n 's/^SQLite //p' version.txt)
  [ -n "$runtime" ] && [ "$printed" = "$runtime" ] && ok "SQLite $printed is the one that runs" ||
    bad "--version says SQLite '$printed', the library running queries says '$runtime'" ;;

query_json_csv)
  "$culprit" diagnose --db t.db "$incident" >/dev/null 2>&1
  sql="SELECT 42 AS n, 2.5 AS r, 3.0 AS whole, NULL AS z, '' AS empty, 'a,b' AS comma, 'say \"hi\"' AS quote, 'two' || char(10) || 'lines' AS nl"
  "$culprit" query --json t.db "$sql" > q.json || bad "query --json failed"
  "$culprit" query --csv t.db "$sql" > q.csv || bad "query --csv failed"
  python3 - q.json q.csv <<'PY' || fail=1
import csv, json, sys
rows = json.load(open(sys.argv[1]))
want = {"n": 42, "r": 2.5, "whole": 3.0, "z": None, "empty": "", "comma": "a,b", "quote": 'say "hi"', "nl": "two\nlines"}
assert rows == [want], rows
assert type(rows[0]["n"]) is int and type(rows[0]["whole"]) is float, rows
assert list(rows[0]) == list(want), "column order"
raw = open(sys.argv[2], "rb").read()
# A newline in a value is shown as \n (issue 36: a stored value reaches no terminal raw and a
# record is one line); --json keeps the exact value.
assert raw == b'n,r,whole,z,empty,comma,quote,nl\r\n42,2.5,3.0,,"","a,b","say ""hi""",two\\nlines\r\n', raw
got = list(csv.reader(open(sys.argv[2], newline="")))
assert got == [list(want), ["42", "2.5", "3.0", "", "", "a,b", 'say "hi"', "two\\nlines"]], got
print("ok   query --json keeps types, NULL as null; --csv quotes per RFC 4180")
PY
  # A real table: NULL pids are null, and --json and --csv hold the same rows.
  "$culprit" query --json t.db "SELECT id, pid, kind FROM events ORDER BY id LIMIT 20" > e.json
  "$culprit" query --csv t.db "SELECT id, pid, kind FROM events ORDER BY id LIMIT 20" > e.csv
  python3 - e.json e.csv <<'PY' || fail=1
import csv, json, sys
rows = json.load(open(sys.argv[1]))
table = list(csv.DictReader(open(sys.argv[2], newline="")))
assert rows and len(rows) == len(table), (len(rows), len(table))
assert any(r["pid"] is None for r in rows), "a NULL pid"
for j, c in zip(rows, table):
    assert str(j["id"]) == c["id"] and ("" if j["pid"] is None else str(j["pid"])) == c["pid"] and j["kind"] == c["kind"]
print("ok   query over events: --json and --csv agree, NULL pid is null / empty")
PY
  "$culprit" query --json --csv t.db "SELECT 1" >/dev/null 2>err; [ $? -eq 2 ] && ok "--json with --csv is refused" || bad "--json --csv taken" ;;

timeline_json_csv)
  # The incident's events hold commas (`rank 2 (local_rank: 2), exitcode 1`); quotes and line
  # breaks inside a field are the unit tests' (tests/unit/report/test_csv_and_timeline_table.cpp).
  "$culprit" timeline --width 0 --all "$incident" > t.txt 2>/dev/null
  "$culprit" timeline --json --all "$incident" > t.json 2>/dev/null || bad "timeline --json failed"
  "$culprit" timeline --csv --all "$incident" > t.csv 2>/dev/null || bad "timeline --csv failed"
  python3 - t.json t.csv t.txt <<'PY' || fail=1
import csv, json, sys
events = json.load(open(sys.argv[1]))
keys = ["id", "time", "time_text", "host", "kind", "severity", "pid", "rank", "comm", "source", "line", "mark", "message"]
assert events and all(list(e) == keys for e in events), events[:1]
roots = [e for e in events if e["mark"] == "root"]
assert len(roots) == 1, roots
assert sum(1 for l in open(sys.argv[3]) if l.startswith("> ")) == 1
root_line = next(l for l in open(sys.argv[3]) if l.startswith("> "))
assert roots[0]["message"].split("\n")[0][:30] in root_line, (roots[0], root_line)
assert all(e["mark"] in ("root", "echo", None) for e in events)
comma = [e for e in events if "," in e["message"]]
assert comma, "an event with a comma"
table = list(csv.reader(open(sys.argv[2], newline="")))
assert table[0] == keys and len(table) == len(events) + 1, (table[0], len(table), len(events))
for e, row in zip(events, table[1:]):
    assert row == ["" if e[k] is None else str(e[k]) for k in keys], (e, row)
raw = open(sys.argv[2], "rb").read()
quoted = ('"' + comma[0]["message"].replace('"', '""') + '"').encode()
assert quoted in raw and raw.endswith(b"\r\n"), "RFC 4180 quoting"
print("ok   timeline --json: %d events, one root; --csv the same rows, quoted per RFC 4180" % len(events))
PY
  # The marks are the listing's: as many `~` echoes and one `>` root, in the same order.
  "$culprit" timeline --width 0 "$hosts" 2>/dev/null | sed -n 's/^\([>~]\) .*/\1/p' | tr -d '\n' > marks.txt
  "$culprit" timeline --json "$hosts" 2>/dev/null |
    python3 -c 'import json,sys; print("".join({"root": ">", "echo": "~"}[e["mark"]] for e in json.load(sys.stdin) if e["mark"]), end="")' > jmarks.txt
  if [ -s marks.txt ] && cmp -s marks.txt jmarks.txt; then ok "marks as in the listing: $(cat marks.txt)"
  else bad "marks: listing '$(cat marks.txt)', --json '$(cat jmarks.txt)'"; fi
  # A saved timeline (`diagnose --db`) keeps the root and its echoes.
  rm -f saved.db
  "$culprit" --db saved.db "$hosts" >/dev/null 2>&1
  "$culprit" timeline --db saved.db --width 0 2>/dev/null | sed -n 's/^\([>~]\) .*/\1/p' | tr -d '\n' > dbmarks.txt
  if cmp -s marks.txt dbmarks.txt; then ok "timeline --db marks as the live listing: $(cat dbmarks.txt)"
  else bad "timeline --db marks '$(cat dbmarks.txt)', live '$(cat marks.txt)'"; fi
  ;;

scan_diagnose_options)
  # scan's JSON line of an incident is diagnose's JSON of it plus "incident", with each option.
  strip() { python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); d.pop("incident"); print(json.dumps(d, sort_keys=True))'; }
  canon() { python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))'; }
  same() { # NAME INPUT OPTIONS...
    name=$1; in=$2; shift 2
    "$culprit" scan --each-path --format json "$@" "$in" 2>/dev/null | strip > scan.out
    "$culprit" diagnose --json "$@" "$in" 2>/dev/null | canon > diag.out
    "$culprit" diagnose --json "$in" 2>/dev/null | canon > plain.out
    if ! cmp -s scan.out diag.out; then bad "$name: scan $* differs from diagnose $*"; diff scan.out diag.out | head -5
    elif cmp -s diag.out plain.out; then bad "$name: $* changes nothing (the test proves nothing)"
    else ok "$name: scan $* = diagnose $*, and differs from no option"; fi
  }
  same tz "$incident" --tz +05:00
  same host "$incident" --host node-zed
  same redact "$hosts" --redact
  # --format: text is the table, markdown a Markdown table, json the diagnose contract (above).
  "$culprit" scan --format markdown "$incident" > s.md 2>/dev/null
  head -1 s.md | grep -q '^| Verdict | Confidence | When (UTC) | Culprit | Where | Incident |$' && ok "--format markdown" || { bad "--format markdown:"; cat s.md; }
  "$culprit" scan --format html "$incident" >/dev/null 2>err; [ $? -eq 2 ] && grep -q -- "--format 'html'" err &&
    ok "--format html refused: $(cat err)" || bad "--format html taken"
  # -o: the same output in the file, nothing on stdout.
  "$culprit" scan --format json "$incident" > s.stdout 2>/dev/null
  "$culprit" scan --format json -o s.file "$incident" > s.none 2>/dev/null
  cmp -s s.stdout s.file && [ ! -s s.none ] && ok "-o writes the output to FILE" || bad "-o: file and stdout differ"
  "$culprit" scan -o /nonexistent-dir/x "$incident" >/dev/null 2>err; [ $? -eq 2 ] && ok "-o unwritable: exit 2" || bad "-o unwritable not an error"
  "$culprit" scan --tz Mars/Olympus "$incident" >/dev/null 2>err; [ $? -eq 2 ] && ok "--tz bad: $(cat err)" || bad "--tz bad taken" ;;

*) echo "unknown test $test"; exit 2 ;;
esac
exit $fail
