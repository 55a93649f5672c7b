// Directories zest creates are private: 0700, whatever the umask, because
// they hold prompts (saved slots), engine sockets, keys and models. Existing
// directories are left as they are (a shared Hugging Face cache may be
// group-readable on purpose).
#pragma once

#include <filesystem>

#include "core/result.h"

namespace zest {

// mkdir -p where every directory created is 0700. kIoError naming the path
// when one cannot be created or exists as something else.
Status CreatePrivateDirectories(const std::filesystem::path& dir);

}  // namespace zest
