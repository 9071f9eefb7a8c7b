// The detectors the format table binds (format_table.cpp): one per format, each the anchor that
// opens the format's block and how far it runs (formats.md gives every anchor), and the kernel
// line class with its runs. See FormatSpec for the contract of each kind.
#pragma once

#include <cstddef>
#include <string_view>

#include "ingest/format_table.hpp"

namespace culprit::ingest::detect {

// Blocks: the block an anchor at scan.lines[i] opens, or nothing.
Detection smi_table(Scan& scan, std::size_t i);         ///< nvidia-smi banner or Processes box
Detection free_block(Scan& scan, std::size_t i);        ///< `free` header (`total used free shared`)
Detection meminfo_block(Scan& scan, std::size_t i);     ///< `MemTotal:  N kB` (cat /proc/meminfo)
Detection cgroup_memory_block(Scan& scan, std::size_t i);  ///< `==> …/memory.current <==` (culprit's cgroup.txt)
Detection journal_json(Scan& scan, std::size_t i);      ///< JSON with journald's keys
Detection docker_inspect(Scan& scan, std::size_t i);    ///< JSON with docker's / a Pod's keys
Detection kubectl_describe(Scan& scan, std::size_t i);  ///< `Name:` then `Namespace:` / `Roles:`
Detection smi_q(Scan& scan, std::size_t i);             ///< `==NVSMI LOG==`
Detection smi_xml(Scan& scan, std::size_t i);           ///< `<nvidia_smi_log>` document
Detection smi_csv(Scan& scan, std::size_t i);           ///< `--query-*` CSV header or row
Detection ps_block(Scan& scan, std::size_t i);          ///< a `ps` header with its rows
Detection docker_ps(Scan& scan, std::size_t i);         ///< `CONTAINER ID … IMAGE|STATUS` header
Detection proc_stack(Scan& scan, std::size_t i);        ///< `cat /proc/N/stack` then its frames

// Kernel text: stamped lines (dmesg, syslog / journal, kmsg) and unstamped OOM-report, NVRM and
// memory.stat lines; a run keeps indented continuations and short unstamped interruptions.
bool kernel_line(std::string_view line);
Detection kernel_run(Scan& scan, std::size_t i);

// Command hints: output a typed command announces (see FormatSpec::announced_by).
bool announces_smi_csv(std::string_view command);
bool continues_smi_csv(std::string_view line);
bool announces_smi_q(std::string_view command);
bool continues_smi_q(std::string_view line);
bool announces_proc_stack(std::string_view command);  ///< `cat /proc/N/stack`
bool continues_proc_stack(std::string_view line);     ///< a frame

}  // namespace culprit::ingest::detect
