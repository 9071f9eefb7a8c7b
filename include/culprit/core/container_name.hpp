// The one test of a container (or Kubernetes) name culprit may put into a command it suggests: a
// name from a log is a stranger's text, and `docker stop NAME` is pasted into a shell.
#pragma once

#include <string_view>

namespace culprit::core {

/// Whether `name` is a name Docker gives or accepts (`[a-zA-Z0-9][a-zA-Z0-9_.-]*`): only such a
/// name may go into a command culprit suggests (`docker stop NAME`); a name a log claims
/// otherwise (`vllm;curl …|sh`) is shown as text, never as something to paste into a shell.
inline bool is_docker_default_hostname(std::string_view name);

inline bool is_docker_name(std::string_view name) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (name.empty() || name.size() > 255 || !alnum(name.front())) return false;
  for (char c : name)
    if (!alnum(c) && c != '_' && c != '.' && c != '-') return false;
  return true;
}

/// Whether `name` is a Kubernetes object name culprit may put into a command it suggests
/// (`kubectl delete pod -n NAMESPACE NAME`): a DNS-1123 subdomain (pods: lower-case letters,
/// digits, `-` and `.`, starting and ending with a letter or digit, 253 bytes at most), or with
/// `label` a DNS-1123 label (namespaces: no `.`, 63 bytes at most).
inline bool is_kubernetes_name(std::string_view name, bool label = false) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (name.empty() || name.size() > (label ? 63u : 253u) || !alnum(name.front()) || !alnum(name.back())) return false;
  for (char c : name)
    if (!alnum(c) && c != '-' && !(c == '.' && !label)) return false;
  return true;
}

/// Whether `name` is the hostname Docker gives a container by default: the first 12 hex digits
/// of its id (`7d2e91c4b05a`), what a shell prompt inside it shows (`root@7d2e91c4b05a:/#`).
inline bool is_docker_default_hostname(std::string_view name) {
  if (name.size() != 12) return false;
  for (char c : name)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace culprit::core
