// The Xid catalogue and the per-code readings of driver lines (see xid_details.hpp).
//
// Catalogue: names from NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors); class and
// action from formats.md §7.2 ("Resolution" = NVIDIA's immediate action): application-caused
// codes restart the app, consequences of other faults are ignored, hardware and firmware faults
// reset the GPU or reboot the node. Severity: `critical` for faults that take the GPU (and every
// process on it) down, `warning` for informational or consequence codes, `error` otherwise.
// Codes absent here are still Xids: they keep their code, get class `unknown` and the action
// `contact_support` (a new driver's code that nobody has classified).
#include "ingest/xid_details.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>

#include "culprit/core/facts.hpp"

namespace culprit::ingest {
namespace {

using core::Severity;
constexpr auto kErr = Severity::error;
constexpr auto kWarn = Severity::warning;
constexpr auto kCrit = Severity::critical;

// clang-format off
constexpr XidCode kCodes[] = {
  {1, "Invalid or corrupted push buffer stream", "driver", "restart_app", kErr},
  {2, "Invalid or corrupted push buffer stream", "driver", "restart_app", kErr},
  {3, "Invalid or corrupted push buffer stream", "driver", "restart_app", kErr},
  {4, "Invalid or corrupted push buffer stream, or GPU semaphore timeout", "driver", "restart_app", kErr},
  {6, "Invalid or corrupted push buffer stream", "driver", "restart_app", kErr},
  {7, "Invalid or corrupted push buffer address", "driver", "restart_app", kErr},
  {8, "GPU stopped processing", "app", "restart_app", kErr},
  {9, "Driver error programming GPU", "driver", "restart_app", kErr},
  {11, "Invalid or corrupted push buffer stream", "driver", "restart_app", kErr},
  {12, "Driver error handling GPU exception", "driver", "restart_app", kErr},
  {13, "Graphics Engine Exception", "app", "restart_app", kErr},
  {14, "Unused in the current catalogue (old drivers: channel error)", "driver", "restart_app", kErr},
  {16, "Display engine hung", "driver", "restart_app", kErr},
  {18, "Bus mastering disabled in PCI Config Space", "driver", "contact_support", kErr},
  {19, "Display Engine error", "driver", "restart_app", kErr},
  {24, "GPU semaphore timeout", "app", "restart_app", kErr},
  {25, "Invalid or illegal push buffer stream", "driver", "restart_app", kErr},
  {26, "Framebuffer timeout", "driver", "restart_app", kErr},
  {27, "Video processor exception", "app", "restart_app", kErr},
  {28, "Video processor exception", "app", "restart_app", kErr},
  {29, "Video processor exception", "app", "restart_app", kErr},
  {30, "GPU semaphore access error", "app", "restart_app", kErr},
  {31, "GPU memory page fault", "app", "restart_app", kErr},
  {32, "Invalid or corrupted push buffer stream", "app", "restart_app", kErr},
  {33, "Internal micro-controller error", "firmware", "contact_support", kErr},
  {34, "Video processor exception", "app", "restart_app", kErr},
  {35, "Video processor exception", "app", "restart_app", kErr},
  {36, "Video processor exception", "app", "restart_app", kErr},
  {37, "Driver firmware error", "firmware", "contact_support", kErr},
  {38, "Driver firmware error", "firmware", "contact_support", kErr},
  {42, "Video processor exception", "app", "restart_app", kErr},
  {43, "GPU stopped processing (reset channel verification)", "consequence", "ignore", kWarn},
  {44, "Graphics Engine fault during context switch", "driver", "contact_support", kErr},
  {45, "Preemptive cleanup, due to previous errors", "consequence", "ignore", kWarn},
  {46, "GPU stopped processing", "driver", "reset_gpu", kErr},
  {47, "Video processor exception", "app", "restart_app", kErr},
  {48, "Double Bit ECC Error", "hardware", "reset_gpu", kCrit},
  {54, "Auxiliary power is not connected to the GPU board", "hardware", "contact_support", kCrit},
  {56, "Display Engine error", "driver", "restart_app", kErr},
  {57, "Error programming video memory interface", "hardware", "contact_support", kErr},
  {58, "Unstable video memory interface detected", "hardware", "contact_support", kErr},
  {59, "Internal micro-controller error", "firmware", "contact_support", kErr},
  {60, "Video processor exception", "app", "restart_app", kErr},
  {61, "Internal micro-controller breakpoint/warning", "firmware", "contact_support", kErr},
  {62, "Internal micro-controller halt", "firmware", "reset_gpu", kCrit},
  {63, "ECC page retirement or row remapping recording event", "hardware", "reset_gpu", kWarn},
  {64, "ECC page retirement or row remapper recording failure", "hardware", "reset_gpu", kCrit},
  {65, "Video processor exception", "app", "restart_app", kErr},
  {66, "Illegal access by driver", "driver", "restart_app", kErr},
  {67, "Illegal access by driver", "driver", "restart_app", kErr},
  {68, "NVDEC0 Exception", "app", "restart_app", kErr},
  {69, "Graphics Engine class error", "app", "restart_app", kErr},
  {70, "CE3: Unknown Error", "driver", "restart_app", kErr},
  {71, "CE4: Unknown Error", "driver", "restart_app", kErr},
  {72, "CE5: Unknown Error", "driver", "restart_app", kErr},
  {73, "NVENC2 Error", "app", "restart_app", kErr},
  {74, "NVLINK Error", "fabric", "reset_gpu", kCrit},
  {75, "CE6: Unknown Error", "driver", "restart_app", kErr},
  {76, "CE7: Unknown Error", "driver", "restart_app", kErr},
  {77, "CE8: Unknown Error", "driver", "restart_app", kErr},
  {78, "vGPU Start Error", "driver", "contact_support", kErr},
  {79, "GPU has fallen off the bus", "hardware", "reboot_node", kCrit},
  {80, "Corrupted data sent to GPU", "hardware", "contact_support", kErr},
  {81, "VGA Subsystem Error", "hardware", "contact_support", kErr},
  {82, "NVJPG0 Error", "app", "restart_app", kErr},
  {83, "NVDEC1 Error", "app", "restart_app", kErr},
  {84, "NVDEC2 Error", "app", "restart_app", kErr},
  {85, "CE9: Unknown Error", "driver", "restart_app", kErr},
  {86, "OFA Exception", "app", "restart_app", kErr},
  {88, "NVDEC3 Error", "app", "restart_app", kErr},
  {89, "NVDEC4 Error", "app", "restart_app", kErr},
  {92, "High single-bit ECC error rate", "hardware", "contact_support", kWarn},
  {93, "Non-fatal violation of provisioned InfoROM wear limit", "hardware", "contact_support", kWarn},
  {94, "Contained ECC error", "hardware", "restart_app", kErr},
  {95, "Uncontained ECC error", "hardware", "reset_gpu", kCrit},
  {96, "NVDEC5 Error", "app", "restart_app", kErr},
  {97, "NVDEC6 Error", "app", "restart_app", kErr},
  {98, "NVDEC7 Error", "app", "restart_app", kErr},
  {99, "NVJPG1 Error", "app", "restart_app", kErr},
  {100, "NVJPG2 Error", "app", "restart_app", kErr},
  {101, "NVJPG3 Error", "app", "restart_app", kErr},
  {102, "NVJPG4 Error", "app", "restart_app", kErr},
  {103, "NVJPG5 Error", "app", "restart_app", kErr},
  {104, "NVJPG6 Error", "app", "restart_app", kErr},
  {105, "NVJPG7 Error", "app", "restart_app", kErr},
  {109, "Context Switch Timeout Error", "driver", "reset_gpu", kErr},
  {110, "Security Fault Error", "hardware", "reset_gpu", kErr},
  {111, "Display Bundle Error Event", "driver", "restart_app", kErr},
  {112, "Display Supervisor Error", "driver", "restart_app", kErr},
  {113, "DP Link Training Error", "driver", "restart_app", kErr},
  {114, "Display Pipeline Underflow Error", "driver", "restart_app", kErr},
  {115, "Display Core Channel Error", "driver", "restart_app", kErr},
  {116, "Display Window Channel Error", "driver", "restart_app", kErr},
  {117, "Display Cursor Channel Error", "driver", "restart_app", kErr},
  {118, "Display Pixel Pipeline Error", "driver", "restart_app", kErr},
  {119, "GSP RPC Timeout", "firmware", "reset_gpu", kCrit},
  {120, "GSP Error", "firmware", "reset_gpu", kCrit},
  {121, "C2C Link Error", "hardware", "contact_support", kCrit},
  {122, "SPI PMU RPC Read Failure", "firmware", "contact_support", kErr},
  {123, "SPI PMU RPC Write Failure", "firmware", "contact_support", kErr},
  {124, "SPI PMU RPC Erase Failure", "firmware", "contact_support", kErr},
  {125, "Inforom FS Failure", "firmware", "contact_support", kErr},
  {136, "Link training failed", "hardware", "reset_gpu", kErr},
  {137, "NVLink FLA privilege error", "fabric", "ignore", kWarn},
  {140, "Unrecovered ECC Error", "hardware", "reset_gpu", kCrit},
  {143, "GPU Initialization Failure", "hardware", "reset_gpu", kCrit},
  {144, "NVLink: SAW Error", "fabric", "reset_gpu", kErr},
  {145, "NVLink: RLW Error", "fabric", "reset_gpu", kErr},
  {146, "NVLink: TLW Error", "fabric", "reset_gpu", kErr},
  {147, "NVLink: TREX Error", "fabric", "reset_gpu", kErr},
  {148, "NVLink: NVLPW Error", "fabric", "reset_gpu", kErr},
  {149, "NVLink: NETIR Error", "fabric", "reset_gpu", kErr},
  {150, "NVLink: MSE Error", "fabric", "reset_gpu", kErr},
  {151, "Key rotation Error", "firmware", "contact_support", kErr},
  {154, "GPU Recovery Action Changed", "meta", "contact_support", kWarn},
  {155, "NVLink: SW Defined Error", "fabric", "reset_gpu", kErr},
  {156, "Resource Retirement Event", "hardware", "reset_gpu", kWarn},
  {157, "Resource Retirement Failure", "hardware", "contact_support", kErr},
  {158, "GPU Fatal Timeout", "hardware", "reset_gpu", kCrit},
};
// clang-format on

bool is_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::optional<unsigned long> hex_word(std::string_view w) {
  if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) w.remove_prefix(2);
  if (!is_hex(w) || w.size() > 16) return std::nullopt;
  unsigned long v = 0;
  std::from_chars(w.data(), w.data() + w.size(), v, 16);
  return v;
}

std::optional<int> small_int(std::string_view w) {
  int v = 0;
  auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec != std::errc() || p == w.data()) return std::nullopt;
  return v;
}

std::string hex8(unsigned long v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%08lx", v);
  return buf;
}

std::string_view next_word(std::string_view s, std::size_t& i) {
  while (i < s.size() && s[i] == ' ') ++i;
  std::size_t j = i;
  while (j < s.size() && s[j] != ' ') ++j;
  std::string_view w = s.substr(i, j - i);
  i = j;
  return w;
}

/// `(GPC 1, TPC 3, SM 0)` anywhere in `detail` -> gpc/tpc/sm fields.
void read_gpc(core::Event& e, std::string_view detail) {
  std::size_t p = detail.find("(GPC ");
  if (p == std::string_view::npos) return;
  std::string_view r = detail.substr(p + 1, detail.find(')', p) - p - 1);
  for (std::string_view key : {"GPC ", "TPC ", "SM "}) {
    std::size_t k = r.find(key);
    if (k == std::string_view::npos) continue;
    if (auto v = small_int(r.substr(k + key.size()))) {
      std::string name(key.substr(0, key.size() - 1));
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      e.set_int(name, *v);
    }
  }
}

/// Xid 154: `GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)`.
void read_recovery(core::Event& e, std::string_view detail) {
  std::size_t to = detail.rfind(" to 0x");
  if (to == std::string_view::npos) return;
  std::size_t open = detail.find('(', to), close = detail.find(')', to);
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return;
  std::string what(detail.substr(open + 1, close - open - 1));
  e.set("recovery_action", what);
  std::string lower = what;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("reboot") != std::string::npos) e.set("action", "reboot_node");
  else if (lower.find("reset") != std::string::npos || lower.find("flr") != std::string::npos ||
           lower.find("drain") != std::string::npos)
    e.set("action", "reset_gpu");
  else if (lower == "none") e.set("action", "ignore");
}

}  // namespace

const XidCode* find_xid_code(int code) {
  auto it = std::lower_bound(std::begin(kCodes), std::end(kCodes), code,
                             [](const XidCode& x, int c) { return x.code < c; });
  return it != std::end(kCodes) && it->code == code ? it : nullptr;
}

std::optional<std::string> normalise_bdf(std::string_view pci) {
  if (pci.substr(0, 4) == "PCI:") pci.remove_prefix(4);
  if (std::size_t dot = pci.rfind('.'); dot != std::string_view::npos && dot > pci.rfind(':')) pci = pci.substr(0, dot);
  std::array<std::string_view, 3> parts;
  std::size_t n = 0, start = 0;
  for (std::size_t i = 0; i <= pci.size(); ++i) {
    if (i < pci.size() && pci[i] != ':') continue;
    if (n == 3) return std::nullopt;
    parts[n++] = pci.substr(start, i - start);
    start = i + 1;
  }
  if (n == 2) {
    parts = {std::string_view("0"), parts[0], parts[1]};
    n = 3;
  }
  if (n != 3 || !is_hex(parts[0]) || !is_hex(parts[1]) || !is_hex(parts[2]) || parts[1].size() > 2 || parts[2].size() > 2)
    return std::nullopt;
  std::string_view domain = parts[0].size() > 4 ? parts[0].substr(parts[0].size() - 4) : parts[0];
  std::string out(4 - domain.size(), '0');
  out += domain;
  out += ':';
  if (parts[1].size() == 1) out += '0';
  out += parts[1];
  out += ':';
  if (parts[2].size() == 1) out += '0';
  out += parts[2];
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<NvlinkDetail> parse_nvlink_detail(std::string_view detail) {
  std::size_t i = 0;
  NvlinkDetail d;
  d.unit = std::string(next_word(detail, i));
  if (d.unit.empty() || !(std::isupper(static_cast<unsigned char>(d.unit[0])))) return std::nullopt;
  for (char c : d.unit)
    if (!(std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '/'))
      return std::nullopt;
  std::string_view sev = next_word(detail, i);
  if (sev != "Fatal" && sev != "Nonfatal") return std::nullopt;
  d.severity = std::string(sev);
  // `XC0 i0 Link 08 (0x… 0x… …)`; a cut line keeps what it has.
  while (i < detail.size()) {
    std::size_t before = i;
    std::string_view w = next_word(detail, i);
    if (w.empty()) break;
    if (w == "Link") {
      std::string_view n = next_word(detail, i);
      d.link = small_int(n);
      continue;
    }
    if (w[0] == '(') {
      std::string_view words = detail.substr(before);
      words.remove_prefix(words.find('(') + 1);
      std::size_t k = 0;
      std::string_view w0 = next_word(words, k);
      std::string_view w1 = next_word(words, k);
      auto strip = [](std::string_view x) {
        while (!x.empty() && x.back() == ')') x.remove_suffix(1);
        return x;
      };
      d.intrinfo = hex_word(strip(w0));
      if (!w1.empty()) d.error_status = hex_word(strip(w1));
      break;
    }
  }
  return d;
}

void enrich_xid_event(core::Event& e) {
  if (e.kind != core::kind::kXid) return;
  std::string pci = e.field_or("pci");
  if (auto bdf = normalise_bdf(pci)) e.set("bdf", *bdf);
  const bool sxid = e.field("sxid") != nullptr;
  if (sxid) {
    std::string fatality = e.field_or("fatality");
    e.severity = fatality == "Fatal" ? core::Severity::critical : fatality == "Non-fatal" ? core::Severity::warning : e.severity;
    const std::string detail = e.field_or("detail");
    if (detail.substr(0, 5) == "Link ") {
      std::size_t i = 5;
      std::size_t j = i;
      while (j < detail.size() && std::isdigit(static_cast<unsigned char>(detail[j]))) ++j;
      if (auto link = j > i ? small_int(detail.substr(i, j - i)) : std::nullopt) {
        e.set_int("link", *link);
        while (j < detail.size() && detail[j] == ' ') ++j;
        if (j < detail.size()) e.set("sxid_message", std::string(detail.substr(j)));
      }
    }
    return;
  }
  if (core::fact::provides(e, core::fact::kFallenOffBus) && e.field("xid") == nullptr) {
    e.set_int("xid", 79);
    e.set_int("xid_inferred", 1);
  }
  const core::Field* xf = e.field("xid");
  if (xf == nullptr) return;
  auto code = small_int(xf->value);
  if (!code) return;
  const XidCode* c = find_xid_code(*code);
  if (c != nullptr) {
    e.set("xid_name", std::string(c->name));
    e.set("xid_class", std::string(c->cls));
    e.set("action", std::string(c->action));
    e.severity = c->severity;
  } else {
    e.set("xid_class", "unknown");
    e.set("action", "contact_support");
  }
  const std::string detail = e.field_or("detail");
  if (*code >= 144 && *code <= 150) {
    if (auto d = parse_nvlink_detail(detail)) {
      e.set("nvlink_unit", d->unit);
      e.set("nvlink_severity", d->severity);
      if (d->link) e.set_int("link", *d->link);
      if (d->intrinfo) {
        e.set("intrinfo", hex8(*d->intrinfo));
        e.set_int("nvlink_subcode", static_cast<std::int64_t>((*d->intrinfo >> 20) & 0x3F));
      }
      if (d->error_status) e.set("error_status", hex8(*d->error_status));
      const bool fatal = d->severity == "Fatal";
      e.severity = fatal ? core::Severity::critical : core::Severity::warning;
      e.set("action", fatal ? "reset_gpu" : "ignore");
    }
  } else if (*code == 154) {
    read_recovery(e, detail);
  } else if (*code == 74) {
    if (std::size_t p = detail.find(" on link "); p != std::string_view::npos)
      if (auto link = small_int(detail.substr(p + 9))) e.set_int("link", *link);
  }
  read_gpc(e, detail);
}

}  // namespace culprit::ingest
