#!/bin/sh
# Issue 36 (the outside adversarial test's injection findings 1, 2, 3 and its finding 30): file
# and archive member names, folder names and stored values are strangers' bytes. Whatever they
# hold — a title-setting OSC, OSC 52 (the clipboard), a screen clear, a newline that forges a
# warning line, Markdown that opens a tag or an image — no ESC or BEL reaches stderr, the scan
# table, `query`'s table or `timeline --csv`, every diagnostic stays one line, a blob is shown
# as hex, and `scan` says what it skipped. Names are shown escaped (`\x1b`, `\n`; core::utf8::visible).
# usage: terminal_safety.sh CULPRIT SOURCE_DIR WORK_DIR
set -u
culprit=$1; src=$2; work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
ok() { echo "ok   $*"; }
esc=$(printf '\033'); bel=$(printf '\007')
# `raw FILE WHAT`: FILE holds no ESC and no BEL.
raw() {
  if grep -q "[$esc$bel]" "$1"; then fail "$2: an ESC or BEL reached the output:"; cat -v "$1"; else ok "$2"; fi
}
binary() { i=0; while [ $i -lt 200 ]; do printf '\001\002\003\004\005\006\016\017\020\021'; i=$((i+1)); done; }

# Finding 1: stderr diagnostics name files and archive members.
mkdir names
binary > "names/bin${esc}]0;PWNED-TITLE${bel}${esc}[2J.log"
: > "names/empty${esc}]52;c;cm0gLXJmIH4K${bel}.log"
: > "names/nl
fake: error[input-x]: forged
.log"
printf 'RuntimeError: CUDA error: out of memory %s]0;MSG%s%s[2J\n' "$esc" "$bel" "$esc" > names/train.log
"$culprit" names > names.out 2> names.err
raw names.err "stderr of a folder of hostile names"
if grep -q '^fake: error' names.err; then fail "a newline in a file name forged a diagnostic line"; else ok "no forged line"; fi
grep -qF 'bin\x1b]0;PWNED-TITLE\x07\x1b[2J.log' names.err && ok "the binary file's name is shown escaped" ||
  { fail "the binary file's name is not shown escaped:"; cat -v names.err; }
grep -qF 'nl\nfake: error[input-x]: forged\n.log: ' names.err && ok "the newline is shown escaped" || fail "the newline is not shown escaped"
raw names.out "text report"
tar cf escnames.tar -C names . 2>/dev/null
"$culprit" escnames.tar > tar.out 2> tar.err
raw tar.err "stderr of an archive of hostile member names"
grep -qF 'escnames.tar!/' tar.err && ok "archive members named" || fail "no archive member named on stderr"

# Finding 3: `query`'s table and `timeline --csv` print stored values.
"$culprit" --db names.db names > /dev/null 2>&1
"$culprit" query names.db "select name from sources" > q.tsv 2> q.err
raw q.tsv "query table of source names"
rows=$("$culprit" query --json names.db "select count(*) as n from sources" | tr -dc '0-9')
[ "$(wc -l < q.tsv)" -eq $((rows + 1)) ] && ok "one line per row" || fail "a value broke a row: $(wc -l < q.tsv) lines for $rows rows"
"$culprit" query names.db "select x'1b5d303b5407ff' as blob, 'a' || char(10) || 'b' as nl" > blob.tsv 2> blob.err
raw blob.tsv "query table of a blob"
grep -qF 'a\nb' blob.tsv && ok "a newline in a value shown escaped" || { fail "a newline in a value not escaped:"; cat -v blob.tsv; }
# A blob is shown as hex, as SQLite writes a blob literal: its bytes may be anything (a raw heap
# pointer from fts3_tokenizer()), and are never printed as they are.
[ "$(sed -n 2p blob.tsv)" = "x'1b5d303b5407ff'	a\nb" ] && ok "a blob in the table as x'…' hex" ||
  { fail "a blob in the table is not x'…' hex:"; cat -v blob.tsv; }
"$culprit" query --csv names.db "select x'1bff00' as b, zeroblob(0) as e" > blob.csv 2>&1
[ "$(cat blob.csv)" = "$(printf "b,e\r\nx'1bff00',x''\r")" ] && ok "a blob in the CSV as x'…' hex" ||
  { fail "a blob in the CSV is not x'…' hex:"; cat -v blob.csv; }
"$culprit" query --json names.db "select x'1bff00' as b" > blob.json 2>&1
[ "$(cat blob.json)" = '[{"b":"1bff00"}]' ] && ok "a blob in --json as a hex string" ||
  { fail "a blob in --json is not a hex string:"; cat -v blob.json; }
"$culprit" query --csv names.db "select name from sources" > q.csv 2>&1
raw q.csv "query --csv"
"$culprit" timeline --csv names > t.csv 2> t.err
raw t.csv "timeline --csv"
raw t.err "timeline's stderr"

# Finding 2: the scan table and its Markdown print folder names (the incident and its host).
mkdir -p scan "scan/inc${esc}]0;SCANPWN${bel}${esc}[2J" "scan/a|b<img src=x onerror=alert(1)>![i](https:x)"
cp names/train.log "scan/inc${esc}]0;SCANPWN${bel}${esc}[2J/train.log"
cp names/train.log "scan/a|b<img src=x onerror=alert(1)>![i](https:x)/train.log"
"$culprit" scan scan > scan.txt 2> scan.err
raw scan.txt "scan table"
"$culprit" scan --format markdown scan > scan.md 2>/dev/null
raw scan.md "scan Markdown"
if grep -q '[^\\]<img\|[^\\]\[i\]' scan.md; then fail "scan Markdown lets a tag or an image through:"; cat scan.md; else ok "scan Markdown escapes tags and images"; fi

# Finding 30: scan says what it skipped, as diagnose does.
mkdir -p skip/only-binary skip/binary-and-empty
binary > skip/only-binary/a.log
binary > skip/binary-and-empty/b.log
: > skip/binary-and-empty/c.log
"$culprit" scan skip > skip.txt 2> skip.err
[ "$(grep -c 'warning\[input-binary\]' skip.err)" -eq 2 ] && grep -q 'c.log: warning\[input-empty\]' skip.err &&
  ok "scan names each skipped input on stderr" || { fail "scan does not say what it skipped:"; cat skip.err; }
"$culprit" scan --quiet skip > /dev/null 2> quiet.err
[ ! -s quiet.err ] && ok "scan --quiet keeps stderr for errors" || { fail "scan --quiet printed notes:"; cat quiet.err; }
exit $status
