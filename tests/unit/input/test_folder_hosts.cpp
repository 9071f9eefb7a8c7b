// Hosts from how inputs are named: a folder named as an input is its host (`culprit spark-b/`)
// unless it holds node folders or describes content (`logs/`, `inputs/`); its files are then
// named under it, as under the parent; --host beats the folder's own name but not a node folder.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "culprit/input/reader.hpp"

namespace fs = std::filesystem;
using culprit::input::folder_host;

namespace {

struct Dir {
  fs::path path;
  Dir() {
    std::string tmpl = (fs::temp_directory_path() / "culprit-hosts-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string& rel) const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel) << "line\n";
  }
  std::vector<std::string> read(const std::vector<std::string>& inputs, const std::string& host = "") const {
    culprit::input::ReadOptions o;
    o.default_host = host;
    culprit::core::Diagnostics d;
    std::vector<std::string> out;
    for (const auto& s : culprit::input::read_inputs(inputs, o, d)) out.push_back(s.name + " @" + s.host + " (" + s.host_from + ")");
    return out;
  }
};

}  // namespace

TEST_CASE("a folder's own name is a host unless it describes content", "[input][hosts]") {
  CHECK(folder_host("spark-b") == "spark-b");
  CHECK(folder_host("spark-b/") == "spark-b");
  CHECK(folder_host("/data/incident/gpu-017/") == "gpu-017");
  CHECK(folder_host("./node-a") == "node-a");
  for (const char* generic : {"logs", "logs/", ".", "./", "..", "/", "inputs", "dmesg", "/var/log"})
    CHECK(folder_host(generic).empty());
}

TEST_CASE("node folders named one by one get the hosts and names their parent gives", "[input][hosts]") {
  Dir d;
  d.write("spark-a/head.log");
  d.write("spark-b/worker.log");
  d.write("spark-b/smi/nvidia-smi.txt");
  const auto parent = d.read({d.path.string()});
  const auto each = d.read({(d.path / "spark-a").string(), (d.path / "spark-b/").string()});
  CHECK(parent == std::vector<std::string>{"spark-a/head.log @spark-a (folder name)",
                                           "spark-b/smi/nvidia-smi.txt @spark-b (folder name)",
                                           "spark-b/worker.log @spark-b (folder name)"});
  CHECK(each == parent);
  // --host names inputs that name none: it beats the folder's own name, not a node folder.
  CHECK(d.read({(d.path / "spark-b").string()}, "gpu-9") ==
        std::vector<std::string>{"smi/nvidia-smi.txt @gpu-9 (--host)", "worker.log @gpu-9 (--host)"});
  CHECK(d.read({d.path.string()}, "gpu-9").front() == "spark-a/head.log @spark-a (folder name)");
}

TEST_CASE("a file named alone, or a generic folder, takes no host from its path", "[input][hosts]") {
  Dir d;
  d.write("logs/train.log");
  CHECK(d.read({(d.path / "logs").string()}) == std::vector<std::string>{"train.log @ ()"});
  CHECK(d.read({(d.path / "logs/train.log").string()}).front().find(" @ ()") != std::string::npos);
  CHECK(d.read({(d.path / "logs/train.log").string()}, "n1").front().find(" @n1 (--host)") != std::string::npos);
}

namespace {

/// host_from_relative_path as it was written with std::filesystem::path (issue 38 replaced the
/// path and its parts' strings by views of the text): the oracle for the one below.
std::string host_by_fs_path(const std::string& relative) {
  static const std::set<std::string> kGeneric = {
      "logs", "log", "var", "tmp", "output", "outputs", "data", "kernel", "dmesg", "journal",
      "nvidia", "gpu", "workers", "worker", "ranks", "artifacts", "incident", "syslog", "inputs", "input", "."};
  std::vector<std::string> parts;
  for (const auto& part : fs::path(relative)) parts.push_back(part.string());
  if (parts.size() < 2) return {};
  for (size_t i = 0; i + 1 < parts.size(); ++i)
    if (parts[i].rfind("host=", 0) == 0 && parts[i].size() > 5) return parts[i].substr(5);
  for (size_t i = 0; i + 1 < parts.size(); ++i)
    if (!kGeneric.count(parts[i])) return parts[i];
  return {};
}

}  // namespace

TEST_CASE("host_from_relative_path: parts as std::filesystem::path splits them", "[input][hosts]") {
  using culprit::input::host_from_relative_path;
  CHECK(host_from_relative_path("spark-b/sglang.log") == "spark-b");
  CHECK(host_from_relative_path("logs/host=gpu-3/rank0/x.log") == "gpu-3");
  CHECK(host_from_relative_path("./logs/gpu-27/vllm-worker/part-00402") == "gpu-27");
  CHECK(host_from_relative_path("worker.log").empty());
  CHECK(host_from_relative_path("logs/worker.log").empty());
  // Odd names an archive may hold: slashes doubled, leading, trailing.
  for (const char* odd : {"a//b", "/a/b", "//a/b", "a/b/", "a/", "/", "//", "", "logs//", "./x", "host=/y", "host=z//w/"})
    CHECK(host_from_relative_path(odd) == host_by_fs_path(odd));
  std::mt19937 rng(38);
  const std::string alphabet[] = {"/", "/", "a", "logs", ".", "host=", "host=n1", "gpu", "b7", "//"};
  for (int n = 0; n < 5000; ++n) {
    std::string path;
    const int k = static_cast<int>(rng() % 7);
    for (int j = 0; j < k; ++j) path += alphabet[rng() % std::size(alphabet)];
    INFO(path);
    CHECK(host_from_relative_path(path) == host_by_fs_path(path));
  }
}
