"""The allocator's own view at a CUDA OOM (issue 39, item 3): the hook's history recording for
each PyTorch signature, its OOM detection, the snapshot it writes (bounded, PyTorch's layout),
culprit's report of it beside the ledger, and the whole hook in a child interpreter with
Debian's CPU-only torch (python3-torch 1.13), which has no CUDA allocator: there the snapshot
function is replaced by a recorded one (tests/python/torch_snapshots.py), as on a GPU it would
return it.

Run by ctest `python.module` (tests/python/run_pytest.py)."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

import culprit
from culprit import memory_snapshot as ms

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import torch_snapshots as ts  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
SNAPSHOT_FIXTURES = ROOT / "fixtures" / "formats" / "torch_memory_snapshot"
GiB = ts.GiB

# CI installs python3-torch (scripts/setup-debian.sh); the tests that need it fail, not skip,
# where it is missing, as CI fails on a skipped test.
import torch  # noqa: E402

TRACEBACK = f"""Traceback (most recent call last):
  File "/home/ml/llm/train.py", line 95, in <module>
    loss = train_step(model, batch)
  File "/home/ml/llm/train.py", line 42, in train_step
    out = model(batch)
torch.OutOfMemoryError: {ts.OOM_MESSAGE}
"""


class FakeCuda:
    """Stands in for torch.cuda on a machine with a GPU: records what the hook calls."""

    def __init__(self, record, snapshot=None):
        self.calls = []
        outer = self

        class Memory:
            @staticmethod
            def _snapshot():
                return snapshot

        def recorder(*args, **kwargs):
            outer.calls.append((args, kwargs))

        # The recorder keeps the real signature's parameters, which is what the hook reads.
        recorder.__signature__ = __import__("inspect").signature(record)
        Memory._record_memory_history = staticmethod(recorder)
        self.memory = Memory
        self.OutOfMemoryError = type("OutOfMemoryError", (RuntimeError,), {})

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def current_device():
        return 0


class FakeTorch:
    __version__ = "2.1.2"

    def __init__(self, record, snapshot=None):
        self.cuda = FakeCuda(record, snapshot)


@pytest.mark.parametrize("record, args, kwargs", [
    (ts.record_1_13, (True,), {}),
    (ts.record_2_0, (True,), {"record_context": True, "trace_alloc_max_entries": 1,
                              "trace_alloc_record_context": False}),
    (ts.record_2_1, ("state",), {"context": "state", "stacks": "python"}),
    (ts.record_2_1_impl, ("state",), {"context": "state", "stacks": "python"}),
])
def test_history_is_started_with_each_versions_signature(record, args, kwargs):
    assert ms.history_arguments(record) == (args, kwargs)
    fake = FakeTorch(record)
    assert ms.start_history(fake) is None
    assert fake.cuda.calls == [(args, kwargs)]


def test_history_on_debians_cpu_only_torch_says_why_and_goes_on():
    # The installed torch's own function (1.13: enabled, device) is read by its signature.
    assert ms.history_arguments(torch.cuda.memory._record_memory_history) == ((True,), {})
    assert ms.start_history(torch) == "CUDA is not available"
    assert ms.start_history(None) in (None, "CUDA is not available")  # sys.modules' torch: the same one


def test_history_is_off_unless_asked(monkeypatch):
    monkeypatch.delenv(ms.HISTORY_ENV, raising=False)
    assert not ms.asked_for(None)
    monkeypatch.setenv(ms.HISTORY_ENV, "1")
    assert ms.asked_for(None)
    assert not ms.asked_for(False)  # the argument wins over the environment
    monkeypatch.setenv(ms.HISTORY_ENV, "0")
    assert not ms.asked_for(None) and ms.asked_for(True)


def test_a_cuda_oom_is_told_by_type_by_message_and_through_its_chain():
    assert ms.oom_of(torch.cuda.OutOfMemoryError(ts.OOM_MESSAGE), torch) is not None
    # Before 1.13 the allocator raised a RuntimeError; ROCm says HIP.
    assert ms.oom_of(RuntimeError("CUDA out of memory. Tried to allocate 20.00 MiB"), torch) is not None
    assert ms.oom_of(RuntimeError("HIP out of memory. Tried to allocate 2.00 GiB"), None) is not None
    # Raised from, or while handling, the OOM (a framework's wrapper).
    try:
        try:
            raise torch.cuda.OutOfMemoryError(ts.OOM_MESSAGE)
        except RuntimeError as inner:
            raise ValueError("step 12 failed") from inner
    except ValueError as outer:
        assert isinstance(ms.oom_of(outer, torch), torch.cuda.OutOfMemoryError)
    # Look-alikes: another CUDA error, a host allocation, a CPU OOM.
    for text in ("CUDA error: an illegal memory access was encountered",
                 "DefaultCPUAllocator: not enough memory: you tried to allocate 2147483648 bytes",
                 "out of memory"):
        assert ms.oom_of(RuntimeError(text), torch) is None
    # A cycle in the chain ends.
    a, b = RuntimeError("a"), RuntimeError("b")
    a.__context__, b.__context__ = b, a
    assert ms.oom_of(a, torch) is None


def test_the_fixtures_are_what_the_hook_writes_from_the_recorded_snapshots():
    """fixtures/formats/torch_memory_snapshot (culprit's reader's tests) byte for byte."""
    for name, text in ts.fixture_texts(ms).items():
        assert (SNAPSHOT_FIXTURES / name).read_text() == text, name


@pytest.mark.parametrize("snapshot", [ts.snapshot_1_13(), ts.snapshot_2_0(), ts.snapshot_2_1()],
                         ids=["1.13", "2.0", "2.1"])
def test_the_file_keeps_pytorchs_layout_and_its_totals(snapshot):
    doc = json.loads(ms.to_json(snapshot, error=ts.OOM_MESSAGE, device=0))
    head = doc[ms.FORMAT_KEY]
    assert head["error"] == ts.OOM_MESSAGE and head["device"] == 0 and head["blocks_total"] == 11
    segments = doc["segments"]
    assert sum(s["total_size"] for s in segments) == ts.reserved()
    assert sum(s["allocated_size"] for s in segments) == ts.allocated()
    live = [b for s in segments for b in s["blocks"] if b["state"] == "active_allocated"]
    assert len(live) == 7
    frames = [b["frames"] if "frames" in b else b["history"][-1]["frames"] for b in live]
    assert {"filename": ts.MODEL, "line": 88, "name": "attention"} in frames[1]


def test_the_file_is_bounded_and_says_what_it_dropped(monkeypatch):
    monkeypatch.setattr(ms, "MAX_SEGMENTS", 8)
    monkeypatch.setattr(ms, "MAX_LIVE_BLOCKS", 5)
    monkeypatch.setattr(ms, "MAX_FREE_BLOCKS", 2)
    deep = [ts.frame("/srv/" + "d" * 2000 + f"/f{i}.py", i, "f" * 2000) for i in range(40)]
    layout = [("large", [((k + 1) * ts.MiB, "active_allocated", deep), (ts.MiB // (k + 1), "inactive", None)])
              for k in range(100)]
    text = ms.to_json(ts.snapshot_2_1(layout))
    doc = json.loads(text)
    head = doc[ms.FORMAT_KEY]
    blocks = [b for s in doc["segments"] for b in s["blocks"]]
    assert len([b for b in blocks if b["state"] == "inactive"]) == 2
    live = sorted(b["size"] for b in blocks if b["state"] != "inactive")
    assert live == [(k + 1) * ts.MiB for k in range(95, 100)]  # the largest live blocks
    assert max(b["size"] for b in blocks if b["state"] == "inactive") == ts.MiB  # the largest free one is kept
    assert all(len(b["frames"]) == ms.MAX_FRAMES for b in blocks if b["state"] != "inactive")
    assert all(len(f["name"]) == ms.MAX_TEXT for b in blocks for f in b.get("frames", []))
    # A long path keeps its end: the file name that tells a Python frame (`.py`) and the reader.
    assert all(len(f["filename"]) == ms.MAX_TEXT and f["filename"].endswith(f"/f{f['line']}.py")
               for b in blocks for f in b.get("frames", []))
    # Dropped segments' figures travel in the header: the totals stay whole.
    kept = sum(s["total_size"] for s in doc["segments"])
    assert kept + head["dropped_total_size"] == ts.reserved(layout)
    assert head["segments_dropped"] == 100 - len(doc["segments"]) and head["blocks_dropped"] == 200 - 7
    assert max(len(line) for line in text.splitlines()) < 64 * 1024


def test_the_hook_writes_a_new_file_and_never_replaces_one(tmp_path):
    fake = FakeTorch(ts.record_2_1, ts.snapshot_2_1())
    oom = fake.cuda.OutOfMemoryError(ts.OOM_MESSAGE)
    first, why = ms.dump_if_oom(oom, str(tmp_path), torch=fake)
    assert why is None and os.path.basename(first).startswith("culprit-memory-")
    second, _ = ms.dump_if_oom(oom, str(tmp_path), torch=fake)
    docs = [json.loads(pathlib.Path(p).read_text()) for p in (first, second)]
    for doc in docs:
        doc[ms.FORMAT_KEY].pop("time")  # the two may be a second apart
    assert second != first and docs[0] == docs[1]
    assert docs[0][ms.FORMAT_KEY]["torch"] == "2.1.2" and docs[0][ms.FORMAT_KEY]["device"] == 0
    # Not an OOM: nothing written; a snapshot that fails: why, and nothing raised.
    assert ms.dump_if_oom(RuntimeError("CUDA error: misaligned address"), str(tmp_path), torch=fake) == (None, None)
    path, why = ms.dump_if_oom(oom, str(tmp_path), torch=fake, take_snapshot=lambda: 1 / 0)
    assert path is None and why.startswith("ZeroDivisionError")
    assert len(list(tmp_path.iterdir())) == 2


def test_the_report_shows_the_allocator_beside_the_ledger(tmp_path):
    snapshot = tmp_path / "culprit-memory-spark-b-51877.json"
    snapshot.write_text((SNAPSHOT_FIXTURES / "hook-2.1-fragmented.txt").read_text())
    report = culprit.diagnose([TRACEBACK.encode(), str(snapshot)], host="spark-b")
    assert report.verdict == "cuda_oom"
    a = report.as_dict()["allocator"]
    assert a["reserved"] == ts.reserved() and a["allocated"] == ts.allocated()
    assert a["unallocated"] == ts.reserved() - ts.allocated()
    assert a["largest_free"] == GiB * 3 // 2 and a["requested"] == 2 * GiB and a["fragmented"] is True
    assert a["gpu"] == 0 and a["torch_version"] == "2.1.2" and a["site_count"] == 4
    assert [(s["file"], s["line"], s["bytes"]) for s in a["sites"][:2]] == [
        (ts.MODEL, 88, 22 * GiB + 512 * ts.MiB), (ts.TRAIN, 18, 20 * GiB)]
    assert any(s["format"] == "torch_memory_snapshot" for s in report.sources)
    text = report.to_text()
    assert "Allocator at the OOM — spark-b GPU 0 (PyTorch 2.1.2 snapshot)" in text
    assert "reserved − allocated" in text and "Fragmentation:" in text
    assert "model.py:88 in attention" in text
    # Beside the ledger: after the memory budget, before the root failure.
    assert text.index("Memory budget") < text.index("Allocator at the OOM") < text.index("Root failure")
    md = report.to_markdown()
    assert "## Allocator at the OOM" in md and "`model.py:88 in attention`" in md
    assert "Allocator at the OOM" in report.to_html()


def test_a_roomy_snapshot_is_not_called_fragmented(tmp_path):
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text((SNAPSHOT_FIXTURES / "json-dump-2.1-roomy.txt").read_text())
    a = culprit.diagnose([str(snapshot)]).as_dict()["allocator"]
    assert a["requested"] == 512 * ts.MiB and a["largest_free"] == GiB and a["fragmented"] is False
    assert culprit.diagnose(TRACEBACK).as_dict()["allocator"] is None


CHILD = """
import os, sys, json
import torch
sys.path.insert(0, {tests!r})
import torch_snapshots
import culprit
{setup}
culprit.install(memory_history={history!r})

def train_step():
    raise torch.cuda.OutOfMemoryError(torch_snapshots.OOM_MESSAGE)

train_step()
"""


def run_child(tmp_path, setup="", history=None, **env):
    code = CHILD.format(tests=str(pathlib.Path(__file__).resolve().parent), setup=setup, history=history)
    child_env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), CULPRIT_SNAPSHOT="0", NO_COLOR="1",
                     CULPRIT_MEMORY_SNAPSHOT_DIR=str(tmp_path))
    child_env.pop(ms.HISTORY_ENV, None)
    child_env.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env,
                          timeout=120, check=False, cwd=str(tmp_path))


def test_the_hook_on_cpu_only_torch_says_why_and_still_diagnoses(tmp_path):
    child = run_child(tmp_path, history=True)
    assert child.returncode == 1
    assert "PyTorch's allocation history is not recorded: CUDA is not available" in child.stderr
    assert "culprit: no allocator snapshot:" in child.stderr  # _snapshot needs CUDA
    assert "culprit: cuda_oom" in child.stderr, child.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_hook_is_off_by_default(tmp_path):
    child = run_child(tmp_path, setup="torch.cuda.memory._snapshot = torch_snapshots.snapshot_2_1")
    assert "culprit: cuda_oom" in child.stderr, child.stderr
    assert "Allocator at the OOM" not in child.stderr and "allocator's snapshot" not in child.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_hook_writes_the_snapshot_and_reports_it(tmp_path):
    """On a GPU, _snapshot() returns the allocator's state; here a recorded one stands in."""
    child = run_child(tmp_path, setup="torch.cuda.memory._snapshot = torch_snapshots.snapshot_1_13",
                      **{ms.HISTORY_ENV: "1"})
    assert child.returncode == 1
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].name.startswith("culprit-memory-"), child.stderr
    assert f"culprit: the allocator's snapshot at the OOM: {files[0]}" in child.stderr
    head = json.loads(files[0].read_text())[ms.FORMAT_KEY]
    assert head["torch"] == torch.__version__ and head["error"] == ts.OOM_MESSAGE
    assert "Allocator at the OOM" in child.stderr and "Fragmentation:" in child.stderr, child.stderr
    assert "model.py:88 in attention" in child.stderr


def test_watch_asks_for_the_snapshot_for_its_block_only(tmp_path, monkeypatch):
    import io
    monkeypatch.delenv(ms.HISTORY_ENV, raising=False)
    monkeypatch.setattr(torch.cuda.memory, "_snapshot", ts.snapshot_2_0)  # as a GPU's would return it
    out = io.StringIO()
    with pytest.raises(torch.cuda.OutOfMemoryError):
        with culprit.watch(snapshot=False, file=out, memory_history=True, memory_snapshot_dir=str(tmp_path)):
            raise torch.cuda.OutOfMemoryError(ts.OOM_MESSAGE)
    assert len(list(tmp_path.iterdir())) == 1
    text = out.getvalue()
    assert "PyTorch's allocation history is not recorded: CUDA is not available" in text
    assert "Allocator at the OOM" in text and "model.py:88 in attention" in text
    quiet = io.StringIO()
    with pytest.raises(torch.cuda.OutOfMemoryError):
        with culprit.watch(snapshot=False, file=quiet, memory_snapshot_dir=str(tmp_path)):
            raise torch.cuda.OutOfMemoryError(ts.OOM_MESSAGE)
    assert len(list(tmp_path.iterdir())) == 1 and "Allocator at the OOM" not in quiet.getvalue()
