/**
 * DNS-rebinding defence of the local servers (issue 15.8): a page on any site can point its own DNS
 * name at 127.0.0.1 and then read what the local API answers (the ID token of `GET /config.json`, keys,
 * flags) as a same-origin response. The browser still sends the attacker's name in `Host`, so the local
 * API and proxy answer only requests whose `Host` names the loopback address they listen on:
 * `127.0.0.1`, `localhost` or `[::1]`, with their port (or the address they were told to listen on, when
 * it is a literal IP, which no DNS name can be made to stand for). Anything else gets 421.
 *
 * Pure: no I/O.
 * @module
 */

/** The loopback names a browser on this machine uses. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

/**
 * The `Host` values a server listening on `listenHost:port` answers (lower case).
 *
 * @example allowedHosts('127.0.0.1', 8787) // ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']
 */
export function allowedHosts(listenHost: string, port: number): ReadonlySet<string> {
  const names = new Set<string>(LOOPBACK_NAMES);
  const literal = listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost;
  if (!WILDCARD_HOSTS.has(listenHost) && isIpLiteral(literal)) names.add(literal.toLowerCase());
  const out = new Set<string>();
  for (const name of names) {
    out.add(`${name}:${port}`);
    // Browsers leave the default port out of Host.
    if (port === 80) out.add(name);
  }
  return out;
}

/** True when a request's `Host` header is one of `allowed` (see {@link allowedHosts}). */
export function hostAllowed(host: string | undefined, allowed: ReadonlySet<string>): boolean {
  return host !== undefined && allowed.has(host.toLowerCase());
}

/** The 421 body, naming what would be accepted (no echo of the rejected value). */
export function misdirectedMessage(port: number): string {
  return `Misdirected request: this local server answers only Host 127.0.0.1:${port}, localhost:${port} or [::1]:${port} (DNS-rebinding protection)`;
}

function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || /^\[[0-9a-f:.]+\]$/i.test(host);
}
