// Slot files moved between two engines' slot directories (the prefill and
// decode halves of one request, prefill_handoff.h). Those directories are
// the engines' own: a sandboxed engine can write there, so zest trusts no
// name in them. It moves a regular file only, never a link, and never
// writes through a link planted where the file is going: otherwise an
// engine could have zest overwrite, or hand the other engine, any file zest
// can reach.
#pragma once

#include <filesystem>
#include <string>

#include "core/result.h"

namespace zest::scheduler {

// A descriptor for reading (or, with `flags`, otherwise using) a file in a
// directory an engine can write, or -1 with errno set: never through a link
// (O_NOFOLLOW), never waiting on a FIFO or device the engine put there
// (O_NONBLOCK: an open of a FIFO for reading blocked the I/O thread until a
// writer came, issue 52, 10), and only when fstat says it is a regular
// file (errno EINVAL otherwise). O_NONBLOCK is cleared once the file is
// known to be regular, for which it means nothing anyway.
int OpenEngineFile(const std::filesystem::path& path, int flags);

// Moves `name` from `from_dir` to `to_dir` (a rename where it can, else a
// copy into a file created anew). kInternal when the source is not a
// regular file or the move fails; nothing is left half-written.
Status MoveSlotFile(const std::filesystem::path& from_dir, const std::filesystem::path& to_dir,
                    const std::string& name);

}  // namespace zest::scheduler
