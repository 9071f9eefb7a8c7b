// Runs the diagnosis rules over a timeline and chooses the incident's verdict.
#pragma once

#include "culprit/diagnose/finding.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/store/database.hpp"

namespace culprit::diagnose {

/// Assigns roles, runs every [[diagnosis]] query, ranks findings, picks root and echoes,
/// builds the culprit and the budget. Never throws for bad data; a failing query is recorded
/// in `problems` and the others still run.
Verdict diagnose(store::Database& db, const rules::RuleSet& rules, core::Diagnostics& problems);

}  // namespace culprit::diagnose
