// Build-time tool: the timeline schema (src/store/schema.sql) applied to an empty database, written
// as the bytes of that database file, so a new timeline copies its pages (Database::ensure_schema)
// instead of parsing and running 17 CREATE statements at every start (~3 M instructions, a tenth
// of a 50 KB paste's run).
//
// Usage: culprit_schema_image_gen OUT.cpp SCHEMA.sql
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tools/cpp_literal.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s OUT.cpp SCHEMA.sql\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  std::stringstream schema;
  schema << in.rdbuf();
  sqlite3* db = nullptr;
  if (!in || sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  char* error = nullptr;
  if (sqlite3_exec(db, schema.str().c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::fprintf(stderr, "%s: %s\n", argv[2], error ? error : "cannot apply the schema");
    return 1;
  }
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db, "main", &size, 0);
  if (!bytes || size <= 0) return 1;
  const std::string image(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(size));
  sqlite3_free(bytes);
  sqlite3_close(db);
  return culprit::tools::write_bytes_source(argv[0], argv[1], "src/store/schema.sql", "<string_view>",
                                            "culprit::store::embedded", "schema_image", image);
}
