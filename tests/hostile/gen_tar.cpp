// Writes a POSIX tar with N small log members (`logs/part-000001.log`, …) to stdout, for the
// hostile test with 10^5 sources: generating the archive directly avoids creating (and
// timing) 10^5 files on the test machine's disk.
//
// Usage: culprit_gen_tar N > many.tar
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void octal(char* field, std::size_t width, unsigned long long value) {
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1), value);
}

void write_member(const std::string& name, const std::string& body) {
  char header[512];
  std::memset(header, 0, sizeof header);
  std::memcpy(header, name.data(), std::min<std::size_t>(name.size(), 99));
  octal(header + 100, 8, 0644);
  octal(header + 108, 8, 0);
  octal(header + 116, 8, 0);
  octal(header + 124, 12, body.size());
  octal(header + 136, 12, 1775692800);  // 2026-04-09
  header[156] = '0';
  std::memcpy(header + 257, "ustar", 6);
  std::memcpy(header + 263, "00", 2);
  std::memset(header + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : header) sum += c;
  std::snprintf(header + 148, 8, "%06o", sum);
  header[155] = ' ';
  std::fwrite(header, 1, sizeof header, stdout);
  std::fwrite(body.data(), 1, body.size(), stdout);
  static const char zeros[512] = {};
  std::fwrite(zeros, 1, (512 - body.size() % 512) % 512, stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs("usage: culprit_gen_tar N > out.tar\n", stderr);
    return 2;
  }
  const long n = std::strtol(argv[1], nullptr, 10);
  char name[64], body[128];
  for (long i = 1; i <= n; ++i) {
    std::snprintf(name, sizeof name, "logs/part-%06ld.log", i);
    std::snprintf(body, sizeof body, "[%6ld.000000] usb 1-1: new high-speed USB device number %ld using xhci_hcd\n",
                  i, i % 128);
    write_member(name, body);
  }
  static const char end[1024] = {};
  std::fwrite(end, 1, sizeof end, stdout);
  return 0;
}
