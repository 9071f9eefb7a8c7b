// toml++ compiled into the culprit executable, the way toml++ documents for a program that does
// not load its shared library: one translation unit defines TOML_IMPLEMENTATION. CMakeLists.txt,
// "the C++ runtime", says why.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
