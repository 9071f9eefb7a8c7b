// Sniffing and segmentation of the host-side sources: syslog files whatever their tags, JSON
// that culprit reads (journald, docker inspect, pod JSON) vs JSON-lines application logs,
// kubectl describe, multi-line kernel records, and a paste that mixes them between prompts; and
// the binary probe that turns a text away before any of that.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "culprit/ingest/sniff.hpp"

using culprit::ingest::segment_text;
using culprit::ingest::sniff_format;

TEST_CASE("sniff: syslog and journalctl short files are kernel logs whatever their tags", "[sniff_host]") {
  CHECK(sniff_format("Apr  9 00:47:19 ws-3090 earlyoom[1187]: low memory! at or below SIGTERM limits: mem  3.00%, swap  0.00%\n"
                     "Apr  9 00:47:20 ws-3090 systemd[1]: Started Session 14 of User mlops.\n") == "kernel_log");
  CHECK(sniff_format("Apr 09 00:46:51 ws-4090 systemd-oomd[734]: Killed /user.slice/x.scope due to memory pressure for "
                     "/user.slice being 63.45% > 50.00% for > 20s with reclaim activity\n") == "kernel_log");
  CHECK(sniff_format("2026-04-09T00:47:22.123456+00:00 gpu-7 kubelet[2211]: I0409 00:47:22.1 2211 kubelet.go:2458] x\n") ==
        "kernel_log");
  // Application lines are not syslog: Python logging, vLLM, containerd's CRI log format.
  CHECK(sniff_format("2026-04-09 00:41:12,004 - INFO - finetune - loading\n") == "app_log");
  CHECK(sniff_format("INFO 04-09 00:47:13 [core.py:58] Initializing a V1 LLM engine\n") == "app_log");
  CHECK(sniff_format("2026-04-09T00:47:22.123456789Z stdout F step 10 loss 1.2\n") == "app_log");
}

TEST_CASE("sniff: JSON that culprit reads, and JSON that is just a log", "[sniff_host]") {
  CHECK(sniff_format("{\"__CURSOR\":\"s=1\",\"__REALTIME_TIMESTAMP\":\"1775695642123456\",\"MESSAGE\":\"x\"}\n") ==
        "journal_json");
  CHECK(sniff_format("[\n    {\n        \"Id\": \"3f2a\",\n        \"State\": {\n            \"OOMKilled\": true\n        }\n    }\n]\n") ==
        "docker_inspect");
  CHECK(sniff_format("{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n    \"status\": {}\n}\n") == "docker_inspect");
  CHECK(sniff_format("{\"level\":\"info\",\"ts\":1775695642.1,\"msg\":\"step 10\"}\n"
                     "{\"level\":\"info\",\"ts\":1775695643.1,\"msg\":\"step 11\"}\n") == "app_log");
}

TEST_CASE("sniff: a long JSON-lines application log is scanned once", "[sniff_host]") {
  std::string text;
  for (int i = 0; i < 40000; ++i) text += "{\"level\":\"info\",\"msg\":\"step " + std::to_string(i) + "\"}\n";
  const auto t0 = std::chrono::steady_clock::now();
  auto segs = segment_text(text);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].format == "app_log");
  CHECK(ms < 5000);  // linear: a quadratic rescan would take minutes
}

TEST_CASE("sniff: kubectl describe pod and node", "[sniff_host]") {
  CHECK(sniff_format("Name:             train-0\nNamespace:        ml\nPriority:         0\nContainers:\n  train:\n"
                     "    Last State:     Terminated\n      Reason:       OOMKilled\n") == "kubectl_describe");
  CHECK(sniff_format("Name:               gpu-node-17\nRoles:              <none>\nEvents:\n"
                     "  Warning  SystemOOM   4m51s  kubelet  System OOM encountered, victim process: python, pid: 1\n") ==
        "kubectl_describe");
  CHECK(sniff_format("Name: Jane\nNot a pod\n") == "app_log");
}

TEST_CASE("sniff: a kernel record's indented continuation lines stay in its segment", "[sniff_host]") {
  std::string text = "[Thu Apr  9 00:47:21 2026] Memory cgroup stats for /system.slice/slurmstepd.scope/job_4242/step_0:\n";
  for (int i = 0; i < 30; ++i) text += "                           anon_" + std::to_string(i) + " 136742367232\n";
  text += "[Thu Apr  9 00:47:21 2026] Tasks state (memory values in pages):\n";
  auto segs = segment_text(text);
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].format == "kernel_log");
}

TEST_CASE("sniff: a paste of docker inspect, kubectl describe and journalctl between prompts", "[sniff_host]") {
  const std::string paste =
      "aurora@gpu-03:~$ docker inspect llm-sft-train\n"
      "[\n    {\n        \"Id\": \"9f3c\",\n        \"State\": {\n            \"OOMKilled\": true,\n"
      "            \"ExitCode\": 137\n        }\n    }\n]\n"
      "aurora@gpu-03:~$ kubectl describe pod train-0\n"
      "Name:             train-0\nNamespace:        ml\nNode:             gpu-07/10.0.0.7\n"
      "aurora@gpu-03:~$ journalctl -k -o json -n 1\n"
      "{\"__REALTIME_TIMESTAMP\":\"1775695642123456\",\"_TRANSPORT\":\"kernel\",\"MESSAGE\":\"x\"}\n"
      "aurora@gpu-03:~$ \n";
  auto segs = segment_text(paste);
  REQUIRE(segs.size() == 3);
  CHECK(segs[0].format == "docker_inspect");
  CHECK(segs[0].first_line == 2);
  CHECK(segs[1].format == "kubectl_describe");
  CHECK(segs[1].first_line == 12);
  CHECK(segs[2].format == "journal_json");
  CHECK(segs[2].first_line == 16);
  for (const auto& s : segs) CHECK(s.host == "gpu-03");
}

TEST_CASE("sniff: a prompt is found wherever its `@` lies in the line's first 65 bytes, among lines full of `@`",
          "[sniff_host]") {
  // The sniffer asks only lines with an `@` that early whether they are prompts: the first line,
  // the last one (no newline), an `@` at byte 64 (a prompt) and at byte 65 (output), and output
  // lines whose `@`s lie late or are many.
  const std::string user57(57, 'u'), user58(58, 'u');
  const std::string text = "alice@gpu-0:~$ cat train.log\n"
                           "INFO step 1 " + std::string(70, 'x') + " mail me@example.com\n"
                           "@@@ @@@ a@b c@d\n"
                           "(venv) " + user57 + "@gpu-1:~$ cat a.log\n"
                           "INFO on gpu-1\n"
                           "(venv) " + user58 + "@gpu-2:~$ cat b.log\n"
                           "INFO still on gpu-1\r\n"
                           "carol@gpu-3:~$ tail c.log\n"
                           "INFO on gpu-3";
  const auto segs = segment_text(text);
  REQUIRE(segs.size() == 3);
  CHECK(segs[0].host == "gpu-0");
  CHECK(segs[0].first_line == 2);
  CHECK(segs[0].line_count == 2);
  CHECK(segs[1].host == "gpu-1");
  CHECK(segs[1].command == "cat a.log");
  CHECK(segs[1].line_count == 3);  // the 65-byte line is its output
  CHECK(segs[1].text.find("@gpu-2") != std::string_view::npos);
  CHECK(segs[2].host == "gpu-3");
  CHECK(segs[2].text == "INFO on gpu-3");
}

TEST_CASE("sniff_format calls a text binary by its first 8 KiB: a NUL, or control bytes past one in ten", "[sniff]") {
  const std::string line = "worker 3 step 120 loss 0.25\n";  // 28 bytes
  std::string text;
  while (text.size() < 9000) text += line;
  CHECK(sniff_format(text) == "app_log");
  std::string nul = text;
  nul[5000] = '\0';
  CHECK(sniff_format(nul) == "binary");
  nul = text;
  nul[8500] = '\0';  // past the probe
  CHECK(sniff_format(nul) == "app_log");
  // 100 bytes: ten control bytes (one in ten) are still text, eleven are not. Tab, the
  // terminators and ESC (colour codes) never count.
  std::string hundred(100, 'x');
  for (std::size_t i = 0; i < 10; ++i) hundred[5 + 9 * i] = '\x01';
  CHECK(sniff_format(hundred) == "app_log");
  hundred[99] = '\x02';
  CHECK(sniff_format(hundred) == "binary");
  std::string escapes;
  while (escapes.size() < 400) escapes += "\x1b[1;36m(VllmWorker rank=0 pid=7)\x1b[0;0m INFO\t\r\n";
  CHECK(sniff_format(escapes) == "app_log");
}
