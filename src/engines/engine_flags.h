// Engine flags a user may pass through (a model's `extra_args`), checked
// against an allow-list per engine kind: each permitted flag with its
// spellings and the type of its value. Anything not on the list is refused,
// whatever it does: new engine releases add flags (llama-server 11669 has
// --mcp-servers-json, which runs commands), and a deny-list loses that race.
//
// Input is normalised the way engines read it before it is checked
// (`--flag=value` split, `_` read as `-` in long flags, any alias), and the
// engine is given the canonical spelling only, so zest and the engine cannot
// read one argument list two ways. Pure, thread-safe.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::engines {

enum class FlagValue {
  kNone,            // a switch
  kInt,             // an integer within [min, max]
  kNumber,          // a decimal number within [min, max]
  kChoice,          // one of `choices`
  kChoiceList,      // comma-separated, each one of `choices`
  kText,            // free text (a prompt, a grammar, a template): no NUL, bounded
  kPath,            // a file zest serves (see ResolveFlagPaths)
  kPathList,        // comma-separated files
  kScaledPathList,  // comma-separated FILE:SCALE
  kIntPair,         // two integers, two arguments ("START END")
};

struct FlagSpec {
  // Every spelling; the first is the one the engine is given.
  std::vector<std::string_view> names;
  FlagValue value = FlagValue::kNone;
  std::vector<std::string_view> choices;  // kChoice, kChoiceList
  double min = -1e18;                     // kInt, kNumber, kIntPair
  double max = 1e18;
};

// A flag zest refuses with a reason of its own (it sets it itself, or an
// option does), so the error says what to use instead. Flags neither here
// nor allowed are refused with a general reason.
struct OwnedFlag {
  std::string_view name;
  std::string_view why;
};

struct FlagTable {
  std::string_view engine;  // "llama-server", for messages
  std::span<const FlagSpec> allowed;
  std::span<const OwnedFlag> owned;
};

// One checked flag: its canonical name and its values as given (paths not
// yet resolved).
struct EngineFlag {
  std::string name;
  std::vector<std::string> values;
  FlagValue kind = FlagValue::kNone;
};

// Parses and checks `args`. kInvalidArgument naming the first argument that
// is not allowed, or whose value is missing or of the wrong type.
Result<std::vector<EngineFlag>> ParseEngineFlags(const std::vector<std::string>& args,
                                                 const FlagTable& table);

// The flags as the engine's argv: canonical names, each followed by its
// values.
std::vector<std::string> FlagArgv(const std::vector<EngineFlag>& flags);

// Makes the files that path flags name canonical and checks each is a
// regular file below one of `roots` (the directories zest serves models
// from): kInvalidArgument naming the file otherwise. Rewrites the values to
// the canonical paths and returns the files, for the sandbox to bind
// read-only. Reads the filesystem.
Result<std::vector<std::filesystem::path>> ResolveFlagPaths(
    std::vector<EngineFlag>& flags, const std::vector<std::filesystem::path>& roots);

// The normalised spelling of a flag argument: "--a_b=1" → "--a-b". For
// messages and tests.
std::string NormalizeFlagName(std::string_view arg);

}  // namespace zest::engines
