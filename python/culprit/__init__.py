"""culprit: what killed a GPU / ML job, and who did it — from Python.

    import culprit
    report = culprit.diagnose(open("paste.txt").read())    # a text: a paste, a traceback
    report = culprit.diagnose(["logs/spark-a", "logs/spark-b"])  # paths: files, folders, archives
    print(report.verdict, report.confidence, report.culprit)
    open("incident.html", "w").write(report.to_html())

    culprit.install()            # or: sys.excepthook = culprit.excepthook
    culprit.install(memory_history=True)  # also PyTorch's allocator snapshot at a CUDA OOM
    with culprit.watch():        # or around the part of a script that may die
        train()

The analysis is libculprit's (the `culprit` command's own pipeline; `to_json()` is byte for byte
what `culprit --format json` prints for the same inputs), run with the GIL released. Bad input
raises a culprit.Error subclass: InvalidOptionError (also a ValueError), NoInputError,
DatabaseError, RulesError; each has `code` and `diagnostics`.

    rows = culprit.query("incident.db", "SELECT kind, count(*) AS n FROM events GROUP BY kind")
"""

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import traceback

from ._culprit import (  # noqa: F401 (re-exported)
    DatabaseError,
    Error,
    InvalidOptionError,
    NoInputError,
    RulesError,
    __version__,
)
from . import _culprit
from . import memory_snapshot as _memory

__all__ = [
    "diagnose", "Report", "excepthook", "install", "watch", "Error", "InvalidOptionError",
    "NoInputError", "DatabaseError", "RulesError", "query", "__version__",
]


def query(db, sql, timeout=0):
    """One read-only SQL statement over a kept timeline (diagnose(db=…), `culprit diagnose --db`):
    a list of dicts keyed by column, as `culprit query --json` prints them (None for NULL; a
    blob as bytes, where the command prints hex). A
    write, a missing file or a file that is no culprit timeline raises DatabaseError (`code`
    query, not_found, not_a_timeline); timeout (seconds, 0: no limit) stops a long query."""
    return _culprit.query(os.fspath(db), sql, float(timeout))


class Report:
    """One incident's diagnosis. The attributes are the JSON contract's fields
    (schema/culprit-report.schema.json): dicts and lists of plain values."""

    def __init__(self, analysis):
        self._analysis = analysis
        self._json = analysis.render("json")
        self._data = json.loads(self._json)

    # The contract's fields.
    verdict = property(lambda self: self._data["verdict"], doc="cuda_oom, kernel_oom, …, not_oom, unknown")
    confidence = property(lambda self: self._data["confidence"], doc="high | medium | low")
    summary = property(lambda self: self._data["summary"])
    culprit = property(lambda self: self._data["culprit"], doc="{host, pid, name, role, …} or None")
    victim = property(lambda self: self._data["victim"], doc="the process that failed, or None")
    budget = property(lambda self: self._data["budget"], doc="the memory ledger at the failure, or None")
    root = property(lambda self: self._data["root"], doc="the root failure's finding, or None")
    echoes = property(lambda self: self._data["echoes"])
    findings = property(lambda self: self._data["findings"])
    evidence = property(lambda self: self._data["evidence"])
    advice = property(lambda self: self._data["advice"])
    ruled_out = property(lambda self: self._data["ruled_out"])
    sources = property(lambda self: self._data["sources"])
    skipped = property(lambda self: self._data["skipped"])
    # The run's own notes, as the command prints them on standard error.
    diagnostics = property(lambda self: self._analysis.diagnostics)
    db_path = property(lambda self: self._analysis.db_path or None, doc="the timeline file (db=), or None")

    def as_dict(self):
        """The JSON contract as a dict (a fresh copy)."""
        return json.loads(self._json)

    def to_json(self, redact=False):
        """The JSON contract, as `culprit --format json` prints it (one line, newline-ended)."""
        return self._analysis.render("json", redact=redact) if redact else self._json

    def to_markdown(self, redact=False):
        return self._analysis.render("markdown", redact=redact)

    def to_html(self, redact=False):
        """A self-contained HTML report (inline SVG charts)."""
        return self._analysis.render("html", redact=redact)

    def to_text(self, color=False, width=100, redact=False):
        """The terminal report the command prints."""
        return self._analysis.render("text", color=color, width=width, redact=redact)

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        who = self.culprit
        name = f" culprit={who.get('name') or who.get('pid')!r}" if who else ""
        return f"<culprit.Report verdict={self.verdict!r} confidence={self.confidence!r}{name}>"


def _raw_inputs(text_or_paths, host, name):
    """("path", bytes, host, '') / ("text", bytes, host, name) tuples for the extension."""
    def path(p):
        return ("path", os.fsencode(p), host, "")

    def text(t):
        return ("text", t if isinstance(t, bytes) else t.encode("utf-8", "surrogateescape"), host, name)

    if isinstance(text_or_paths, (str, bytes)):
        return [text(text_or_paths)]
    if isinstance(text_or_paths, os.PathLike):
        return [path(text_or_paths)]
    out = []
    for item in text_or_paths:
        if isinstance(item, bytes):
            out.append(text(item))
        elif isinstance(item, (str, os.PathLike)):
            out.append(path(item))
        else:
            raise TypeError(f"culprit.diagnose: a path (str, os.PathLike) or bytes, not {type(item).__name__}")
    return out


def diagnose(text_or_paths, host=None, *, name="<stdin>", exclude=(), rules=(), year=0, tz="",
             boot_times=(), max_events=0, max_line_bytes=1 << 20, threads=1, rule_timeout=30.0,
             prefilter=True, db=None):
    """Diagnoses an incident and returns a Report.

    text_or_paths: a str or bytes is one text (a paste, a traceback, a log held in memory); an
    os.PathLike (pathlib.Path) one path; a list or tuple, paths (str or PathLike; bytes items
    are texts). host: the host of inputs that name none. name: a text's source name in the
    report (`<stdin>`, as the command names standard input). The keywords are the command's
    options: exclude (--exclude globs), rules (--rules folders), year, tz, boot_times
    ("HOST=TIME"), max_events, max_line_bytes, threads (--jobs), rule_timeout (seconds),
    prefilter (False: --no-prefilter), db (keep the timeline in this SQLite file).
    """
    if isinstance(exclude, str) or isinstance(rules, (str, os.PathLike)) or isinstance(boot_times, str):
        raise TypeError("culprit.diagnose: exclude, rules and boot_times are lists")
    analysis = _culprit.analyze(
        _raw_inputs(text_or_paths, host or "", name), host or "", list(exclude),
        [os.fspath(r) for r in rules], int(year), tz or "", list(boot_times), int(max_events),
        int(max_line_bytes), int(threads), float(rule_timeout), bool(prefilter),
        os.fspath(db) if db else "")
    return Report(analysis)


def _culprit_command():
    """The culprit command for a snapshot: $CULPRIT, else `culprit` on PATH; None if neither."""
    return os.environ.get("CULPRIT") or shutil.which("culprit")


def _host_name():
    """This machine's short name, as `culprit collect` names its node folder."""
    return socket.gethostname().split(".")[0]


def diagnose_exception(exc_type, exc, tb, snapshot=None, host=None, timeout=60, extra_paths=()):
    """Diagnoses a formatted exception (and a snapshot of this machine) and returns a Report.

    snapshot: True / False, or None for "when the culprit command is at hand" ($CULPRIT or
    PATH; $CULPRIT_SNAPSHOT=0 turns it off): `culprit collect` writes nvidia-smi, ps, memory,
    the kernel log, docker and the cgroup's figures into a folder that is diagnosed with the
    traceback, so a CUDA OOM's holders are named. extra_paths: files diagnosed with them (the
    allocator snapshot the hook wrote at a CUDA OOM).
    """
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    host = host or _host_name()
    command = _culprit_command()
    if snapshot is None:
        snapshot = command is not None and os.environ.get("CULPRIT_SNAPSHOT", "1") != "0"
    with tempfile.TemporaryDirectory(prefix="culprit-") as folder:
        inputs = [text.encode("utf-8", "surrogateescape")] + [os.fspath(p) for p in extra_paths]
        if snapshot and command:
            out = os.path.join(folder, "snapshot")
            try:
                subprocess.run([command, "collect", "--output", out], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=timeout, check=False)
            except (OSError, subprocess.SubprocessError):
                pass
            if os.path.isdir(out):
                inputs.insert(0, out)
        return diagnose(inputs, host=host, name="<traceback>")


# Whether install() / watch() asked for the allocator's snapshot at a CUDA OOM (None: ask
# $CULPRIT_MEMORY_HISTORY), and the folder to write it in (None: $CULPRIT_MEMORY_SNAPSHOT_DIR, else
# the current folder).
_memory_history = None
_memory_folder = None


def _dump_allocator(exc, file, memory_history=None, folder=None):
    """At a CUDA OOM, when asked: writes the allocator's snapshot and says where; returns the
    paths to diagnose with the traceback."""
    asked = memory_history if memory_history is not None else _memory_history
    if not _memory.asked_for(asked):
        return ()
    path, why = _memory.dump_if_oom(exc, folder or _memory_folder)
    if why:
        print(f"culprit: no allocator snapshot: {why}", file=file)
    elif path:
        print(f"culprit: the allocator's snapshot at the OOM: {path}", file=file)
    return (path,) if path else ()


def _start_history(memory_history, file=None):
    if _memory.asked_for(memory_history):
        why = _memory.start_history()
        if why:
            print(f"culprit: PyTorch's allocation history is not recorded: {why}", file=file or sys.stderr)


def _report_exception(exc_type, exc, tb, file=None, memory_history=None, memory_folder=None, **kwargs):
    file = file or sys.stderr
    try:
        extra = _dump_allocator(exc, file, memory_history, memory_folder)
        report = diagnose_exception(exc_type, exc, tb, extra_paths=extra, **kwargs)
        print(f"\nculprit: {report.verdict} ({report.confidence})", file=file)
        file.write(report.to_text(color=file.isatty() and not os.environ.get("NO_COLOR")))
    except Exception as err:  # the hook must never hide the job's own error
        print(f"culprit: could not diagnose the exception: {err}", file=file)
    file.flush()


def excepthook(exc_type, exc, tb):
    """sys.excepthook: prints the traceback as Python does, then culprit's diagnosis of it."""
    sys.__excepthook__(exc_type, exc, tb)
    if not issubclass(exc_type, KeyboardInterrupt):
        _report_exception(exc_type, exc, tb)


def install(memory_history=None, memory_snapshot_dir=None):
    """Makes excepthook the interpreter's: one line at the top of a training script.

    memory_history: True starts PyTorch's allocation-history recording now (import torch
    first), and a CUDA OOM then writes the allocator's snapshot (culprit-memory-HOST-PID.json in
    memory_snapshot_dir, else $CULPRIT_MEMORY_SNAPSHOT_DIR, else the current folder), which is
    diagnosed with the traceback; None asks $CULPRIT_MEMORY_HISTORY (1: on); off by default."""
    global _memory_history, _memory_folder
    _memory_history = memory_history
    _memory_folder = memory_snapshot_dir
    _start_history(memory_history)
    sys.excepthook = excepthook


@contextlib.contextmanager
def watch(snapshot=None, host=None, file=None, memory_history=None, memory_snapshot_dir=None):
    """A block that, when it dies of an exception, prints culprit's diagnosis (on stderr by
    default) and lets the exception go on. KeyboardInterrupt and SystemExit pass untouched.
    memory_history: as install()'s, for this block."""
    _start_history(memory_history, file)
    try:
        yield
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as exc:
        _report_exception(type(exc), exc, exc.__traceback__, file=file, snapshot=snapshot, host=host,
                          memory_history=memory_history, memory_folder=memory_snapshot_dir)
        raise
