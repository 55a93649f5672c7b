#!/usr/bin/env bash
# `make bench`: gateway overhead, zest vs direct llama-server, download
# throughput, zest pull vs curl, and memory prediction accuracy.
# Results are appended to bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
node bench/gateway_overhead.mjs "$@"
# Cold start (zest vs llama-server's own start) and zest's idle RSS.
node bench/cold_start.mjs
# Download throughput: zest pull (1 and 4 connections) vs curl -o.
node bench/download.mjs
# Memory prediction accuracy: the placement ledger vs the engine's RSS.
node bench/placement_accuracy.mjs
# Metrics overhead: the 16-stream benchmark with metrics on vs off.
node bench/metrics_overhead.mjs
# Load held (p99 gateway overhead under 5 ms) and the chaos run's figures.
node bench/chaos.mjs
# CPU threads per engine with one and two CPU engines computing at once.
node bench/cpu_threads.mjs
# Experimental prefill/decode split, CPU + llvmpipe (needs the Vulkan rootfs).
node bench/prefill_split.mjs
# The engine bridge in front of FastFlowLM: direct TCP vs through the bridge.
node bench/engine_bridge.mjs
# Supervision under a kill storm (default settings) and a doomed model.
node bench/supervision.mjs
# Speech to text: zest vs whisper-server directly, 53 s and 5 min of audio.
node bench/transcription.mjs
# API translation: the same model through the OpenAI, Ollama and Anthropic routes.
node bench/api_translation.mjs
# The Responses store: stored (a file per response) vs not, one and 8 at once.
node bench/response_store.mjs
# Scale-out: one node direct vs through HAProxy, one and two nodes.
node bench/haproxy.mjs
# One model across machines: all on the head vs split with a `zest worker`.
node bench/rpc.mjs
# Speculative decoding: a draft model (agreeing, and by chance) and n-gram drafting.
node bench/speculative.mjs
# Conversations and the prompt cache: the ledger's cache, two nodes behind
# HAProxy with sessions, model swaps against llama-server's router, first turns.
node bench/prompt_cache.mjs
