// Leftover GPU holders: the pure reasons (leftover.hpp) with look-alikes, and the diagnosis
// `leftover-gpu-holder` end to end — the answer when nothing failed, an echo when something did.
// The nvidia-smi Processes rows follow the 535+ table (89 wide, GI / CI columns); ps rows follow
// procps-ng (`ps -o pid,ppid,stat,lstart,cmd`, `ps aux`); the stack follows fs/proc/base.c.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "diagnose/leftover.hpp"
#include "unit/diagnose/diagnose_support.hpp"

using culprit::diagnose::LeftoverFacts;
using culprit::diagnose::leftover_reasons;

namespace {

bool has(const std::vector<std::string>& reasons, const std::string& word) {
  return std::any_of(reasons.begin(), reasons.end(), [&](const std::string& r) { return r.find(word) != std::string::npos; });
}

const char* kBoxTop =
    "+---------------------------------------------------------------------------------------+\n"
    "| Processes:                                                                            |\n"
    "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n"
    "|        ID   ID                                                             Usage      |\n"
    "|=======================================================================================|\n";
const char* kBoxEnd = "+---------------------------------------------------------------------------------------+\n";

}  // namespace

TEST_CASE("leftover: defunct, stopped, unnamed and orphaned holders", "[leftover]") {
  LeftoverFacts z;
  z.names = {"python"};
  z.state = "Z";
  z.gpu_listed = true;
  CHECK(has(leftover_reasons(z), "defunct"));
  z.state = "";
  z.cmdline = "[python] <defunct>";
  CHECK(has(leftover_reasons(z), "defunct"));

  LeftoverFacts t;
  t.names = {"python"};
  t.state = "Tl";
  t.gpu_listed = true;
  CHECK(has(leftover_reasons(t), "stopped (ps state Tl)"));

  LeftoverFacts u;
  u.names = {"Unknown Error"};
  u.gpu_listed = true;
  CHECK(has(leftover_reasons(u), "`Unknown Error`"));
  u.names = {"[Not Found]"};
  CHECK(has(leftover_reasons(u), "`[Not Found]`"));
  u.names = {"N/A"};  // every process in a container: not a sign
  CHECK(leftover_reasons(u).empty());

  LeftoverFacts o;
  o.names = {"VLLM::EngineCore"};
  o.ppid = 1;
  o.state = "R";
  CHECK(has(leftover_reasons(o), "re-parented to init"));  // no snapshot: its name says it held a GPU
  o.driver_frame = "uvm_spin_loop [nvidia_uvm]";
  CHECK(has(leftover_reasons(o), "stuck in the NVIDIA driver (uvm_spin_loop [nvidia_uvm])"));
  o.pid1_name = "systemd";
  CHECK(!leftover_reasons(o).empty());
}

TEST_CASE("leftover: look-alikes are not leftovers", "[leftover]") {
  // In a container whose entrypoint `vllm serve` is pid 1, its engine has PPID 1 by design.
  LeftoverFacts c;
  c.names = {"VLLM::EngineCore"};
  c.ppid = 1;
  c.pid1_name = "vllm";
  c.gpu_listed = true;
  CHECK(leftover_reasons(c).empty());
  // PPID 1 is no sign for other programs (a daemon, a `nohup` run).
  LeftoverFacts d;
  d.names = {"python3"};
  d.ppid = 1;
  d.state = "Sl";
  d.gpu_listed = true;
  CHECK(leftover_reasons(d).empty());
  // A zombie that no snapshot lists holds no GPU.
  LeftoverFacts z;
  z.names = {"python"};
  z.state = "Z";
  CHECK(leftover_reasons(z).empty());
  // A running engine worker with its server alive.
  LeftoverFacts w;
  w.names = {"VLLM::Worker_TP1"};
  w.ppid = 4121;
  w.gpu_listed = true;
  CHECK(leftover_reasons(w).empty());
  CHECK(culprit::diagnose::engine_gpu_worker("sglang::scheduler_TP0"));
  CHECK_FALSE(culprit::diagnose::engine_gpu_worker("sglang::detokenizer"));
  CHECK_FALSE(culprit::diagnose::engine_gpu_worker("vllm"));
}

TEST_CASE("leftover: nothing failed, nvidia-smi cannot name a holder: it is the answer", "[leftover][diagnose]") {
  const std::string smi = std::string(kBoxTop) +
      "|    0   N/A  N/A     51877      C   Unknown Error                              7354MiB |\n"
      "|    1   N/A  N/A     52010      C   /usr/bin/python3                          10240MiB |\n" + kBoxEnd;
  const auto v = culprit::test::diagnose_texts({{"nvidia-smi.txt", "gpu-node-5", smi}});
  CHECK(v.verdict == "unknown");
  CHECK(v.confidence == culprit::diagnose::Confidence::low);
  REQUIRE(v.culprit);
  CHECK(v.culprit->pid == 51877);
  CHECK(v.culprit->role == "foreign");
  CHECK(v.summary.find("No failure is in the inputs, but GPU 0 on gpu-node-5 is held by pid 51877") != std::string::npos);
  CHECK(v.summary.find("7354 MiB") != std::string::npos);
  REQUIRE(!v.advice.empty());
  CHECK(v.advice[0].find("ps -o pid,ppid,stat,lstart,cmd -p 51877") != std::string::npos);
}

TEST_CASE("leftover: an orphaned engine worker stuck in nvidia_uvm, no snapshot", "[leftover][diagnose]") {
  const std::string text =
      "$ ps -o pid,ppid,stat,lstart,cmd -p 48211\n"
      "    PID    PPID STAT                  STARTED CMD\n"
      "  48211       1 R    Tue Apr  7 08:15:02 2026 VLLM::EngineCore\n"
      "$ sudo cat /proc/48211/stack\n"
      "[<0>] uvm_va_space_destroy+0x3c1/0x4d0 [nvidia_uvm]\n"
      "[<0>] do_exit+0x365/0xaf0\n";
  const auto v = culprit::test::diagnose_texts({{"paste.txt", "gpu-node-7", text}});
  CHECK(v.verdict == "unknown");
  REQUIRE(v.culprit);
  CHECK(v.culprit->pid == 48211);
  CHECK(v.culprit->role == "foreign");
  CHECK(v.culprit->why.find("stuck in the NVIDIA driver (uvm_va_space_destroy [nvidia_uvm])") != std::string::npos);
  CHECK(v.summary.find("a GPU on gpu-node-7 is held by pid 48211 (VLLM::EngineCore)") != std::string::npos);
}

TEST_CASE("leftover: in a container whose pid 1 is the server, its engine is not orphaned", "[leftover][diagnose]") {
  const std::string text =
      "    PID    PPID STAT                  STARTED CMD\n"
      "      1       0 Ssl  Tue Apr  7 08:14:40 2026 /usr/bin/python3 /usr/local/bin/vllm serve meta-llama/Llama-3.1-8B\n"
      "    212       1 Rl   Tue Apr  7 08:15:02 2026 VLLM::EngineCore\n";
  const auto v = culprit::test::diagnose_texts({{"ps.txt", "pod-0", text}});
  CHECK(v.verdict == "unknown");
  CHECK_FALSE(v.culprit);
}

TEST_CASE("leftover: a real failure stays the answer, the leftover one of its echoes", "[leftover][diagnose]") {
  const std::string smi = std::string(kBoxTop) +
      "|    2   N/A  N/A      1395      C   python                                    25081MiB |\n" + kBoxEnd;
  // ps aux | grep train.py: the header is gone (procps aux layout).
  const std::string ps =
      "thomas    1395  1.7 14.4 89506440 28604880 pts/2 Tl May25 147:37 python train.py --device=cuda:2\n";
  const std::string log =
      "Traceback (most recent call last):\n"
      "  File \"/home/ana/eval.py\", line 12, in <module>\n"
      "    x = torch.load(path)\n"
      "KeyError: 'state_dict'\n";
  const auto v = culprit::test::diagnose_texts(
      {{"nvidia-smi.txt", "cn119", smi}, {"ps.txt", "cn119", ps}, {"eval.log", "cn119", log}});
  CHECK(v.verdict == "not_oom");
  const bool echoed = std::any_of(v.echoes.begin(), v.echoes.end(),
                                  [](const auto& e) { return e.rule == "leftover-gpu-holder"; });
  CHECK(echoed);
}

TEST_CASE("leftover: a crash later in the same paste outranks the leftover that precedes it", "[leftover][diagnose]") {
  // One paste: the holder's nvidia-smi box and ps row first, then a job's uncaught exception.
  // Line order ranks echo-class findings of one source; a finding that names no failure never
  // wins over one that does.
  const std::string paste = std::string("ana@cn119:~$ nvidia-smi\n") + kBoxTop +
      "|    2   N/A  N/A      1395      C   python                                    25081MiB |\n" + kBoxEnd +
      "ana@cn119:~$ ps aux | grep train\n"
      "thomas    1395  1.7 14.4 89506440 28604880 pts/2 Tl May25 147:37 python train.py --device=cuda:2\n"
      "ana@cn119:~$ python eval.py\n"
      "Traceback (most recent call last):\n"
      "  File \"/home/ana/eval.py\", line 12, in <module>\n"
      "    x = torch.load(path)\n"
      "KeyError: 'state_dict'\n";
  const auto v = culprit::test::diagnose_texts({{"paste.txt", "", paste}});
  CHECK(v.verdict == "not_oom");
  CHECK(std::any_of(v.echoes.begin(), v.echoes.end(), [](const auto& e) { return e.rule == "leftover-gpu-holder"; }));
}
