// The row shapes of nvidia-smi's default table (formats.md §6.1) that tell the table by
// themselves, without its banner or headers: people paste the GPU rows or the Processes rows cut
// from the top. Shared by the table's parser and its detector, so that both open a table at the
// same lines.
#pragma once

#include <string_view>

namespace culprit::ingest::smi_rows {

/// A process row's Type column: `C`, `G`, `C+G`, `M`, `M+C` (MPS).
bool is_type(std::string_view tok);

/// GPU row line 1 of any driver generation (79, 89, 91 wide):
/// `|   0  Tesla V100-SXM2...  On   | 00000000:00:05.0 Off |                    0 |` — three
/// `|` cells or more, an index, a name and the persistence mode (`On`/`Off`/`N/A`) in the first,
/// a bus id and Disp.A (`On`/`Off`/`N/A`) in the second. A Markdown table of the same facts
/// puts them in cells of their own and is not one.
bool is_gpu_row(std::string_view line);
/// A process row of any generation: `|    0   N/A  N/A      1302      G   /usr/lib/xorg/Xorg   112MiB |`
/// (450+: GPU GI CI PID Type name memory) or `|    0      1302      G   Xorg   112MiB |` (≤ 440):
/// one `|` cell, the GPU index, the ids, the Type column and a `<n>MiB` / `N/A` memory last.
bool is_process_row(std::string_view line);

}  // namespace culprit::ingest::smi_rows
