// Runs the diagnosis rules over a timeline and chooses the incident's verdict.
#pragma once

#include "culprit/diagnose/finding.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/store/database.hpp"

namespace culprit::diagnose {

/// The time one [[diagnosis]] query may run before it is stopped (default of --rule-timeout).
inline constexpr double kRuleQuerySeconds = 30;

/// Assigns roles, runs every [[diagnosis]] query that can fire (one of its `kinds` is in the
/// timeline, or it names none; with the rules' prefilter off, every one), ranks findings, picks root and echoes,
/// builds the culprit and the budget. Never throws for bad data; a failing query is recorded
/// in `problems` and the others still run. Rule queries run read-only (store::QueryGuard): a
/// rule can read the timeline, never change it or any file, and one that runs past
/// `rule_query_seconds` is stopped with a warning naming it.
Verdict diagnose(store::Database& db, const rules::RuleSet& rules, core::Diagnostics& problems,
                 double rule_query_seconds = kRuleQuerySeconds);

}  // namespace culprit::diagnose
