// Confidence names as the JSON contract spells them.
#include "culprit/diagnose/finding.hpp"

namespace culprit::diagnose {

const char* to_string(Confidence c) {
  switch (c) {
    case Confidence::low: return "low";
    case Confidence::medium: return "medium";
    case Confidence::high: return "high";
  }
  return "low";
}

Confidence parse_confidence(const std::string& text) {
  if (text == "high") return Confidence::high;
  if (text == "medium") return Confidence::medium;
  return Confidence::low;
}

}  // namespace culprit::diagnose
