// deploy/: the Prometheus config and alert rules pass promtool, and every
// metric the Grafana dashboard and the alerts query is one zest exports.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chatBody, makeHome, repo, startZest } from '../lib/zest.mjs';
import { exportedFamilies, promtool } from '../lib/prometheus.mjs';

const deploy = path.join(repo, 'deploy');

// zest_ metric names in PromQL text; histogram series name their family.
function metricNames(expr) {
  return [...expr.matchAll(/\bzest_[a-zA-Z0-9_]+/g)]
    .map((m) => m[0].replace(/_(bucket|sum|count)$/, ''));
}

// Every `expr` anywhere in the dashboard (panels, nested rows, variables).
function dashboardExprs(node, out = []) {
  if (Array.isArray(node)) node.forEach((n) => dashboardExprs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'expr' || k === 'definition') && typeof v === 'string') out.push(v);
      else dashboardExprs(v, out);
    }
  }
  return out;
}

describe('deploy/', () => {
  let zest;
  let families;
  before(async () => {
    zest = await startZest({ home: makeHome({ tiny: 'tiny' }) });
    // A request first, so per-model families have children too.
    assert.equal((await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2 }))).status, 200);
    families = exportedFamilies(await (await zest.fetch('/metrics')).text());
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('promtool accepts prometheus.yml (with its rule file) and alerts.yml', async () => {
    const config = await promtool(['check', 'config', path.join(deploy, 'prometheus.yml')]);
    assert.equal(config.code, 0, config.stdout + config.stderr);
    assert.match(config.stdout, /1 rule files found/);
    const rules = await promtool(['check', 'rules', path.join(deploy, 'alerts.yml')]);
    assert.equal(rules.code, 0, rules.stdout + rules.stderr);
    assert.match(rules.stdout, /SUCCESS: 5 rules found/);
  });

  test('the Grafana dashboard parses and queries only metrics zest exports', () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(deploy, 'grafana/zest.json'), 'utf8'));
    const exprs = dashboardExprs(dashboard.panels);
    assert.ok(exprs.length >= 14, `only ${exprs.length} queries`);
    const names = new Set(exprs.flatMap(metricNames));
    for (const name of names) assert.ok(families.has(name), `${name} is not exported by zest`);
    // The panels: latencies, tokens/s, queue, devices, loads/evictions.
    for (const wanted of ['zest_time_to_first_token_seconds', 'zest_inter_token_latency_seconds',
      'zest_request_duration_seconds', 'zest_completion_tokens_total', 'zest_queue_depth',
      'zest_device_memory_used_bytes', 'zest_device_utilisation_percent', 'zest_engine_starts_total',
      'zest_evictions_total']) {
      assert.ok(names.has(wanted), `no panel shows ${wanted}`);
    }
    const variables = dashboardExprs(dashboard.templating);
    for (const name of variables.flatMap(metricNames)) assert.ok(families.has(name), name);
  });

  test('every metric the alert rules use is one zest exports', () => {
    const rules = fs.readFileSync(path.join(deploy, 'alerts.yml'), 'utf8');
    const exprs = [...rules.matchAll(/expr: \|?\n?([\s\S]*?)\n\s+(?:for|labels):/g)].map((m) => m[1]);
    assert.equal(exprs.length, 5);
    for (const name of exprs.flatMap(metricNames)) assert.ok(families.has(name), `${name} is not exported`);
  });
});
