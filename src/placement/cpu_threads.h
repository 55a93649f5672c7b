// CPU thread budget: how many threads an engine that computes on the CPU
// gets when other such engines already run. ggml's worker threads spin at
// barriers while they wait for each other, so engines that together run more
// threads than there are cores preempt each other's workers mid-barrier and
// all slow to a crawl. Measured with bench/cpu_threads.mjs on 2 cores: two
// engines computing at once gave 54 tokens/s in all with 2 threads each and
// 268 with 1 each; one engine alone gave 253 with 2 threads and 143 with 1.
// So the first CPU engine gets every core and later ones share them. Pure
// functions; tests in cpu_threads_test.cc.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/engine_plan.h"

namespace zest::placement {

// Whether the engine computes some of the model on the CPU: no GPU, layers
// left on the CPU (-ngl below the model's block_count + 1), MoE experts
// kept there, or a software renderer as its GPU (llvmpipe computes with CPU
// threads). A full offload to a real GPU's CPU threads only feed the GPU.
bool ComputesOnCpu(const EnginePlan& plan, uint64_t block_count);

// Threads for a new CPU engine beside `running`, the thread counts of the
// CPU engines already resident (loading or ready): an equal share of `cores`
// among all of them, at least 1. Engines keep their threads once started
// (llama-server takes -t at start only), so a share only shrinks as engines
// are added and grows again for the next engine started after others left.
int CpuThreadShare(int cores, const std::vector<int>& running);

}  // namespace zest::placement
