// Inputs -> sources: paths through input::read_inputs, texts as one source each.
#include "api/inputs.hpp"

#include "culprit/ingest/pipeline.hpp"

#include <string>
#include <string_view>

namespace culprit::api {
namespace {

const std::string& host_of(const Input& in, const Options& options) {
  return in.host.empty() ? options.host : in.host;
}

/// A text held in memory, read as the reader reads standard input (input/reader.cpp).
void read_text(const Input& in, const std::string& host, const input::ReadOptions& read_options,
               core::Diagnostics& problems, const input::SourceHandler& on_source) {
  const std::string& text = *in.text;
  if (input::looks_like_archive(std::string_view(text).substr(0, 512))) {
    input::read_archive_memory(text, in.name, read_options, problems, on_source);
    return;
  }
  input::Source src;
  src.name = in.name;
  src.host = host;
  src.host_from = host.empty() ? std::string() : std::string(input::host_from::kOption);
  src.origin = in.name;
  src.text = text;
  src.from_stdin = true;
  on_source(src);
}

}  // namespace

SourceReader reader_for(const std::vector<Input>& inputs, const Options& options) {
  return [&inputs, &options](core::Diagnostics& problems, const input::SourceHandler& on_source) {
    input::ReadOptions read_options;
    read_options.excludes = options.excludes;
    read_options.folder_is_host = options.input_folder_is_host;
    read_options.max_line_bytes = static_cast<std::size_t>(options.max_line_bytes);
    read_options.piece_bytes = options.piece_bytes;
    read_options.piece_end = [](std::string_view text, bool head, bool must) {
      if (head && !ingest::reads_in_pieces(text)) return input::kWholeInput;
      bool crowded = false;
      const std::size_t end = ingest::quiet_piece_end(text, must, &crowded);
      return end == 0 && crowded ? input::kEndWhenMust : end;
    };
    for (std::size_t i = 0; i < inputs.size();) {
      read_options.default_host = host_of(inputs[i], options);
      if (inputs[i].text) {
        read_text(inputs[i], read_options.default_host, read_options, problems, on_source);
        ++i;
        continue;
      }
      std::vector<std::string> paths;
      for (; i < inputs.size() && !inputs[i].text && host_of(inputs[i], options) == read_options.default_host; ++i)
        paths.push_back(inputs[i].path);
      input::read_inputs(paths, read_options, problems, on_source);
    }
  };
}

}  // namespace culprit::api
