// Random ids from the kernel's random source (getrandom(2)): request ids,
// stored responses' ids, anything a client could otherwise guess. A
// pseudo-random generator seeded once gives its state away after a few
// hundred outputs (a Mersenne Twister after 312 64-bit ones), and with it
// every id that follows.
#pragma once

#include <cstddef>
#include <string>

namespace zest {

// 2 * `bytes` lowercase hex digits of fresh randomness. Throws
// std::system_error only if the kernel has no random source (never on Linux
// ≥ 3.17).
std::string RandomHex(std::size_t bytes);

}  // namespace zest
