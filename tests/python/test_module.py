"""The Python module (issue 18): culprit.diagnose gives the command's JSON on every fixture, the
Report's attributes, typed exceptions for bad input, the GIL released while culprit works, and
the exception hook / watch() in a child interpreter dying of a CUDA OOM.

Run by ctest (label python) with PYTHONPATH=build/python, CULPRIT_BIN (the built command) and
CULPRIT_FIXTURES (fixtures/incidents)."""

import concurrent.futures
import functools
import json
import os
import pathlib
import socket
import subprocess
import sys
import threading
import time

import pytest

import culprit

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(os.environ.get("CULPRIT_FIXTURES", ROOT / "fixtures" / "incidents"))
CULPRIT_BIN = os.environ.get("CULPRIT_BIN", str(ROOT / "build" / "culprit"))
SEED = FIXTURES / "two-node-stale-embeddings-paste"  # the README's story, pasted from one terminal

# PyTorch's CUDA OOM message, from the format string in c10/cuda/CUDACachingAllocator.cpp
# (torch >= 2.1): "CUDA out of memory. Tried to allocate {}. GPU {} has a total capacity of {}
# of which {} is free. {}Of the allocated memory {} is allocated by PyTorch, and {} is reserved
# by PyTorch but unallocated. If reserved but unallocated memory is large try setting
# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation
# for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
TORCH_OOM = (
    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which "
    "1.06 GiB is free. Including non-PyTorch memory, this process has 78.08 GiB memory in use. Of the "
    "allocated memory 76.50 GiB is allocated by PyTorch, and 1.01 GiB is reserved by PyTorch but "
    "unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
    "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)


def fixture_dirs():
    return sorted(d for d in FIXTURES.iterdir() if (d / "expected.json").is_file())


def options_of(args):
    """The golden runner's extra command-line arguments (expected.json "args") as keywords."""
    names = {"--host": "host", "--year": "year", "--tz": "tz"}
    kwargs = {}
    for flag, value in zip(args[::2], args[1::2]):
        assert flag in names, f"add {flag} to options_of"
        kwargs[names[flag]] = int(value) if flag == "--year" else value
    return kwargs


def cli_command(fixture):
    """(argv, stdin bytes or None, the module's inputs, keywords) for a fixture, as tests/golden
    runs it."""
    expected = json.loads((fixture / "expected.json").read_text())
    args = expected.get("args", [])
    inputs = fixture / "inputs"
    cmd = [CULPRIT_BIN, "diagnose", "--format", "json", "--quiet", *args]
    if "stdin" in expected:
        text = (inputs / expected["stdin"]).read_bytes()
        return [*cmd, "-"], text, text, options_of(args)
    return [*cmd, str(inputs)], None, [inputs], options_of(args)


@functools.lru_cache(maxsize=None)
def cli_outputs():
    """Every fixture's JSON from the command, the runs side by side (they are most of the time)."""
    def run(fixture):
        argv, stdin, _, _ = cli_command(fixture)
        cli = subprocess.run(argv, input=stdin, capture_output=True, check=False)
        assert cli.returncode in (0, 1), cli.stderr.decode()
        return fixture.name, cli.stdout.decode()
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        return dict(pool.map(run, fixture_dirs()))


@pytest.mark.parametrize("fixture", fixture_dirs(), ids=lambda d: d.name)
def test_json_is_the_commands(fixture):
    _, _, inputs, kwargs = cli_command(fixture)
    assert culprit.diagnose(inputs, **kwargs).to_json() == cli_outputs()[fixture.name]


def test_seed_paste_verdict():
    expected = json.loads((SEED / "expected.json").read_text())
    report = culprit.diagnose(open(SEED / "inputs" / "paste.txt").read())
    assert report.verdict == expected["verdict"] == "cuda_oom"
    assert report.confidence == expected["confidence"]
    for key, value in expected["culprit"].items():
        assert report.culprit[key] == value


def test_report_attributes():
    report = culprit.diagnose((SEED / "inputs" / "paste.txt").read_bytes())
    data = report.as_dict()
    assert report.verdict == data["verdict"]
    assert report.victim == data["victim"]
    assert report.culprit["pid"] == 48211 and report.culprit["role"] == "foreign"
    assert report.budget["total"] > 0 and report.budget == data["budget"]
    assert report.findings and report.findings[0]["verdict"] == "cuda_oom"
    assert report.evidence and all("line" in e for e in report.evidence)
    assert report.sources[0]["name"] == "<stdin>"
    assert report.to_json().endswith("\n") and json.loads(report.to_json()) == data
    assert report.to_markdown().startswith("#")
    assert "<html" in report.to_html()
    assert "VLLM::EngineCore" in str(report)
    assert "spark-b" not in report.to_json(redact=True)
    assert repr(report).startswith("<culprit.Report verdict='cuda_oom'")
    assert report.db_path is None


def test_text_host_and_name():
    report = culprit.diagnose("torch.OutOfMemoryError: " + TORCH_OOM + "\n", host="gpu-node-7", name="train.log")
    assert report.verdict == "cuda_oom"
    assert report.sources[0]["name"] == "train.log"
    assert report.sources[0]["host"] == "gpu-node-7"


def test_bad_input_raises_typed_exceptions(tmp_path):
    missing = tmp_path / "no-such-log.txt"
    with pytest.raises(culprit.NoInputError) as err:
        culprit.diagnose([missing])
    assert isinstance(err.value, culprit.Error)
    assert err.value.code == "no_input"
    assert "no input could be read" in str(err.value) and str(missing) in str(err.value)
    assert any("input-missing" in d for d in err.value.diagnostics)

    with pytest.raises(culprit.NoInputError):
        culprit.diagnose([])
    with pytest.raises(culprit.InvalidOptionError) as err:
        culprit.diagnose("a log line\n", tz="Mars/Olympus")
    assert isinstance(err.value, ValueError) and "Mars/Olympus" in str(err.value)
    with pytest.raises(culprit.InvalidOptionError):
        culprit.diagnose("a log line\n", year=24)
    with pytest.raises(culprit.DatabaseError):
        culprit.diagnose("a log line\n", db=tmp_path / "no-such-folder" / "timeline.db")
    with pytest.raises(TypeError):
        culprit.diagnose([42])


def test_timeline_file(tmp_path):
    db = tmp_path / "timeline.db"
    report = culprit.diagnose("torch.OutOfMemoryError: " + TORCH_OOM + "\n", db=db)
    assert report.db_path == str(db) and db.stat().st_size > 0


def test_query_a_kept_timeline(tmp_path):
    db = tmp_path / "timeline.db"
    culprit.diagnose("torch.OutOfMemoryError: " + TORCH_OOM + "\n", db=db)
    rows = culprit.query(db, "SELECT kind, 1.5 AS r, NULL AS n FROM events WHERE kind = 'cuda_oom'")
    assert rows and rows[0] == {"kind": "cuda_oom", "r": 1.5, "n": None}
    assert culprit.query(db, "SELECT id FROM events WHERE kind = 'no_such_kind'") == []
    # A blob is bytes, as stored (the command shows it as hex; issue 36).
    assert culprit.query(db, "SELECT x'1bff00' AS b") == [{"b": b"\x1b\xff\x00"}]
    with pytest.raises(culprit.DatabaseError) as refused:
        culprit.query(db, "DELETE FROM events")
    assert refused.value.code == "query"
    with pytest.raises(culprit.DatabaseError) as missing:
        culprit.query(tmp_path / "missing.db", "SELECT 1")
    assert missing.value.code == "not_found"


def test_gil_is_released_while_culprit_works():
    """A Python thread keeps running while another is inside culprit: the longest pause between
    its steps stays far below the analysis's own time."""
    text = ("step 1 | loss 2.31 | throughput 1200 samples/s\n" * 30000) + "torch.OutOfMemoryError: " + TORCH_OOM + "\n"
    started = time.perf_counter()
    culprit.diagnose(text)
    alone = time.perf_counter() - started
    if alone < 0.1:
        pytest.skip(f"the analysis took {alone:.3f} s, too short to tell")
    done = threading.Event()
    worker = threading.Thread(target=lambda: (culprit.diagnose(text), done.set()))
    longest, last = 0.0, time.perf_counter()
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
        time.sleep(0.001)
    worker.join()
    assert longest < alone / 2, f"a {longest:.3f} s pause during a {alone:.3f} s analysis: the GIL was held"


CHILD_OOM = f"""
import culprit, sys
{{setup}}
class OutOfMemoryError(RuntimeError):
    pass
OutOfMemoryError.__module__ = "torch"   # printed as torch.OutOfMemoryError, as PyTorch's is
def forward():
    raise OutOfMemoryError({TORCH_OOM!r})
{{body}}
"""


def run_child(setup, body, **env):
    code = CHILD_OOM.format(setup=setup, body=body)
    child_env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), CULPRIT_SNAPSHOT="0", NO_COLOR="1")
    child_env.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env,
                          timeout=60, check=False)


def test_excepthook_diagnoses_a_cuda_oom_in_a_child_interpreter():
    """The hook prints Python's traceback, then culprit's verdict. With the command at hand
    ($CULPRIT) it adds `culprit collect`'s snapshot of this machine (one child: collect takes a
    second or two); the verdict still comes from the traceback."""
    snapshot = os.access(CULPRIT_BIN, os.X_OK)
    env = {"CULPRIT": CULPRIT_BIN, "CULPRIT_SNAPSHOT": "1"} if snapshot else {}
    child = run_child("culprit.install()", "forward()", **env)
    assert child.returncode == 1
    assert "Traceback (most recent call last)" in child.stderr
    assert "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" in child.stderr
    assert "culprit: cuda_oom" in child.stderr, child.stderr
    assert "<traceback>" in child.stderr  # the report's sources: the traceback ...
    if snapshot:  # ... and the snapshot's node folder, named after this machine
        assert f"{socket.gethostname().split('.')[0]}/ps.txt" in child.stderr, child.stderr


def test_watch_diagnoses_and_reraises_in_a_child_interpreter():
    child = run_child("", "with culprit.watch():\n    forward()")
    assert child.returncode == 1
    assert "culprit: cuda_oom" in child.stderr, child.stderr
    # The exception goes on after the report: Python's own traceback follows it.
    assert child.stderr.index("culprit: cuda_oom") < child.stderr.rindex("torch.OutOfMemoryError")


def test_watch_is_silent_without_an_exception(capsys):
    with culprit.watch(snapshot=False):
        pass
    assert capsys.readouterr().err == ""
