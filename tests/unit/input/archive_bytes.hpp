// Archives built in the test (no libarchive on this side): gzip with stored deflate blocks,
// POSIX tar, and one real zstd stream of 1 MiB of "A\n" (100 bytes, made with
// `yes A | head -c 1048576 | zstd -19`) for the bomb limit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::test {

inline std::uint32_t crc32(std::string_view data) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/// A valid gzip file of `data`, deflate "stored" blocks (no compression).
inline std::string gzip_stored(std::string_view data) {
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
  size_t at = 0;
  do {
    const size_t n = std::min<size_t>(data.size() - at, 65535);
    const bool last = at + n == data.size();
    out += static_cast<char>(last ? 1 : 0);
    out += static_cast<char>(n & 0xFF);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(~n & 0xFF);
    out += static_cast<char>((~n >> 8) & 0xFF);
    out.append(data.substr(at, n));
    at += n;
  } while (at < data.size());
  auto le32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  le32(crc32(data));
  le32(static_cast<std::uint32_t>(data.size()));
  return out;
}

/// A tar member: its type flag ('0' file, '1' hard link, '2' symbolic link, '3' character
/// device, '4' block device, '5' folder, '6' FIFO) and, for a link, its target.
struct TarMember {
  std::string name, body;
  char type = '0';
  std::string link;
};

/// A POSIX (ustar) tar of typed members.
inline std::string tar_of_members(const std::vector<TarMember>& members) {
  std::string out;
  for (const auto& [name, body, type, link] : members) {
    char h[512] = {};
    std::memcpy(h, name.data(), std::min<size_t>(name.size(), 99));
    std::memcpy(h + 157, link.data(), std::min<size_t>(link.size(), 99));
    std::snprintf(h + 100, 8, "%07o", 0644);
    std::snprintf(h + 108, 8, "%07o", 0);
    std::snprintf(h + 116, 8, "%07o", 0);
    std::snprintf(h + 124, 12, "%011llo", static_cast<unsigned long long>(body.size()));
    std::snprintf(h + 136, 12, "%011o", 0);
    h[156] = type;
    std::memcpy(h + 257, "ustar", 6);
    std::memcpy(h + 263, "00", 2);
    std::memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char c : h) sum += c;
    std::snprintf(h + 148, 8, "%06o", sum);
    out.append(h, 512);
    out += body;
    out.append((512 - body.size() % 512) % 512, '\0');
  }
  out.append(1024, '\0');
  return out;
}

/// A POSIX (ustar) tar of (name, content) members, all regular files.
inline std::string tar_of(const std::vector<std::pair<std::string, std::string>>& members) {
  std::vector<TarMember> typed;
  for (const auto& [name, body] : members) typed.push_back({name, body, '0', ""});
  return tar_of_members(typed);
}

inline std::string zstd_bomb_1mib() {
  static const unsigned char kBytes[] = {
  0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x68, 0x54, 0x00, 0x00, 0x10, 0x41, 0x0a,
  0x01, 0x00, 0xfb, 0xff, 0xe5, 0x0e, 0x0b, 0x44, 0x00, 0x00, 0x00, 0x01,
  0x00, 0xfd, 0xff, 0xf2, 0x0b, 0x04, 0x44, 0x00, 0x00, 0x00, 0x01, 0x00,
  0xfd, 0xff, 0x39, 0x00, 0x02, 0x44, 0x00, 0x00, 0x00, 0x01, 0x00, 0xfd,
  0xff, 0x39, 0x00, 0x02, 0x44, 0x00, 0x00, 0x00, 0x01, 0x00, 0xfd, 0xff,
  0x39, 0x00, 0x02, 0x44, 0x00, 0x00, 0x00, 0x01, 0x00, 0xfd, 0xff, 0x39,
  0x00, 0x02, 0x44, 0x00, 0x00, 0x00, 0x01, 0x00, 0xfd, 0xff, 0x39, 0x00,
  0x02, 0x45, 0x00, 0x00, 0x00, 0x01, 0x00, 0xfd, 0xff, 0x39, 0x00, 0x02,
  0xf4, 0xc8, 0xc3, 0x23
  };
  return std::string(reinterpret_cast<const char*>(kBytes), sizeof kBytes);
}

}  // namespace culprit::test
