#!/usr/bin/env bash
# `make bench`: every benchmark below, one after another (each is described
# again above its call):
#   gateway_overhead     zest vs direct llama-server: 1-token latency, streams, zest's CPU
#   cold_start           cold start, zest vs llama-server's own; zest's idle RSS
#   download             zest pull (1 and 4 connections) vs curl -o
#   placement_accuracy   the placement ledger's prediction vs the engine's RSS
#   metrics_overhead     16 streams with metrics on vs off
#   chaos                load held (p99 gateway overhead) and the chaos run
#   cpu_threads          CPU threads per engine, one and two CPU engines at once
#   prefill_split        the experimental prefill/decode split, CPU + llvmpipe
#   engine_bridge        direct TCP vs through `zest engine-bridge`
#   supervision          a kill storm with default settings, and a doomed model
#   transcription        speech to text, zest vs whisper-server directly
#   api_translation      the OpenAI, Ollama and Anthropic routes side by side
#   response_store       Responses with store:true vs store:false
#   haproxy              one node direct vs through HAProxy, one and two nodes
#   rpc                  one model all on the head vs split with a `zest worker`
#   speculative          speculative decoding: draft models and n-gram drafting
#   prompt_cache         the prompt-cache ledger, two nodes behind HAProxy, swaps (agents, a chat front-end), first turns
# Not run here (run them on their own): bench/trace_replay.mjs (the mixed
# trace against llama-server's router mode; it records as the others do)
# and bench/profile_gateway.mjs (perf: where zest's time goes on the 1-token
# path; it prints and records nothing).
#
# A benchmark's results count only when the machine was quiet
# (bench/lib/quiet.mjs): load average at most 0.5 a core before it, other
# processes at most half a core and CPU steal at most 5 % during it, the
# baseline's own rounds within 20 % of their median. Each prints its table
# and verdict; only a quiet run is appended to bench/RESULTS.md and rewrites
# the current table at its top (bench/current.json). BENCH_FORCE=1 appends a
# busy run marked "NOT A MEASUREMENT" and leaves the current table alone.
# Run it alone: never beside a build, a test suite or another benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
# Gateway overhead: zest vs a direct llama-server with zest's argv.
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
