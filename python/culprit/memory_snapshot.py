"""The caching allocator's own view at a CUDA OOM: PyTorch's memory snapshot, bounded, as JSON.

Off unless asked for (`culprit.install(memory_history=True)`, `watch(memory_history=True)` or
CULPRIT_MEMORY_HISTORY=1): at install the hook starts PyTorch's allocation-history recording
(torch.cuda.memory._record_memory_history), so each live block keeps the Python stack that
allocated it; when a CUDA OOM is raised it takes torch.cuda.memory._snapshot() and writes it as
JSON in PyTorch's own layout (segments → blocks → frames), cut to the bounds below, which
culprit reads as the format `torch_memory_snapshot` (src/ingest/formats/torch_memory_snapshot.cpp).

The layout, as PyTorch produces it (torch/cuda/memory.py `_snapshot`, torch/cuda/_memory_viz.py):
- 1.13: a list of segments {device, address, total_size, allocated_size, active_size, stream,
  segment_type, blocks: [{size, state, history: [{addr, real_size, frames: [{filename, line,
  name}]}]}]}; `_record_memory_history(enabled: bool, device=None)`.
- 2.0: {"segments": [...], "device_traces": [...]}, blocks as in 1.13;
  `_record_memory_history(enabled, record_context=True, trace_alloc_max_entries=1,
  trace_alloc_record_context=False, device=None, …)`.
- 2.1+: the same dict, a block {address, size, requested_size, state, frames: [...]} and a segment
  with its own `frames`; `_record_memory_history(enabled="all", context="all", stacks="all",
  max_entries=…, device=None)` (a bool `enabled` still takes the 2.0 path).
Block states: active_allocated (a live tensor), active_pending_free (freed, its stream still
using it), inactive (free, cached). Frames are innermost first.

Nothing here imports torch: the job's own (sys.modules) is used, so a script that never imported
torch pays nothing.
"""

import json
import os
import socket
import sys
import time

# The bounds of the file the hook writes (README, "Bounds"): the largest segments and blocks are
# kept, and the totals of what was dropped are written, so the reserved and allocated figures
# stay exact.
MAX_SEGMENTS = 4096          # segments written (the largest by total_size)
MAX_LIVE_BLOCKS = 256        # active blocks written (the largest), across all segments
MAX_FREE_BLOCKS = 64         # inactive blocks written (the largest: the largest free block is exact)
MAX_FRAMES = 16              # frames per block (innermost first)
MAX_TEXT = 512               # characters of a file name, function name or torch version
MAX_ERROR = 4096             # characters of the exception's message
MAX_CHAIN = 16               # exceptions followed through __cause__ / __context__

FORMAT_KEY = "culprit_memory_snapshot"  # the header key culprit tells the format by
FORMAT_VERSION = 1
HISTORY_ENV = "CULPRIT_MEMORY_HISTORY"  # 1: record at install; 0 / unset: do not
DIR_ENV = "CULPRIT_MEMORY_SNAPSHOT_DIR"  # where the snapshot is written (default: the current folder)

_OOM_TEXTS = ("CUDA out of memory", "HIP out of memory")  # the caching allocator's message, CUDA / ROCm


def asked_for(memory_history=None):
    """Whether history recording was asked for: the argument when given, else $CULPRIT_MEMORY_HISTORY."""
    if memory_history is not None:
        return bool(memory_history)
    return os.environ.get(HISTORY_ENV, "0").strip().lower() in ("1", "true", "yes", "on")


def _torch():
    """The job's torch, when it imported it (never imported here)."""
    return sys.modules.get("torch")


def history_arguments(record):
    """(args, kwargs) that make `record` (a _record_memory_history of any version) keep the stack
    of each live block and no more, told by its signature, not by a version number:
    2.1+ takes enabled="state" (a bool there is the legacy path), 2.0 takes trace_alloc_*, 1.13
    only `enabled`. Raises TypeError / ValueError when the signature cannot be read."""
    import inspect

    params = inspect.signature(record).parameters
    enabled = params.get("enabled")
    if (enabled is not None and isinstance(enabled.default, str)) or any(
            name in params for name in ("max_entries", "context", "stacks")):
        # 2.1+: live blocks' stacks only (no alloc/free trace), Python frames only: the cheapest.
        return ("state",), {"context": "state", "stacks": "python"}
    if "trace_alloc_max_entries" in params:
        return (True,), {"record_context": True, "trace_alloc_max_entries": 1,
                         "trace_alloc_record_context": False}
    return (True,), {}


def start_history(torch=None):
    """Starts PyTorch's allocation-history recording. Returns None when it runs, else why not
    (no torch imported, no CUDA, a signature this code does not know): the hook goes on either way."""
    torch = torch or _torch()
    if torch is None:
        return "torch is not imported"
    try:
        memory = torch.cuda.memory
        record = memory._record_memory_history
        args, kwargs = history_arguments(record)
        if not torch.cuda.is_available():
            return "CUDA is not available"
        record(*args, **kwargs)
    except Exception as err:  # never stop the job for a diagnostic aid
        return f"{type(err).__name__}: {err}"
    return None


def _chain(exc):
    """exc and the exceptions it was raised from or during, at most MAX_CHAIN."""
    seen = []
    while exc is not None and len(seen) < MAX_CHAIN and all(exc is not s for s in seen):
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def oom_of(exc, torch=None):
    """The CUDA OOM in exc's chain (torch.cuda.OutOfMemoryError, or any exception whose message
    holds the caching allocator's "CUDA out of memory" — PyTorch before 1.13 raised a
    RuntimeError), else None."""
    torch = torch or _torch()
    oom_type = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None) if torch else None
    for e in _chain(exc):
        if oom_type is not None and isinstance(e, oom_type):
            return e
        try:
            text = str(e)
        except Exception:
            continue
        if any(t in text for t in _OOM_TEXTS):
            return e
    return None


def _cut(value, limit=MAX_TEXT, keep_end=False):
    """value as text, at most limit characters: its start, or its end (a path's file name)."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return text
    return text[-limit:] if keep_end else text[:limit]


def _int(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _frames(frames):
    out = []
    for f in (frames or [])[:MAX_FRAMES]:
        if isinstance(f, dict):
            out.append({"filename": _cut(f.get("filename", ""), keep_end=True), "line": _int(f.get("line")),
                        "name": _cut(f.get("name", ""))})
    return out


def _block(block):
    """One block, its frames cut; 1.13 / 2.0 `history` keeps its last entry (the live allocation)."""
    out = {"size": _int(block.get("size")), "state": _cut(block.get("state", ""), 64)}
    for key in ("address", "requested_size"):
        if key in block:
            out[key] = _int(block[key])
    if "frames" in block:
        out["frames"] = _frames(block["frames"])
    history = block.get("history")
    if isinstance(history, list) and history:
        last = history[-1] if isinstance(history[-1], dict) else {}
        out["history"] = [{"addr": _int(last.get("addr")), "real_size": _int(last.get("real_size")),
                           "frames": _frames(last.get("frames"))}]
    return out


def _oom_traces(snapshot):
    """device_traces (2.0+) cut to each device's last 'oom' entry (its size is the request)."""
    traces = snapshot.get("device_traces") if isinstance(snapshot, dict) else None
    out = []
    for device in traces if isinstance(traces, list) else []:
        last = None
        for entry in device if isinstance(device, list) else []:
            if isinstance(entry, dict) and entry.get("action") == "oom":
                last = entry
        kept = []
        if last is not None:
            kept.append({"action": "oom", "addr": _int(last.get("addr")), "frames": _frames(last.get("frames")),
                         "size": _int(last.get("size")), "stream": _int(last.get("stream"))})
            for key in ("time_us", "device_free"):
                if key in last:
                    kept[0][key] = _int(last[key])
        out.append(kept)
    return out


def compact(snapshot):
    """PyTorch's snapshot (a 1.13 list or a 2.x dict) cut to the bounds above, in its own layout:
    (header: what was dropped, segments). device_traces: _oom_traces."""
    segments = snapshot.get("segments", []) if isinstance(snapshot, dict) else snapshot
    segments = [s for s in (segments or []) if isinstance(s, dict)]
    blocks = []  # (size, segment index, block index, live)
    for si, seg in enumerate(segments):
        for bi, b in enumerate(seg.get("blocks") or []):
            if isinstance(b, dict):
                blocks.append((_int(b.get("size")), si, bi, b.get("state") != "inactive"))
    live = sorted((b for b in blocks if b[3]), key=lambda b: -b[0])[:MAX_LIVE_BLOCKS]
    free = sorted((b for b in blocks if not b[3]), key=lambda b: -b[0])[:MAX_FREE_BLOCKS]
    kept_blocks = {(si, bi) for _, si, bi, _ in live + free}

    order = sorted(range(len(segments)), key=lambda i: -_int(segments[i].get("total_size")))
    kept = set(order[:MAX_SEGMENTS]) | {si for si, _ in kept_blocks}
    out_segments, dropped = [], {"segments": 0, "total_size": 0, "allocated_size": 0, "active_size": 0}
    for si, seg in enumerate(segments):
        if si not in kept:
            dropped["segments"] += 1
            for key in ("total_size", "allocated_size", "active_size"):
                dropped[key] += _int(seg.get(key))
            continue
        s = {key: _int(seg[key]) for key in ("device", "address", "total_size", "allocated_size",
                                             "active_size", "requested_size", "stream") if key in seg}
        if "segment_type" in seg:
            s["segment_type"] = _cut(seg["segment_type"], 64)
        s["blocks"] = [_block(b) for bi, b in enumerate(seg.get("blocks") or []) if (si, bi) in kept_blocks]
        out_segments.append(s)
    header = {"segments_dropped": dropped["segments"], "blocks_total": len(blocks),
              "blocks_dropped": len(blocks) - len(kept_blocks)}
    for key in ("total_size", "allocated_size", "active_size"):
        header[f"dropped_{key}"] = dropped[key]
    return header, out_segments


def to_json(snapshot, error="", device=None, torch_version="", pid=None, when=None, host=None):
    """The file's text: one header line, one line per segment's figures and per block (so a block
    never makes a long line and evidence can cite it), ending in a newline."""
    header, segments = compact(snapshot)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if when is None else when))
    head = {"version": FORMAT_VERSION, "time": stamp, "pid": os.getpid() if pid is None else pid,
            "host": host or socket.gethostname().split(".")[0], "torch": _cut(torch_version, 64),
            "error": _cut(error, MAX_ERROR)}
    if device is not None:
        head["device"] = device
    head.update(header)
    dump = lambda v: json.dumps(v, ensure_ascii=True, separators=(", ", ": "))  # noqa: E731
    lines = ["{" + dump(FORMAT_KEY) + ": " + dump(head) + ","]
    lines.append(' "segments": [')
    for k, seg in enumerate(segments):
        blocks = seg.pop("blocks")
        figures = dump(seg)[:-1]
        if not blocks:
            lines.append("  " + figures + ', "blocks": []}' + ("," if k + 1 < len(segments) else ""))
            continue
        lines.append("  " + figures + ', "blocks": [')
        for j, b in enumerate(blocks):
            lines.append("   " + dump(b) + ("," if j + 1 < len(blocks) else ""))
        lines.append("  ]}" + ("," if k + 1 < len(segments) else ""))
    lines.append(" ],")
    lines.append(' "device_traces": ' + dump(_oom_traces(snapshot)) + "}")
    return "\n".join(lines) + "\n"


def _new_file(folder, stem):
    """A new file in folder (never an existing one replaced): stem.json, else stem-N.json."""
    for n in range(100):
        path = os.path.join(folder, f"{stem}.json" if n == 0 else f"{stem}-{n}.json")
        try:
            return path, os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free name for {stem}.json in {folder}")


def write(snapshot, folder=None, **meta):
    """Writes the snapshot's JSON into a new file in folder ($CULPRIT_MEMORY_SNAPSHOT_DIR, else
    the current folder); returns its path."""
    folder = folder or os.environ.get(DIR_ENV) or os.getcwd()
    text = to_json(snapshot, **meta)
    stem = f"culprit-memory-{socket.gethostname().split('.')[0]}-{os.getpid()}"
    path, fd = _new_file(folder, stem)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(text)
    return path


def dump_if_oom(exc, folder=None, torch=None, take_snapshot=None):
    """When exc's chain holds a CUDA OOM: takes the allocator's snapshot (take_snapshot, default
    torch.cuda.memory._snapshot) and writes it (write()). Returns (path, None), (None, why not),
    or (None, None) when exc is no CUDA OOM."""
    torch = torch or _torch()
    oom = oom_of(exc, torch)
    if oom is None:
        return None, None
    try:
        if take_snapshot is None:
            if torch is None:
                return None, "torch is not imported"
            take_snapshot = torch.cuda.memory._snapshot
        snapshot = take_snapshot()
        device = None
        if torch is not None:
            try:
                device = torch.cuda.current_device()
            except Exception:
                device = None
        path = write(snapshot, folder, error=str(oom), device=device,
                     torch_version=getattr(torch, "__version__", "") if torch else "")
    except Exception as err:  # the hook must never hide the job's own error
        return None, f"{type(err).__name__}: {err}"
    return path, None
