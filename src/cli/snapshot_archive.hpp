// `culprit run --archive` / `culprit collect --archive`: an incident folder as one .tar.zst that
// `culprit FILE.tar.zst` reads like the folder (the member paths keep the folder's own name).
#pragma once

#include <string>

namespace culprit::cli {

/// Writes every regular file under `folder` into `archive` (pax tar, zstd). Returns an error
/// message, or empty. The archive is written beside and renamed into place.
std::string write_tar_zst(const std::string& folder, const std::string& archive);

}  // namespace culprit::cli
