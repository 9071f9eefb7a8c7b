// Traceback assembly: plain, chained, truncated, Rich boxes, prefixed and interleaved writers.
#include <catch2/catch.hpp>

#include "ingest/formats/traceback.hpp"
#include "unit/ingest/gpu_test_support.hpp"

using culprit::ingest::split_exception_line;
using culprit::test::field;
using culprit::test::parse_app;

TEST_CASE("exception lines are recognised by shape", "[gpu][traceback]") {
  std::string type, msg;
  CHECK(split_exception_line("torch.OutOfMemoryError: CUDA out of memory.", type, msg));
  CHECK(type == "torch.OutOfMemoryError");
  CHECK(msg == "CUDA out of memory.");
  CHECK(split_exception_line("KeyboardInterrupt", type, msg));
  CHECK(msg.empty());
  CHECK(split_exception_line("ray.exceptions.RayTaskError(OutOfMemoryError): ray::f()", type, msg));
  CHECK(type == "ray.exceptions.RayTaskError(OutOfMemoryError)");
  CHECK(split_exception_line("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", type, msg));
  CHECK(msg.empty());
  CHECK_FALSE(split_exception_line("ncclUnhandledCudaError: Call to CUDA function failed.", type, msg));
  CHECK_FALSE(split_exception_line("Killed", type, msg));
  CHECK_FALSE(split_exception_line("Scheduler hit an exception: x", type, msg));
  CHECK_FALSE(split_exception_line("  ValueError: indented", type, msg));
  CHECK_FALSE(split_exception_line("http://x", type, msg));
}

TEST_CASE("a plain traceback is one event with its innermost frame", "[gpu][traceback]") {
  const auto sink = parse_app(R"(step 10
Traceback (most recent call last):
  File "/app/train.py", line 88, in <module>
    main()
  File "/app/train.py", line 61, in main
    loss = model(batch).sum()
           ^^^^^^^^^^^^
  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1511, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
RuntimeError: expected scalar type Float but found Half
done
)");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  const auto& e = tbs[0];
  CHECK(e.line == 2);
  CHECK(e.line_end == 10);
  CHECK(e.message == "RuntimeError: expected scalar type Float but found Half");
  CHECK(field(e, "exc_type") == "RuntimeError");
  CHECK(field(e, "exc_message") == "expected scalar type Float but found Half");
  CHECK(field(e, "frame_file") == "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py");
  CHECK(field(e, "frame_line") == "1511");
  CHECK(field(e, "frame_func") == "_wrapped_call_impl");
  CHECK(field(e, "frames") == "3");
  CHECK(e.field("chained") == nullptr);
  CHECK(e.field("truncated") == nullptr);
  CHECK(e.severity == culprit::core::Severity::error);
}

TEST_CASE("a chained traceback is one event ending in the last exception", "[gpu][traceback]") {
  const auto sink = parse_app(R"(Traceback (most recent call last):
  File "/app/a.py", line 3, in f
    g()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.06 GiB is free.

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/app/a.py", line 9, in <module>
    f()
  File "/app/a.py", line 5, in f
    raise RuntimeError("engine failed") from e
RuntimeError: engine failed
)");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].line == 1);
  CHECK(tbs[0].line_end == 13);
  CHECK(field(tbs[0], "chained") == "1");
  CHECK(field(tbs[0], "exc_type") == "RuntimeError");
  CHECK(field(tbs[0], "frame_line") == "5");
  CHECK(field(tbs[0], "exc_line") == "13");
  // The inner OOM still went through the signals, on its own line.
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(ooms[0].line == 4);
  CHECK(field(ooms[0], "requested_bytes") == "2147483648");
}

TEST_CASE("a truncated traceback still yields an event", "[gpu][traceback]") {
  const auto sink = parse_app("Traceback (most recent call last):\n"
                              "  File \"/app/train.py\", line 88, in <module>\n"
                              "    main()\n"
                              "  File \"/app/train.py\", line 61, in main\n");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  CHECK(field(tbs[0], "truncated") == "1");
  CHECK(field(tbs[0], "frame_line") == "61");
  CHECK(tbs[0].line_end == 4);
  CHECK(tbs[0].field("exc_type") == nullptr);

  // Cut by another line of the same writer.
  const auto cut = parse_app("Traceback (most recent call last):\n"
                             "  File \"/app/train.py\", line 88, in <module>\n"
                             "Killed\n");
  REQUIRE(cut.of_kind("traceback").size() == 1);
  CHECK(field(cut.of_kind("traceback")[0], "truncated") == "1");
  CHECK(cut.of_kind("traceback")[0].line_end == 2);
}

TEST_CASE("a traceback pasted with its block indented", "[gpu][traceback]") {
  const auto sink = parse_app(R"(    Traceback (most recent call last):
      File "/app/train.py", line 61, in main
        loss = model(batch).sum()
    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.06 GiB is free.
    next line of the issue text
)");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].line_end == 4);
  CHECK(field(tbs[0], "exc_type") == "torch.OutOfMemoryError");
  CHECK(tbs[0].field("truncated") == nullptr);
  REQUIRE(sink.of_kind("cuda_oom").size() == 1);
  CHECK(sink.of_kind("cuda_oom")[0].line == 4);
}

TEST_CASE("unprefixed tracebacks of two ranks are not one chain", "[gpu][traceback]") {
  const auto sink = parse_app(R"(Traceback (most recent call last):
  File "/app/train.py", line 50, in <module>
Traceback (most recent call last):
  File "/app/train.py", line 50, in <module>
    step()
    step()
RuntimeError: NCCL communicator was aborted on rank 0.
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity of 79.14 GiB of which 3.75 MiB is free.
)");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 2);
  for (const auto& e : tbs) CHECK(e.field("chained") == nullptr);
  CHECK(field(tbs[0], "truncated") == "1");
  // Garbled as the text is, both exception lines still reach the signals.
  REQUIRE(sink.of_kind("cuda_oom").size() == 1);
  CHECK(sink.of_kind("cuda_oom")[0].line == 8);
}

TEST_CASE("SGLang: text before Traceback and an unprefixed body", "[gpu][traceback]") {
  const auto sink = parse_app(R"([2026-04-09 00:47:13 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2303, in run_scheduler_process
    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)
  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 1204, in init_memory_pool
    raise RuntimeError(
RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.

[2026-04-09 00:47:14] Received sigquit from a child process. It usually means the child failed.
)");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  const auto& e = tbs[0];
  CHECK(field(e, "preamble") == "Scheduler hit an exception:");
  CHECK(field(e, "tp_rank") == "1");
  CHECK(*e.rank == 1);
  CHECK(e.ts_kind == culprit::core::TsKind::wall);
  CHECK(e.line_end == 6);
  CHECK(field(e, "frame_func") == "init_memory_pool");
  CHECK(e.message == "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.");
}

TEST_CASE("vLLM prefixes every traceback line", "[gpu][traceback]") {
  const auto sink = parse_app(
      "(VllmWorker rank=2 pid=2307184) ERROR 02-17 14:48:01 [multiproc_executor.py:470] WorkerProc hit an exception.\n"
      "(VllmWorker rank=2 pid=2307184) ERROR 02-17 14:48:01 [multiproc_executor.py:470] Traceback (most recent call last):\n"
      "(VllmWorker rank=2 pid=2307184) ERROR 02-17 14:48:01 [multiproc_executor.py:470]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py\", line 465, in worker_busy_loop\n"
      "(VllmWorker rank=2 pid=2307184) ERROR 02-17 14:48:01 [multiproc_executor.py:470]     output = func(*args, **kwargs)\n"
      "(VllmWorker rank=2 pid=2307184) ERROR 02-17 14:48:01 [multiproc_executor.py:470]              ^^^^^^^^^^^^^^^^^^^^^\n"
      "(VllmWorker rank=2 pid=2307184) ERROR 02-17 14:48:01 [multiproc_executor.py:470]   File \"/usr/local/lib/python3.12/dist-packages/torch/utils/_contextlib.py\", line 116, in decorate_context\n"
      "(VllmWorker rank=2 pid=2307184) ERROR 02-17 14:48:01 [multiproc_executor.py:470]     return func(*args, **kwargs)\n"
      "(VllmWorker rank=2 pid=2307184) ERROR 02-17 14:48:01 [multiproc_executor.py:470] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 2 has a total capacity of 79.25 GiB of which 686.75 MiB is free. Process 2307184 has 78.57 GiB memory in use. Of the allocated memory 75.83 GiB is allocated by PyTorch, and 1.12 GiB is reserved by PyTorch but unallocated.\n"
      "(VllmWorker rank=2 pid=2307184) ERROR 02-17 14:48:01 [multiproc_executor.py:470] \n",
      "", 2026);
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].line == 2);
  CHECK(tbs[0].line_end == 8);
  CHECK(*tbs[0].pid == 2307184);
  CHECK(*tbs[0].rank == 2);
  CHECK(field(tbs[0], "exc_type") == "torch.OutOfMemoryError");
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(ooms[0].line == 8);
  CHECK(*ooms[0].pid == 2307184);
  CHECK(*ooms[0].rank == 2);
  CHECK(ooms[0].ts.has_value());  // year hint given
  CHECK(field(ooms[0], "gpu") == "2");
  // The line before Traceback is an ERROR line kept as a log event.
  const auto logs = sink.of_kind("log");
  REQUIRE(logs.size() == 1);
  CHECK(logs[0].message == "WorkerProc hit an exception.");
}

TEST_CASE("interleaved ranks give one traceback each", "[gpu][traceback]") {
  const auto sink = parse_app(R"([rank0]: Traceback (most recent call last):
[rank1]: Traceback (most recent call last):
[rank0]:   File "/app/train.py", line 50, in <module>
[rank1]:   File "/app/train.py", line 50, in <module>
[rank1]:     step()
[rank0]:     step()
[rank1]:   File "/app/train.py", line 31, in step
[rank0]:   File "/app/train.py", line 30, in step
[rank0]:     out = model(x)
[rank1]:     dist.all_reduce(t)
[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.14 GiB of which 3.75 MiB is free.
[rank1]: torch.distributed.DistBackendError: NCCL communicator was aborted on rank 1.
)");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 2);
  const auto& r0 = *tbs[0].rank == 0 ? tbs[0] : tbs[1];
  const auto& r1 = *tbs[0].rank == 0 ? tbs[1] : tbs[0];
  CHECK(r0.line == 1);
  CHECK(r0.line_end == 11);
  CHECK(field(r0, "frame_line") == "30");
  CHECK(field(r0, "exc_type") == "torch.OutOfMemoryError");
  CHECK(r1.line == 2);
  CHECK(r1.line_end == 12);
  CHECK(field(r1, "frame_line") == "31");
  CHECK(field(r1, "exc_type") == "torch.distributed.DistBackendError");
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(*ooms[0].rank == 0);
  CHECK(ooms[0].line == 11);
}

TEST_CASE("a bare line from another writer does not cut a prefixed traceback short", "[gpu][traceback]") {
  // Rank 0's unprefixed progress print lands inside rank 2's `[rank2]:` traceback.
  const auto sink = parse_app(R"([rank2]: Traceback (most recent call last):
[rank2]:   File "/home/ml/proj/train.py", line 187, in main
[rank2]:     loss = criterion(logits, labels)
epoch 0 | step   200/4200 | loss 2.1933
[rank2]:   File "/home/ml/.venv/lib/python3.11/site-packages/torch/nn/functional.py", line 3479, in cross_entropy
[rank2]:     return torch._C._nn.cross_entropy_loss(
[rank2]: ValueError: Expected input batch_size (4096) to match target batch_size (3968).
)");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  CHECK(field(tbs[0], "exc_type") == "ValueError");
  CHECK(tbs[0].line_end == 7);
  CHECK(field(tbs[0], "frame_file") == "/home/ml/.venv/lib/python3.11/site-packages/torch/nn/functional.py");
  // Where the user fixes it: the innermost frame outside installed packages.
  CHECK(field(tbs[0], "own_frame_file") == "/home/ml/proj/train.py");
  CHECK(field(tbs[0], "own_frame_line") == "187");
  CHECK(field(tbs[0], "own_frame_func") == "main");
}

TEST_CASE("own frame: absent when the innermost frame is the program's or every frame is a library's", "[gpu][traceback]") {
  const auto own = parse_app(R"(Traceback (most recent call last):
  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main
  File "/x/train.py", line 3, in <module>
KeyError: 'labels'
)");
  REQUIRE(own.of_kind("traceback").size() == 1);
  CHECK(field(own.of_kind("traceback")[0], "frame_file") == "/x/train.py");
  CHECK(field(own.of_kind("traceback")[0], "own_frame_file").empty());
  const auto lib = parse_app(R"(Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "/opt/conda/lib/python3.11/site-packages/vllm/entrypoints/cli/main.py", line 54, in main
ImportError: libcudart.so.12: cannot open shared object file: No such file or directory
)");
  REQUIRE(lib.of_kind("traceback").size() == 1);
  CHECK(field(lib.of_kind("traceback")[0], "own_frame_file").empty());
}

TEST_CASE("Rich boxed traceback", "[gpu][traceback]") {
  const auto sink = parse_app(
      "╭─────────────────────────────── Traceback (most recent call last) ────────────────────────────────╮\n"
      "│ /home/user/train.py:42 in <module>                                                               │\n"
      "│                                                                                                  │\n"
      "│   41 │                                                                                          │\n"
      "│ ❱ 42 │   trainer.train()                                                                        │\n"
      "│                                                                                                  │\n"
      "│ /opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py:114 in forward                │\n"
      "│                                                                                                  │\n"
      "│   113 │   def forward(self, input: Tensor) -> Tensor:                                           │\n"
      "│ ❱ 114 │   │   return F.linear(input, self.weight, self.bias)                                    │\n"
      "╰──────────────────────────────────────────────────────────────────────────────────────────────────╯\n"
      "OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB (GPU 0; 23.69 GiB total capacity; 22.95 GiB already allocated; 17.69 MiB free; 23.12 GiB reserved in total by PyTorch)\n");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  CHECK(field(tbs[0], "rich") == "1");
  CHECK(field(tbs[0], "frame_file") == "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py");
  CHECK(field(tbs[0], "frame_line") == "114");
  CHECK(field(tbs[0], "frame_func") == "forward");
  CHECK(field(tbs[0], "exc_type") == "OutOfMemoryError");
  CHECK(tbs[0].line_end == 12);
  REQUIRE(sink.of_kind("cuda_oom").size() == 1);
  CHECK(sink.of_kind("cuda_oom")[0].line == 12);
}

TEST_CASE("IPython / Jupyter traceback", "[gpu][traceback]") {
  const auto sink = parse_app(R"(---------------------------------------------------------------------------
OutOfMemoryError                          Traceback (most recent call last)
Cell In[3], line 5
      2 import torch
      4 x = torch.empty(10**10, device="cuda")
----> 5 y = x * 2

File /opt/conda/lib/python3.10/site-packages/torch/_tensor.py:40, in _handle_torch_function_and_wrap_type_error_to_not_implemented.<locals>.wrapped(*args, **kwargs)
     38     if has_torch_function(args):
     39         return handle_torch_function(wrapped, args, *args, **kwargs)
---> 40     return f(*args, **kwargs)

OutOfMemoryError: CUDA out of memory. Tried to allocate 74.51 GiB. GPU 0 has a total capacity of 79.15 GiB of which 4.51 GiB is free. Of the allocated memory 74.51 GiB is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.
)");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].line == 2);
  CHECK(tbs[0].line_end == 13);
  CHECK(field(tbs[0], "ipython") == "1");
  CHECK(tbs[0].field("preamble") == nullptr);
  CHECK(field(tbs[0], "frame_file") == "/opt/conda/lib/python3.10/site-packages/torch/_tensor.py");
  CHECK(field(tbs[0], "frame_line") == "40");
  CHECK(field(tbs[0], "frame_func") == "_handle_torch_function_and_wrap_type_error_to_not_implemented.<locals>.wrapped");
  CHECK(field(tbs[0], "frames") == "2");
  REQUIRE(sink.of_kind("cuda_oom").size() == 1);
  CHECK(field(sink.of_kind("cuda_oom")[0], "reserved_unallocated_bytes") == "0");
}

TEST_CASE("IPython 8 shortens the arrow for four-digit line numbers", "[gpu][traceback]") {
  const auto sink = parse_app(R"(---------------------------------------------------------------------------
OutOfMemoryError                          Traceback (most recent call last)
Cell In[7], line 12
     10 model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype=torch.float16)
     11 model.to("cuda")
---> 12 outputs = model.generate(**inputs, max_new_tokens=512)

File /opt/conda/lib/python3.10/site-packages/torch/nn/functional.py:1858, in softmax(input, dim, _stacklevel, dtype)
   1856     dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
   1857 if dtype is None:
-> 1858     ret = input.softmax(dim)
   1859 else:
   1860     ret = input.softmax(dim, dtype=dtype)

OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 14.75 GiB total capacity; 13.41 GiB already allocated; 16.81 MiB free; 13.73 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
)");
  const auto tbs = sink.of_kind("traceback");
  REQUIRE(tbs.size() == 1);
  CHECK(field(tbs[0], "truncated") != "1");
  CHECK(tbs[0].line_end == 15);
  CHECK(field(tbs[0], "frame_func") == "softmax");
  CHECK(field(tbs[0], "frame_line") == "1858");
  CHECK(field(tbs[0], "exc_type") == "OutOfMemoryError");
}

TEST_CASE("tracebacks never hang or crash on hostile input", "[gpu][traceback]") {
  std::string many = "Traceback (most recent call last):\n";
  for (int i = 0; i < 20000; ++i) many += "  File \"/r.py\", line 1, in f\n    f()\n";
  many += "RecursionError: maximum recursion depth exceeded\n";
  const auto sink = parse_app(many);
  REQUIRE(sink.of_kind("traceback").size() == 1);
  CHECK(field(sink.of_kind("traceback")[0], "frames") == "20000");

  std::string keys;
  for (int i = 0; i < 2000; ++i) keys += "[rank" + std::to_string(i) + "]: Traceback (most recent call last):\n";
  const auto many_keys = parse_app(keys);
  CHECK(many_keys.of_kind("traceback").size() == 2000);

  CHECK_NOTHROW(parse_app("Traceback (most recent call last):\r\n  File \"\xff\xfe\r\n\x00\x01"));
  CHECK_NOTHROW(parse_app("╭ Traceback (most recent call last)\n│\n"));
}
