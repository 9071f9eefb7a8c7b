// TEMPORARY definition of diagnose::to_string(Confidence) so the report module links before
// main's src/diagnose lands. Delete after merging main.
#include "culprit/diagnose/finding.hpp"

namespace culprit::diagnose {

const char* to_string(Confidence c) {
  switch (c) {
    case Confidence::high: return "high";
    case Confidence::medium: return "medium";
    case Confidence::low: return "low";
  }
  return "low";
}

}  // namespace culprit::diagnose
