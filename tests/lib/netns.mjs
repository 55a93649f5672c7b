// Network namespaces for tests whose traffic must cross real interfaces
// (scale-out: nodes behind HAProxy, RPC workers). Root only: each namespace
// gets a veth pair to the host, the host side SUBNET.1, the inside SUBNET.2.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export const isRoot = process.getuid?.() === 0;
// iproute2's `ip` (make test installs it; scripts/deps.sh --test).
export const hasIp = fs.existsSync('/usr/sbin/ip');
export const canMakeNamespaces = isRoot && hasIp;

export const ip = (...args) => execFileSync('/usr/sbin/ip', args, { stdio: 'pipe' });

// A namespace `name` reached from the host over a veth pair whose ends are
// `hostIf` and `peerIf` (15 characters at most) on `subnet` ("10.231.1").
// {ns, host, hostAddress, address, prefix}: `prefix` runs a command inside.
export function makeNamespace(name, hostIf, peerIf, subnet) {
  ip('netns', 'add', name);
  ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', peerIf);
  ip('link', 'set', peerIf, 'netns', name);
  ip('addr', 'add', `${subnet}.1/24`, 'dev', hostIf);
  ip('link', 'set', hostIf, 'up');
  ip('netns', 'exec', name, 'ip', 'addr', 'add', `${subnet}.2/24`, 'dev', peerIf);
  ip('netns', 'exec', name, 'ip', 'link', 'set', peerIf, 'up');
  ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  return {
    ns: name, host: hostIf, hostAddress: `${subnet}.1`, address: `${subnet}.2`,
    prefix: ['/usr/sbin/ip', 'netns', 'exec', name],
  };
}

export function removeNamespace({ ns, host }) {
  try { ip('link', 'del', host); } catch { /* gone with the namespace */ }
  try { ip('netns', 'del', ns); } catch { /* never made */ }
}
