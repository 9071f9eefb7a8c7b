// Hosts from how inputs are named: a folder named as an input is its host (`culprit spark-b/`)
// unless it holds node folders or describes content (`logs/`, `inputs/`); its files are then
// named under it, as under the parent; --host beats the folder's own name but not a node folder.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

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
