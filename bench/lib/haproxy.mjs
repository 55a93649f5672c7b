// HAProxy in front of zest nodes with the config `zest haproxy-config`
// writes, logging to stdout instead of syslog.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../tests/lib/prometheus.mjs';
import { waitFor, zestBin } from '../../tests/lib/zest.mjs';

export const haproxyBin = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => fs.existsSync(p));

// HAProxy's version, e.g. "2.8.5-1".
export const haproxyVersion = () => execFileSync(haproxyBin, ['-v'], { encoding: 'utf8' }).split(' ')[2];

// Starts HAProxy for `nodes` (each with a `url`), its config written into
// `dir`; resolves once it answers /ready. Returns {proc, url, stop()}.
export async function startHaproxy(dir, nodes) {
  if (!haproxyBin) throw new Error('haproxy is not installed (apt-get install haproxy)');
  const listen = await freePort();
  const config = execFileSync(zestBin, ['haproxy-config', '--listen', `127.0.0.1:${listen}`,
    ...nodes.flatMap((n) => ['--node', new URL(n.url).host])], { encoding: 'utf8' })
    .replace('log /dev/log local0', 'log stdout format raw local0 notice');
  const file = path.join(dir, `haproxy-${nodes.length}-${listen}.cfg`);
  fs.writeFileSync(file, config);
  const proc = spawn(haproxyBin, ['-db', '-f', file], { stdio: 'ignore' });
  const exited = new Promise((r) => proc.once('exit', r));
  const url = `http://127.0.0.1:${listen}`;
  await waitFor(async () => (await fetch(`${url}/ready`).then((r) => r.status).catch(() => 0)) === 200,
    { timeout: 10000, what: 'HAProxy' });
  return { proc, url, stop: async () => { proc.kill(); await exited; } };
}
