// The snapshot pieces that need no machine: how a command's result is named (missing, refused,
// timed out, empty), the kernel log cut at the job's start, the framing of the remote script's
// output, and the manifest's round trip.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <unistd.h>

#include "cli/snapshot.hpp"
#include "culprit/api/snapshot_manifest.hpp"

namespace snapshot_tests {

using namespace culprit::cli;
using namespace culprit::api;

namespace {

const SnapshotItem& item_for(std::string_view file) {
  for (const auto& i : snapshot_items())
    if (i.file == file) return i;
  FAIL("no item " << file);
  return snapshot_items().front();
}

CommandResult exited(int code, std::string out, std::string err = {}) {
  CommandResult r;
  r.started = true;
  r.exit_code = code;
  r.out = std::move(out);
  r.err = std::move(err);
  return r;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a command's status: ok, missing, refused, failed, timed out, empty", "[cli][snapshot]") {
  const auto& dmesg = item_for("dmesg.txt");
  CHECK(classify(dmesg, exited(0, "2026-04-09T00:47:19,123456+00:00 hello\n")).status == "ok");
  CHECK(classify(dmesg, exited(127, "")).status == "missing");
  const auto refused = classify(dmesg, exited(1, "", "dmesg: read kernel buffer failed: Operation not permitted\n"));
  CHECK(refused.status == "refused");
  CHECK(refused.detail == "exit 1: dmesg: read kernel buffer failed: Operation not permitted");
  CHECK(refused.tool == "dmesg");
  // A failure that is no refusal: docker's daemon is down.
  const auto& docker = item_for("docker-ps.txt");
  CHECK(classify(docker, exited(1, "", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock.\n")).status ==
        "failed");
  CommandResult hung;
  hung.started = true;
  hung.timed_out = true;
  CHECK(classify(item_for("nvidia-smi.txt"), hung).status == "timed out");
  // journalctl's "no entries" as a non-privileged user.
  const auto& journal = item_for("journalctl-k.txt");
  CHECK(classify(journal, exited(0, "-- No entries --\n", "Hint: You are currently not seeing messages from other users")).status ==
        "empty");
  // A file reader's empty output is an answer (no variables set), not a missing tool.
  CHECK(classify(item_for("env.txt"), exited(0, "")).status == "ok");
}

TEST_CASE("the kernel log is cut at the job's start: unstamped lines follow theirs", "[cli][snapshot]") {
  const std::string log =
      "2026-04-09T00:40:00,000001+00:00 before the job\n"
      "2026-04-09T00:47:19,123456+00:00 python3 invoked oom-killer: gfp_mask=0x100cca\n"
      "  continuation of it\n"
      "2026-04-09T00:47:20,000000+00:00 Out of memory: Killed process 4242 (python3)\n";
  const double since = 1775695639;  // 2026-04-09T00:47:19Z
  CHECK(iso_utc(since) == "2026-04-09T00:47:19Z");
  const std::string cut = kernel_lines_since(log, since);
  CHECK(cut.find("before the job") == std::string::npos);
  CHECK(cut.find("invoked oom-killer") != std::string::npos);
  CHECK(cut.find("continuation of it") != std::string::npos);
  CHECK(cut.find("Killed process 4242") != std::string::npos);
  CHECK(kernel_lines_since("2026-04-09T00:40:00,000001+00:00 old\n  old too\n", since).empty());
}

TEST_CASE("the remote script's framed output becomes the node folder", "[cli][snapshot]") {
  const std::vector<SnapshotItem> items = {
      {"nvidia-smi.txt", "nvidia-smi", "nvidia-smi", 5, ""},
      {"nvidia-smi-q.xml", "nvidia-smi", "nvidia-smi -q -x", 5, ""},
      {"dmesg.txt", "dmesg", "dmesg --time-format iso", 5, ""},
      {"journalctl-k.txt", "journalctl", "journalctl -k", 5, "dmesg.txt"},
      {"ps.txt", "ps", "ps", 5, ""},
  };
  const std::string script = remote_snapshot_script(items);
  CHECK(script.find("[ -n \"$(command -v nvidia-smi)\" ] || exit 127; nvidia-smi") != std::string::npos);
  // Output that looks like a frame inside a frame's bytes is data, not a frame.
  const std::string ps = "  PID CMD\n    1 echo @@culprit 9 0 1 1\n";
  const std::string err = "dmesg: read kernel buffer failed: Operation not permitted\n";
  const std::string output = "@@culprit 0 127 0 0\n"
                             "@@culprit 2 1 0 " + std::to_string(err.size()) + "\n" + err +
                             "@@culprit 3 0 6 0\nkernel" +
                             "@@culprit 4 0 " + std::to_string(ps.size()) + " 0\n" + ps;
  const auto dir = std::filesystem::temp_directory_path() / "culprit-unit-remote-snapshot";
  std::filesystem::remove_all(dir);
  const auto statuses = write_remote_snapshot(dir.string(), items, output);
  REQUIRE(statuses.size() == 4);  // nvidia-smi once (not asked again), dmesg, journalctl, ps
  CHECK(statuses[0].tool == "nvidia-smi");
  CHECK(statuses[0].status == "missing");
  CHECK(statuses[1].status == "refused");
  CHECK(statuses[2].tool == "journalctl");
  CHECK(statuses[2].file == "journalctl-k.txt");
  CHECK(statuses[3].status == "ok");
  CHECK(slurp(dir / "ps.txt") == ps);
  CHECK(slurp(dir / "journalctl-k.txt") == "kernel");
  CHECK_FALSE(std::filesystem::exists(dir / "nvidia-smi.txt"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the manifest round trip: other JSON is no manifest", "[cli][snapshot]") {
  Manifest m;
  m.made_by = "culprit run";
  m.host = "gpu-node-17";
  m.taken = 1775695640.5;
  JobRecord j;
  j.pid = 40211;
  j.user = "alice";
  j.started = 1775695000.25;
  j.command = {"torchrun", "--nproc-per-node=8", "train.py", "--name=\"a b\""};
  j.ended = 1775695600.75;
  j.signal = 9;
  m.job = j;
  m.tools = {{"nvidia-smi", "", "missing", "not found on PATH"}, {"ps", "ps.txt", "ok", ""}};
  m.kernel_log = "refused";
  const auto back = parse_manifest(manifest_json(m));
  REQUIRE(back);
  CHECK(back->made_by == "culprit run");
  CHECK(back->host == "gpu-node-17");
  REQUIRE(back->job);
  CHECK(back->job->pid == 40211);
  CHECK(back->job->user == "alice");
  CHECK(back->job->started == Approx(1775695000.25));
  CHECK(back->job->command == j.command);
  CHECK(back->job->ended == Approx(1775695600.75));
  CHECK(back->job->signal == 9);
  CHECK(back->job->exit_code == -1);
  CHECK(back->kernel_log == "refused");
  REQUIRE(back->tools.size() == 2);
  CHECK(back->tools[0].status == "missing");
  CHECK_FALSE(parse_manifest(R"({"Id": "abc", "State": {}})"));
  CHECK_FALSE(parse_manifest("not json"));
  CHECK(is_manifest_name("culprit-snapshot.json"));
  CHECK(is_manifest_name("incident/gpu-node-17/culprit-snapshot.json"));
  CHECK(is_manifest_name("incident.tar.zst!/incident/node/culprit-snapshot.json"));
  CHECK_FALSE(is_manifest_name("my-culprit-snapshot.json"));
}

TEST_CASE("the kernel log is read when dmesg or its fallback answered", "[cli][snapshot]") {
  CHECK(kernel_log_status({{"ps", "ps.txt", "ok", ""}, {"dmesg", "dmesg.txt", "ok", ""}}) == "ok");
  // dmesg answered with nothing since the job started: read, and it holds no kill.
  CHECK(kernel_log_status({{"dmesg", "", "ok", "no kernel lines since the job started"}}) == "ok");
  CHECK(kernel_log_status({{"dmesg", "", "refused", "exit 1: dmesg: read kernel buffer failed: Operation not permitted"},
                           {"journalctl", "journalctl-k.txt", "ok", ""}}) == "ok");
  CHECK(kernel_log_status({{"dmesg", "", "refused", ""}, {"journalctl", "", "missing", "not found on PATH"}}) ==
        "refused");
  CHECK(kernel_log_status({{"ps", "ps.txt", "ok", ""}}).empty());  // a sample: the kernel log was not asked
}

// Redteam finding 10: `culprit run` wrote VLLM_API_KEY, SGLANG_API_KEY and `--api-key=…` into
// world-readable snapshot files.
TEST_CASE("secrets are masked before a snapshot file is written", "[snapshot][redteam]") {
  CHECK(mask_secrets("VLLM_API_KEY=sk-VLLMSECRET789\nSGLANG_API_KEY=sk-S\nVLLM_USE_V1=1\n") ==
        "VLLM_API_KEY=***\nSGLANG_API_KEY=***\nVLLM_USE_V1=1\n");
  CHECK(mask_secrets("root 12 python -m vllm serve m --api-key=sk-CMD --max-num-batched-tokens=8192") ==
        "root 12 python -m vllm serve m --api-key=*** --max-num-batched-tokens=8192");
  CHECK(mask_secrets("x serve --api-key sk-CMD --hf-token hf_abc --port 8000 --max-total-tokens 100") ==
        "x serve --api-key *** --hf-token *** --port 8000 --max-total-tokens 100");
  CHECK(mask_secrets(R"("Env": ["HF_TOKEN=hf_abc", "AWS_SECRET_ACCESS_KEY=x/y", "PATH=/bin"])") ==
        R"("Env": ["HF_TOKEN=***", "AWS_SECRET_ACCESS_KEY=***", "PATH=/bin"])");
  CHECK(mask_secrets("DB_PASSWORD=hunter2 MY_CREDENTIALS=c NCCL_DEBUG=INFO PWD=/home/me") ==
        "DB_PASSWORD=*** MY_CREDENTIALS=*** NCCL_DEBUG=INFO PWD=/home/me");
  CHECK(mask_secrets("--url https://bob:pa55@example.com/x and http://example.com:80/") ==
        "--url https://bob:***@example.com/x and http://example.com:80/");
  CHECK(mask_command({"vllm", "serve", "--api-key", "sk-1", "--token=t", "--tokenizer", "tok"}) ==
        std::vector<std::string>{"vllm", "serve", "--api-key", "***", "--token=***", "--tokenizer", "tok"});
}

TEST_CASE("snapshot files are private, and a write that fails says why", "[snapshot][redteam]") {
  const auto dir = std::filesystem::temp_directory_path() / ("culprit-snap-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "ps.txt").string();
  CHECK(write_private_file(file, "text\n").empty());
  CHECK((std::filesystem::status(file).permissions() & std::filesystem::perms::all) ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
  CHECK(write_private_file((dir / "no/such/folder").string(), "x") == "No such file or directory");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a full disk is said with the file it hit (redteam finding 12)", "[snapshot][redteam]") {
  // /dev/full answers every write with ENOSPC, as a full file system does: the snapshot writer
  // (what `culprit run` and `collect` write each command's output with) names the file and the
  // system's reason, and leaves a device it could not write as it was.
  if (::access("/dev/full", W_OK) != 0) {
    WARN("no writable /dev/full: not tested here");
    return;
  }
  CHECK(write_private_file("/dev/full", "a line that does not fit\n") == "No space left on device");
  CHECK(std::filesystem::exists("/dev/full"));
  const std::vector<SnapshotItem> items = {{"full", "", "echo 'MemTotal: 1 kB'", 5, ""}};
  const auto statuses = take_snapshot("/dev", items, SnapshotOptions{});
  REQUIRE(statuses.size() == 1);
  CHECK(statuses[0].status == "failed");
  CHECK(statuses[0].detail == "cannot write /dev/full: No space left on device");
  CHECK(statuses[0].file.empty());  // no file that reads as an answer
}

TEST_CASE("run_capture: a command given no text reads end-of-file, without opening /dev/null") {
  // `cat` ends at once on the empty pipe; its standard input is no file from the filesystem
  // (a sandbox may refuse /dev/null to an unprivileged user, and then nothing would start).
  CaptureOptions no_text;
  no_text.timeout_s = 2;
  CommandResult r = run_capture({"sh", "-c", "cat; readlink /proc/self/fd/0 || echo none"}, no_text);
  REQUIRE(r.ok());
  CHECK(r.out.rfind("pipe:", 0) == 0);
  CaptureOptions with_text;
  with_text.stdin_text = "one\ntwo\n";
  CHECK(run_capture({"cat"}, with_text).out == "one\ntwo\n");
}

TEST_CASE("snapshot: a tool's presence is checked without /dev/null") {
  for (const auto& item : snapshot_items()) {
    INFO(item.file);
    CHECK(remote_snapshot_script({item}).find("command -v " + std::string(item.tool) + " >/dev/null") ==
          std::string::npos);
  }
}

}  // namespace snapshot_tests
