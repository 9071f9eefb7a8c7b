// culprit._culprit: libculprit (include/culprit/culprit.hpp) for Python. The analysis and the
// rendering run with the GIL released, so other Python threads go on meanwhile; a typed
// culprit::Error becomes an instance of the matching culprit.Error subclass with its message,
// `code` and `diagnostics`. python/culprit/__init__.py is the documented face of this.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "culprit/culprit.hpp"
#include "culprit/timeline.hpp"

namespace py = pybind11;

namespace {

/// One input as __init__.py hands it over: ("path", PATH, HOST, '') or ("text", TEXT, HOST, NAME).
using RawInput = std::tuple<std::string, py::bytes, std::string, std::string>;

struct Exceptions {
  py::object base, invalid_option, no_input, database, rules;
  const py::object& of(culprit::Errc code) const {
    switch (code) {
      case culprit::Errc::invalid_option: return invalid_option;
      case culprit::Errc::no_input: return no_input;
      case culprit::Errc::database:
      case culprit::Errc::not_found:  // a saved timeline's (culprit/timeline.hpp, query())
      case culprit::Errc::not_a_timeline:
      case culprit::Errc::query: return database;
      case culprit::Errc::rules: return rules;
    }
    return base;
  }
};

Exceptions& exceptions() {
  static Exceptions* e = new Exceptions();  // lives as long as the interpreter (never freed)
  return *e;
}

py::object new_exception(py::module_& m, const char* name, const char* doc, py::handle bases) {
  PyObject* cls = PyErr_NewExceptionWithDoc((std::string("culprit.") + name).c_str(), doc, bases.ptr(), nullptr);
  if (!cls) throw py::error_already_set();
  auto obj = py::reinterpret_steal<py::object>(cls);
  m.attr(name) = obj;
  return obj;
}

[[noreturn]] void raise(const culprit::Error& error) {
  const py::object& cls = exceptions().of(error.code);
  py::object exc = cls(error.message);
  exc.attr("code") = std::string(culprit::to_string(error.code));
  py::list diagnostics;
  for (const auto& d : error.diagnostics) diagnostics.append(d.to_string());
  exc.attr("diagnostics") = diagnostics;
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw py::error_already_set();
}

culprit::Format format_of(const std::string& name) {
  const auto f = culprit::parse_format(name);
  if (!f) raise({culprit::Errc::invalid_option, "unknown format '" + name + "' (text, markdown, json or html)", {}});
  return *f;
}

std::shared_ptr<culprit::Analysis> analyze(const std::vector<RawInput>& raw, const culprit::Options& options) {
  std::vector<culprit::Input> inputs;
  inputs.reserve(raw.size());
  for (const auto& [kind, value, host, name] : raw) {
    std::string bytes = value;  // a copy made with the GIL held
    if (kind == "text")
      inputs.push_back(culprit::Input::memory(std::move(bytes), host, name));
    else
      inputs.push_back(culprit::Input::file(std::move(bytes), host));
  }
  std::optional<culprit::Result<culprit::Analysis>> result;
  {
    // The rules (built-in or `rules=` folders) are loaded once per process and per edit of
    // their files: Rules::load keeps the sets it loaded.
    py::gil_scoped_release unlocked;
    result.emplace(culprit::analyze(inputs, options));
  }
  if (!*result) raise(result->error());
  return std::make_shared<culprit::Analysis>(std::move(*result).value());
}

std::string render(const culprit::Analysis& analysis, const std::string& format, bool color, int width, bool redact) {
  const culprit::Format f = format_of(format);
  culprit::RenderOptions options;
  options.color = color;
  options.width = width;
  options.redact = redact;
  py::gil_scoped_release unlocked;
  return culprit::render(analysis, f, options);
}

/// One cell as Python's value: None, int, float, str (bytes that are not UTF-8 replaced) or bytes
/// (a blob).
py::object cell_object(const culprit::Cell& cell) {
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return py::int_(*i);
  if (const auto* b = std::get_if<culprit::Blob>(&cell)) return py::bytes(b->bytes);
  if (const auto* d = std::get_if<double>(&cell)) return py::float_(*d);
  if (const auto* s = std::get_if<std::string>(&cell)) {
    PyObject* text = PyUnicode_DecodeUTF8(s->data(), static_cast<Py_ssize_t>(s->size()), "replace");
    if (!text) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(text);
  }
  return py::none();
}

/// culprit::query's rows as a list of dicts keyed by column (what `culprit query --json` prints).
py::list query(const std::string& db_path, const std::string& sql, double timeout) {
  std::optional<culprit::Result<culprit::Table>> result;
  {
    py::gil_scoped_release unlocked;
    culprit::QueryOptions options;
    options.timeout_seconds = timeout;
    result.emplace(culprit::query(db_path, sql, options));
  }
  if (!*result) raise(result->error());
  const culprit::Table& table = result->value();
  py::list rows;
  for (const auto& row : table.rows) {
    py::dict object;
    for (std::size_t i = 0; i < table.columns.size() && i < row.size(); ++i)
      object[py::str(table.columns[i])] = cell_object(row[i]);
    rows.append(object);
  }
  return rows;
}

}  // namespace

PYBIND11_MODULE(_culprit, m) {
  m.doc() = "libculprit's analysis and rendering (use the `culprit` package, not this module)";
  auto& e = exceptions();
  e.base = new_exception(m, "Error", "culprit could not diagnose: the message says why (`code`, `diagnostics`).",
                         PyExc_Exception);
  e.invalid_option = new_exception(m, "InvalidOptionError", "An option out of its range or choices.",
                                   py::make_tuple(e.base, py::handle(PyExc_ValueError)));
  e.no_input = new_exception(m, "NoInputError", "Nothing given, or nothing given could be read.", e.base);
  e.database = new_exception(m, "DatabaseError", "The timeline database could not be written.", e.base);
  e.rules = new_exception(m, "RulesError", "A rule file (rules=) has errors.", e.base);

  py::class_<culprit::Analysis, std::shared_ptr<culprit::Analysis>>(m, "Analysis")
      .def_property_readonly("diagnostics",
                             [](const culprit::Analysis& a) {
                               std::vector<std::string> out;
                               for (const auto& d : a.diagnostics) out.push_back(d.to_string());
                               return out;
                             })
      .def_property_readonly("sources", [](const culprit::Analysis& a) { return a.sources; })
      .def_property_readonly("db_path", [](const culprit::Analysis& a) { return a.db_path; })
      .def_property_readonly("has_errors", &culprit::Analysis::has_errors)
      .def("render", &render, py::arg("format"), py::arg("color") = false, py::arg("width") = 100,
           py::arg("redact") = false);

  m.def(
      "analyze",
      [](const std::vector<RawInput>& inputs, const std::string& host, const std::vector<std::string>& excludes,
         const std::vector<std::string>& rule_dirs, int year, const std::string& tz,
         const std::vector<std::string>& boot_times, std::int64_t max_events, std::int64_t max_line_bytes,
         unsigned threads, double rule_timeout, bool prefilter, const std::string& db_path) {
        culprit::Options o;
        o.host = host;
        o.excludes = excludes;
        o.rule_dirs = rule_dirs;
        o.year = year;
        o.tz = tz;
        o.boot_times = boot_times;
        o.max_events = max_events;
        o.max_line_bytes = max_line_bytes;
        o.threads = threads;
        o.rule_timeout_seconds = rule_timeout;
        o.prefilter = prefilter;
        o.db_path = db_path;
        return analyze(inputs, o);
      },
      py::arg("inputs"), py::arg("host"), py::arg("excludes"), py::arg("rule_dirs"), py::arg("year"), py::arg("tz"),
      py::arg("boot_times"), py::arg("max_events"), py::arg("max_line_bytes"), py::arg("threads"),
      py::arg("rule_timeout"), py::arg("prefilter"), py::arg("db_path"));
  m.def("query", &query, py::arg("db_path"), py::arg("sql"), py::arg("timeout"));
  m.attr("__version__") = std::string(culprit::version());
}
