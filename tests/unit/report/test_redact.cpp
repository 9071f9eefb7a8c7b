// Redaction: identifying values (hosts, IPs, users and their home folders, container ids, pod
// uids) never survive into any format, get the same placeholder everywhere, and pids, sizes
// and times stay as they were.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/report/redact.hpp"
#include "culprit/report/renderer.hpp"
#include "culprit/report/timeline.hpp"
#include "unit/report/sample_verdicts.hpp"
#include "unit/test_text.hpp"

namespace redact_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;

namespace {

using culprit::test::contains;

/// The CUDA OOM sample with what real pastes carry: a prompt, ssh, an NCCL socket line, a
/// traceback through a home folder, docker ids, a Kubernetes pod uid, a macOS download path.
d::Verdict realistic() {
  auto v = test::cuda_oom_foreign();
  d::Evidence prompt;
  prompt.source = "<stdin>:1";
  prompt.line = 1;
  prompt.host = "spark-a";
  prompt.text = "jdoe@spark-a:~$ ssh jdoe@spark-b 'docker logs sglang-worker 2>&1 | tail -n 40'";
  d::Evidence tb;
  tb.source = "spark-b/sglang-worker.log";
  tb.line = 9;
  tb.host = "spark-b";
  tb.text =
      "  File \"/home/jdoe/venvs/sglang/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py\", line 2714, "
      "in run_scheduler_process";
  d::Evidence nccl;
  nccl.source = "spark-b/sglang-worker.log";
  nccl.line = 4;
  nccl.host = "spark-b";
  nccl.text = "spark-b:51877:52001 [0] NCCL INFO NET/Socket : Using [0]enP7s7:192.168.200.13<0> "
              "[1]wlP9s9:fe80::1c2b:3dff:fe4a:5b6c%wlP9s9<0>";
  d::Evidence docker;
  docker.source = "spark-b/docker-ps.txt";
  docker.line = 3;
  docker.host = "spark-b";
  docker.text = "c41f9e2a7b68   vllm/vllm-openai:v0.11.0   \"vllm serve BAAI/bge…\"   2 days ago   Up 2 days   "
                "0.0.0.0:8001->8000/tcp, [::]:8001->8000/tcp   vllm-embeddings";
  d::Evidence cgroup;
  cgroup.source = "gpu-node-17/kern.log";
  cgroup.line = 41;
  cgroup.host = "gpu-node-17";
  cgroup.text =
      "Memory cgroup stats for /kubepods.slice/kubepods-burstable.slice/"
      "kubepods-burstable-pod4f9d6a0e_6b1c_4e7a_9c2d_8f3b1a5e7d90.slice/"
      "cri-containerd-9f3c2b7e41d8a6c05e1f7b92d4a8c3e6f0b1d2a7c9e84f5a6b3d0c1e2f4a5b6c.scope:";
  v.evidence.insert(v.evidence.end(), {prompt, tb, nccl, docker, cgroup});
  v.summary += " The head at 192.168.200.12 (dist_init_addr='192.168.200.12:20000') lost its peer.";
  v.culprit->why += "; container c41f9e2a7b68, pod uid 4f9d6a0e-6b1c-4e7a-9c2d-8f3b1a5e7d90";
  v.skipped.push_back("/Users/jane.doe/Downloads/spark-logs.tar.gz: member core.48211: binary file");
  v.sources.push_back({"gpu-node-17/kern.log", "gpu-node-17", "kernel_log", {"kernel_log"}, "wall",
                       "wall-clock stamps on gpu-node-17", 120, 9000, ""});
  v.data.timeline.push_back(test::event(77, v.data.timeline[0].ts, "gpu-node-17", "oom_kill", "error", 51913,
                                        "gpu-node-17/kern.log", 41,
                                        "oom-kill:constraint=CONSTRAINT_MEMCG,task_memcg=/kubepods.slice/"
                                        "kubepods-burstable-pod4f9d6a0e_6b1c_4e7a_9c2d_8f3b1a5e7d90.slice"));
  return v;
}

const char* const kOriginals[] = {
    "spark-a", "spark-b", "gpu-node-17", "jdoe", "jane.doe", "192.168.200.12", "192.168.200.13",
    "fe80::1c2b:3dff:fe4a:5b6c", "c41f9e2a7b68",
    "9f3c2b7e41d8a6c05e1f7b92d4a8c3e6f0b1d2a7c9e84f5a6b3d0c1e2f4a5b6c",
    "4f9d6a0e_6b1c_4e7a_9c2d_8f3b1a5e7d90", "4f9d6a0e-6b1c-4e7a-9c2d-8f3b1a5e7d90",
};

}  // namespace

TEST_CASE("redact: no original value survives in any format", "[report]") {
  const auto v = realistic();
  // The values are really there before redaction.
  const std::string before = render(v, Format::json);
  for (const char* o : kOriginals) {
    INFO(o);
    CHECK(contains(before, o));
  }
  const auto r = redact(v);
  for (Format f : {Format::text, Format::markdown, Format::json, Format::html}) {
    const std::string out = render(r, f, {false, 0});
    INFO(to_string(f));
    for (const char* o : kOriginals) {
      INFO(o);
      CHECK_FALSE(contains(out, o));
    }
    // What the diagnosis rests on is kept: pids, sizes, times, the culprit's name.
    CHECK(contains(out, "48211"));
    CHECK(contains(out, "84.00 GiB"));
    CHECK(contains(out, "VLLM::EngineCore"));
    CHECK(contains(out, "2026-04-09"));
  }
  const std::string md = render(r, Format::markdown);
  CHECK(contains(md, "# Incident: CUDA OOM on host-2 GPU 0 at 2026-04-09 00:47:13Z — pid 48211"));
  CHECK(contains(md, "user-1@host-1:~$ ssh user-1@host-2"));
  CHECK(contains(md, "/home/user-1/venvs/sglang/"));
  CHECK(contains(md, "Using [0]enP7s7:ip-2<0> [1]wlP9s9:ip-3%wlP9s9<0>"));
  CHECK(contains(md, "dist\\_init\\_addr='ip-1:20000'"));
  CHECK(contains(md, "0.0.0.0:8001"));  // the unspecified address identifies nobody
  CHECK(contains(md, "container-1   vllm/vllm-openai:v0.11.0"));
  CHECK(contains(md, "kubepods-burstable-podpod-2.slice/cri-containerd-container-2.scope"));
  CHECK(contains(md, "/Users/user-2/Downloads"));
  CHECK(contains(md, "00:47:13"));
}

TEST_CASE("redact: the same value gets the same placeholder in every field and format", "[report]") {
  Redactor r;
  r.collect(realistic());
  const auto& m = r.mapping();
  auto placeholder = [&](const std::string& value) {
    for (const auto& [k, p] : m)
      if (k == value) return p;
    return std::string("(none)");
  };
  // Hosts first, in the order of the hosts table, then values found in text.
  CHECK(placeholder("spark-a") == "host-1");
  CHECK(placeholder("spark-b") == "host-2");
  CHECK(placeholder("gpu-node-17") == "host-3");
  CHECK(placeholder("jdoe") == "user-1");
  CHECK(placeholder("192.168.200.12") == "ip-1");
  CHECK(placeholder("c41f9e2a7b68") == "container-1");
  CHECK(placeholder("root") == "(none)");
  const auto v = r.apply(realistic());
  CHECK(v.culprit->host == "host-2");
  CHECK(v.budget->host == "host-2");
  CHECK(v.root->host == "host-2");
  CHECK(v.echoes[0].host == "host-1");
  CHECK(v.data.gpus[0].host == "host-2");
  CHECK(v.sources[0].name == "host-2/train-rank0.log");
  CHECK(v.sources.back().clock_note == "wall-clock stamps on host-3");  // the sentence is text
  CHECK(v.sources.back().clock == "wall");                              // the id is not
  CHECK(v.data.timeline[0].host == "host-2");
  CHECK(v.data.hosts[1].host == "host-2");
  // Ids are culprit's own words, not data: untouched.
  CHECK(v.verdict == "cuda_oom");
  CHECK(v.culprit->role == "foreign");
  // The same result twice: placeholders are stable.
  CHECK(render(redact(realistic()), Format::json) == render(r.apply(realistic()), Format::json));
}

TEST_CASE("redact: scanners find addresses and ids, not times, versions or pointers", "[report]") {
  Redactor r;
  r.collect_text("[2026-04-09 00:47:13 TP1] NCCL version 2.27.3+cuda12.9 driver 580.95.05 at 0x7f3a2c000000 "
                 "deadbeefcafe 123456789012 v1.2.3.4.5 ::1 [::]:8001 127.0.0.1 0.0.0.0 root@node-3 ubuntu@localhost");
  for (const auto& [value, placeholder] : r.mapping()) INFO(value << " -> " << placeholder);
  // Only node-3 (the host of root@node-3) is identifying here.
  REQUIRE(r.mapping().size() == 1);
  CHECK(r.mapping()[0].first == "node-3");

  Redactor s;
  s.collect_text("ssh alice@10.1.2.3; 10.1.2.30 and 10.1.2.3, GPU-5f2b6c1e-8a2d-4c1b-9e3f-7a6b5c4d3e2f");
  CHECK(s.apply("alice at 10.1.2.3 and 10.1.2.30 on GPU-5f2b6c1e-8a2d-4c1b-9e3f-7a6b5c4d3e2f; malice") ==
        "user-1 at ip-1 and ip-2 on GPU-uuid-1; malice");
}

TEST_CASE("redact: longest value first, whole words only, placeholders never rewritten", "[report]") {
  Redactor r;
  r.add("node-1", RedactKind::host);
  r.add("node-12", RedactKind::host);
  r.add("host", RedactKind::host);
  CHECK(r.apply("node-12 node-1 node-123 subhost host") == "host-2 host-1 node-123 subhost host-3");
  // One pass: the placeholder `host-3` holds the value `host` but is not rewritten again.
  CHECK(r.apply("host host") == "host-3 host-3");
}

TEST_CASE("redact: the terminal timeline is redacted the same way", "[report]") {
  const auto v = redact(realistic());
  const std::string out = render_timeline(v.data.timeline, v.data.hosts, 0, {false, 0});
  for (const char* o : kOriginals) {
    INFO(o);
    CHECK_FALSE(contains(out, o));
  }
  CHECK(contains(out, "host-3"));
  CHECK(contains(out, "podpod-2.slice"));  // the cgroup path spells the uid with `_`
}

// Issue 37, findings 12 and 34: the user names culprit itself quotes from ps's USER column in a
// process's why, and per-user folders of clusters (/scratch/NAME, /data/users/NAME), are user
// names: replaced there and everywhere else they stand as words.
TEST_CASE("ps users in a why and per-user cluster folders are redacted", "[report][redact]") {
  culprit::report::Redactor r;
  r.collect_text("runs as user bob.jones, the job's processes as carol.w, dan (ps); started by 2024-05-14T17:02");
  r.collect_text("File \"/scratch/erin/proj/train.py\", cache /data/users/frank/x and /lustre/scratch/gina/y");
  const std::string out =
      r.apply("bob.jones and carol.w ran it; dan too; /scratch/erin/proj /data/users/frank /lustre/scratch/gina");
  for (const char* name : {"bob.jones", "carol.w", "dan", "erin", "frank", "gina"}) {
    INFO(name << " in: " << out);
    CHECK(out.find(name) == std::string::npos);
  }
  // `as user NAME, the …` names one user: the words after the comma are not names.
  CHECK(r.apply("the job").find("the") != std::string::npos);
}

}  // namespace redact_tests
