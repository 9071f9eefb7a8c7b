"""Recorded allocator snapshots in the shape torch.cuda.memory._snapshot() returns, per version,
with values made up here (a training step that ran out of memory on a fragmented cache); no
real incident's data. The key order is PyTorch's (a json.dump of the real thing writes them so):

- 1.13 (torch/csrc/cuda/Module.cpp THCPModule_memorySnapshot; torch/cuda/_memory_viz.py 1.13
  reads seg["blocks"], b["state"], b["size"], b["history"][i]["real_size"] / ["frames"]): a
  list of segments {device, address, total_size, allocated_size, active_size, stream,
  segment_type, blocks}; a block {size, state, history: [{addr, real_size, frames}]}.
- 2.0 (torch/cuda/memory.py 2.0 `_snapshot`): {"segments": [...], "device_traces": [[...]]},
  blocks as 1.13's.
- 2.1+ (torch/cuda/memory.py 2.1 `_snapshot` docstring: Segment, Block, Frame, TraceEntry;
  torch/csrc/cuda/memory_snapshot.cpp): a segment {device, address, total_size,
  allocated_size, active_size, requested_size, stream, segment_type, segment_pool_id,
  is_expandable, frames, blocks}; a block {address, size, requested_size, state, frames}; a
  trace entry {action, addr, frames, size, stream, time_us} ('oom': size is the request,
  device_free what CUDA still had).
Frames are {filename, line, name}, innermost first.
"""

GiB = 1 << 30
MiB = 1 << 20

TORCH = "/usr/lib/python3/dist-packages/torch"
TRAIN = "/home/ml/llm/train.py"
MODEL = "/home/ml/llm/model.py"


def frame(filename, line, name):
    return {"filename": filename, "line": line, "name": name}


# Stacks, innermost first: the allocating torch frames, then the script's.
WEIGHTS = [frame(f"{TORCH}/nn/modules/module.py", 1143, "convert"),
           frame(f"{TORCH}/nn/modules/module.py", 797, "_apply"),
           frame(f"{TORCH}/nn/modules/module.py", 1145, "to"),
           frame(TRAIN, 18, "build_model"),
           frame(TRAIN, 90, "<module>")]
ATTENTION = [frame(f"{TORCH}/nn/functional.py", 5373, "scaled_dot_product_attention"),
             frame(MODEL, 88, "attention"),
             frame(f"{TORCH}/nn/modules/module.py", 1527, "_call_impl"),
             frame(MODEL, 141, "forward"),
             frame(TRAIN, 42, "train_step"),
             frame(TRAIN, 95, "<module>")]
OPTIMIZER = [frame(f"{TORCH}/optim/adamw.py", 161, "step"),
             frame(f"{TORCH}/optim/optimizer.py", 280, "wrapper"),
             frame(TRAIN, 57, "train_step"),
             frame(TRAIN, 95, "<module>")]
LOSS = [frame(TRAIN, 60, "train_step"), frame(TRAIN, 95, "<module>")]

OOM_MESSAGE = (
    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which "
    "1.21 GiB is free. Including non-PyTorch memory, this process has 77.93 GiB memory in use. Of the "
    "allocated memory 49.50 GiB is allocated by PyTorch, and 3.25 GiB is reserved by PyTorch but "
    "unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
    "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")

# (segment type, [(size, state, stack or None)]): five segments, 3.25 GiB (+ 1 MiB − 512 B) cached
# but unallocated, the largest free block 1.50 GiB: a 2.00 GiB request cannot fit.
LAYOUT = [
    ("large", [(20 * GiB, "active_allocated", WEIGHTS)]),
    ("large", [(12 * GiB, "active_allocated", ATTENTION), (10 * GiB + 512 * MiB, "active_allocated", ATTENTION),
               (1 * GiB + 512 * MiB, "inactive", None)]),
    ("large", [(4 * GiB, "active_allocated", OPTIMIZER), (3 * GiB, "active_allocated", OPTIMIZER),
               (1 * GiB, "inactive", None)]),
    ("small", [(512, "active_allocated", LOSS), (1 * MiB, "active_allocated", []), (1 * MiB - 512, "inactive", None)]),
    ("large", [(768 * MiB, "inactive", None)]),
]
BASE = 0x7F2A00000000  # the first segment's device address
SEGMENT_GAP = 0x10000000000


def _sizes(blocks):
    allocated = sum(size for size, state, _ in blocks if state == "active_allocated")
    return sum(size for size, _, _ in blocks), allocated


def snapshot_2_1(layout=LAYOUT):
    segments = []
    for k, (kind, blocks) in enumerate(layout):
        address = BASE + k * SEGMENT_GAP
        total, allocated = _sizes(blocks)
        out_blocks, at = [], address
        for size, state, stack in blocks:
            live = state == "active_allocated"
            out_blocks.append({"address": at, "size": size, "requested_size": size if live else 0,
                               "state": state, "frames": list(stack or [])})
            at += size
        segments.append({"device": 0, "address": address, "total_size": total, "allocated_size": allocated,
                         "active_size": allocated, "requested_size": allocated, "stream": 0,
                         "segment_type": kind, "segment_pool_id": (0, 0), "is_expandable": False,
                         "frames": list(blocks[0][2] or []), "blocks": out_blocks})
    traces = [[{"action": "oom", "addr": 0, "frames": list(ATTENTION), "size": 2 * GiB, "stream": 0,
                "time_us": 1775695642987654, "device_free": 1299227607}]]
    return {"segments": segments, "device_traces": traces}


def _history_blocks(blocks, address):
    out, at = [], address
    for size, state, stack in blocks:
        block = {"size": size, "state": state}
        if stack is not None:
            block["history"] = [{"addr": at, "real_size": size, "frames": list(stack)}]
        out.append(block)
        at += size
    return out


def snapshot_1_13(layout=LAYOUT):
    segments = []
    for k, (kind, blocks) in enumerate(layout):
        address = BASE + k * SEGMENT_GAP
        total, allocated = _sizes(blocks)
        segments.append({"device": 0, "address": address, "total_size": total, "allocated_size": allocated,
                         "active_size": allocated, "stream": 0, "segment_type": kind,
                         "blocks": _history_blocks(blocks, address)})
    return segments


def snapshot_2_0(layout=LAYOUT):
    return {"segments": snapshot_1_13(layout), "device_traces": [[]]}


def reserved(layout=LAYOUT):
    return sum(_sizes(blocks)[0] for _, blocks in layout)


def allocated(layout=LAYOUT):
    return sum(_sizes(blocks)[1] for _, blocks in layout)


# _record_memory_history's signature in each version (torch/cuda/memory.py), bodies dropped.
def record_1_13(enabled: bool, device=None):
    pass


def record_2_0(enabled: bool, record_context=True, trace_alloc_max_entries=1, trace_alloc_record_context=False,
               device=None, _enable_expandable_segments=False):
    pass


def record_2_1(enabled="all", *args, **kwargs):  # dispatches a bool to the legacy path
    pass


def record_2_1_impl(enabled="all", context="all", stacks="all", max_entries=2 ** 63 - 1, device=None):
    pass


OOM_MESSAGE_1_13 = (
    "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity; 49.50 GiB already "
    "allocated; 1.21 GiB free; 52.75 GiB reserved in total by PyTorch) If reserved memory is >> allocated "
    "memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
    "and PYTORCH_CUDA_ALLOC_CONF")

# A small cache with room for the request: one segment, its free block larger than 512 MiB.
ROOMY = [("large", [(1 * GiB, "active_allocated", LOSS), (1 * GiB, "inactive", None)])]


def fixture_texts(memory_snapshot):
    """fixtures/formats/torch_memory_snapshot/*.txt: what the hook (memory_snapshot.to_json) writes
    from the recorded snapshots, and what a plain json.dump of _snapshot() writes."""
    import json
    meta = {"device": 0, "pid": 51877, "when": 1775695642, "host": "spark-b"}
    small_2_1 = snapshot_2_1(ROOMY)
    small_2_1["device_traces"][0][0]["size"] = 512 * MiB
    return {
        "hook-2.1-fragmented.txt": memory_snapshot.to_json(snapshot_2_1(), error=OOM_MESSAGE, torch_version="2.1.2", **meta),
        "hook-1.13-history.txt": memory_snapshot.to_json(snapshot_1_13(), error=OOM_MESSAGE_1_13, torch_version="1.13.1",
                                                         **meta),
        "json-dump-2.1-roomy.txt": json.dumps(small_2_1) + "\n",
        "json-dump-1.13-list.txt": json.dumps(snapshot_1_13(ROOMY)) + "\n",
    }
