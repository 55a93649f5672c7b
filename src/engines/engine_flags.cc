#include "engines/engine_flags.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace zest::engines {
namespace fs = std::filesystem;
namespace {

// Longer than any template or grammar a user writes by hand; keeps a
// config or request from handing the engine megabytes on its command line.
constexpr std::size_t kMaxTextBytes = 256 * 1024;

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = s.find(',', start);
    items.push_back(s.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

bool ParseInt(const std::string& s, double min, double max) {
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty() && v >= min && v <= max;
}

bool ParseNumber(const std::string& s, double min, double max) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty() && std::isfinite(v) &&
         v >= min && v <= max;
}

bool IsChoice(const FlagSpec& spec, const std::string& s) {
  return std::find(spec.choices.begin(), spec.choices.end(), s) != spec.choices.end();
}

std::string Choices(const FlagSpec& spec) {
  std::string out;
  for (std::string_view c : spec.choices) out += (out.empty() ? "" : ", ") + std::string(c);
  return out;
}

// What a value of this kind looks like, for the error message.
std::string Expected(const FlagSpec& spec) {
  switch (spec.value) {
    case FlagValue::kNone:
      return "no value";
    case FlagValue::kInt:
    case FlagValue::kIntPair:
      return "an integer";
    case FlagValue::kNumber:
      return "a number";
    case FlagValue::kChoice:
      return "one of " + Choices(spec);
    case FlagValue::kChoiceList:
      return "a comma-separated list of " + Choices(spec);
    case FlagValue::kText:
      return "text without NUL bytes, at most 256 KiB";
    case FlagValue::kPath:
      return "a file path";
    case FlagValue::kPathList:
      return "comma-separated file paths";
    case FlagValue::kScaledPathList:
      return "comma-separated FILE:SCALE pairs";
  }
  return "a value";
}

// The part of a FILE:SCALE item before its last ':', and whether the scale
// after it is a number.
bool SplitScaled(const std::string& item, std::string* file, std::string* scale) {
  std::size_t colon = item.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  *file = item.substr(0, colon);
  *scale = item.substr(colon + 1);
  return ParseNumber(*scale, -1e6, 1e6);
}

bool ValidValue(const FlagSpec& spec, const std::string& v) {
  switch (spec.value) {
    case FlagValue::kNone:
      return false;
    case FlagValue::kInt:
    case FlagValue::kIntPair:
      return ParseInt(v, spec.min, spec.max);
    case FlagValue::kNumber:
      return ParseNumber(v, spec.min, spec.max);
    case FlagValue::kChoice:
      return IsChoice(spec, v);
    case FlagValue::kChoiceList: {
      auto items = SplitCommas(v);
      return std::all_of(items.begin(), items.end(),
                         [&spec](const std::string& i) { return IsChoice(spec, i); });
    }
    case FlagValue::kText:
      return v.size() <= kMaxTextBytes && v.find('\0') == std::string::npos;
    case FlagValue::kPath:
      return !v.empty() && v.find('\0') == std::string::npos;
    case FlagValue::kPathList: {
      auto items = SplitCommas(v);
      return std::none_of(items.begin(), items.end(), [](const std::string& i) {
        return i.empty() || i.find('\0') != std::string::npos;
      });
    }
    case FlagValue::kScaledPathList: {
      std::string file, scale;
      auto items = SplitCommas(v);
      return std::all_of(items.begin(), items.end(), [&](const std::string& i) {
        return SplitScaled(i, &file, &scale) && file.find('\0') == std::string::npos;
      });
    }
  }
  return false;
}

int ValueCount(FlagValue kind) {
  if (kind == FlagValue::kNone) return 0;
  return kind == FlagValue::kIntPair ? 2 : 1;
}

const FlagSpec* FindSpec(const FlagTable& table, std::string_view name) {
  for (const FlagSpec& spec : table.allowed) {
    if (std::find(spec.names.begin(), spec.names.end(), name) != spec.names.end()) return &spec;
  }
  return nullptr;
}

// "'--a_b'" or, when normalising changed it, "'--a_b' (read as --a-b)".
std::string Named(std::string_view given, const std::string& normalized) {
  std::string name(given.substr(0, given.find('=')));
  if (name == normalized) return "'" + name + "'";
  return "'" + name + "' (read as " + normalized + ")";
}

Status Refuse(const FlagTable& table, std::string_view given, const std::string& name) {
  for (const OwnedFlag& owned : table.owned) {
    if (owned.name == name) {
      return InvalidArgument("extra engine argument " + Named(given, name) + " is reserved (" +
                             std::string(owned.why) + ")");
    }
  }
  return InvalidArgument("extra engine argument " + Named(given, name) +
                         " is not allowed: " + "zest passes only the " + std::string(table.engine) +
                         " flags listed in the README (Engine flags) to the engine");
}

bool InsideRoot(const fs::path& file, const std::vector<fs::path>& roots) {
  for (const fs::path& root : roots) {
    fs::path rel = file.lexically_relative(root);
    if (!rel.empty() && *rel.begin() != ".." && rel != ".") return true;
  }
  return false;
}

Result<fs::path> ResolveOne(const std::string& given, const std::string& flag,
                            const std::vector<fs::path>& roots) {
  std::error_code ec;
  fs::path file = fs::canonical(given, ec);
  if (ec || !fs::is_regular_file(file, ec)) {
    return InvalidArgument("extra engine argument '" + flag + "': " + given +
                           " is not an existing file");
  }
  // The engine reads these lists by splitting on ',' and ':'.
  if (!InsideRoot(file, roots) || file.string().find_first_of(",:") != std::string::npos) {
    return InvalidArgument("extra engine argument '" + flag + "': " + given +
                           " is not among the files zest serves (the models directory and the "
                           "Hugging Face store); put it there first");
  }
  return file;
}

}  // namespace

std::string NormalizeFlagName(std::string_view arg) {
  std::string name(arg.substr(0, arg.find('=')));
  if (name.starts_with("--")) std::replace(name.begin() + 2, name.end(), '_', '-');
  return name;
}

Result<std::vector<EngineFlag>> ParseEngineFlags(const std::vector<std::string>& args,
                                                 const FlagTable& table) {
  std::vector<EngineFlag> flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      return InvalidArgument("extra engine argument '" + arg +
                             "' is not a flag (a value must follow its flag)");
    }
    const std::string name = NormalizeFlagName(arg);
    const FlagSpec* spec = FindSpec(table, name);
    if (spec == nullptr) return Refuse(table, arg, name);
    EngineFlag flag{std::string(spec->names.front()), {}, spec->value};
    const int count = ValueCount(spec->value);
    std::size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      if (count != 1) {
        return InvalidArgument("extra engine argument " + Named(arg, name) +
                               (count == 0 ? " takes no value" : " takes two values"));
      }
      flag.values.push_back(arg.substr(eq + 1));
    } else {
      for (int n = 0; n < count; ++n) {
        if (++i >= args.size()) {
          return InvalidArgument("extra engine argument " + Named(arg, name) + " needs " +
                                 Expected(*spec));
        }
        flag.values.push_back(args[i]);
      }
    }
    for (const std::string& v : flag.values) {
      if (!ValidValue(*spec, v)) {
        return InvalidArgument("extra engine argument " + Named(arg, name) + ": '" + v +
                               "' is not " + Expected(*spec));
      }
    }
    flags.push_back(std::move(flag));
  }
  return flags;
}

std::vector<std::string> FlagArgv(const std::vector<EngineFlag>& flags) {
  std::vector<std::string> argv;
  for (const EngineFlag& flag : flags) {
    argv.push_back(flag.name);
    argv.insert(argv.end(), flag.values.begin(), flag.values.end());
  }
  return argv;
}

Result<std::vector<fs::path>> ResolveFlagPaths(std::vector<EngineFlag>& flags,
                                               const std::vector<fs::path>& roots) {
  std::vector<fs::path> canonical_roots;
  for (const fs::path& root : roots) {
    std::error_code ec;
    fs::path c = fs::canonical(root, ec);
    if (!ec) canonical_roots.push_back(c);
  }
  std::vector<fs::path> files;
  for (EngineFlag& flag : flags) {
    if (flag.kind != FlagValue::kPath && flag.kind != FlagValue::kPathList &&
        flag.kind != FlagValue::kScaledPathList) {
      continue;
    }
    std::vector<std::string> items = flag.kind == FlagValue::kPath
                                         ? std::vector<std::string>{flag.values[0]}
                                         : SplitCommas(flag.values[0]);
    std::string rewritten;
    for (const std::string& item : items) {
      std::string file = item, scale;
      if (flag.kind == FlagValue::kScaledPathList) SplitScaled(item, &file, &scale);
      ZEST_ASSIGN_OR_RETURN(fs::path resolved, ResolveOne(file, flag.name, canonical_roots));
      if (!rewritten.empty()) rewritten += ',';
      rewritten += resolved.string() + (scale.empty() ? "" : ":" + scale);
      if (std::find(files.begin(), files.end(), resolved) == files.end()) files.push_back(resolved);
    }
    flag.values[0] = rewritten;
  }
  return files;
}

}  // namespace zest::engines
