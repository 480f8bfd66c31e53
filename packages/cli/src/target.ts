// Which instance a command talks to, and with which key. Hosts are normalized as the original
// tool does (docs/cli.md, "Which host and key a command uses"); the flags beat the environment, which beats the file.
import type { Credentials, Env } from './config-store.ts';
import { UsageError } from './output.ts';

export const NO_HOST_MESSAGE = 'Please specify a host or set a default via `charta auth`';

/**
 * `localhost` → `http://localhost`; otherwise an http(s) URL reduced to `scheme://host[:port]`
 * (path, query, fragment and trailing slash dropped; default ports dropped; host lower-cased).
 * Anything else is a usage error.
 */
export function normalizeHost(raw: string, what = 'host'): string {
  const text = raw.trim();
  if (text === 'localhost') return 'http://localhost';
  const invalid = (why: string) => new UsageError(`Invalid ${what} '${raw}': ${why}`, { host: raw });
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw invalid('expected http://host[:port] or https://host[:port]');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('the scheme must be http or https');
  if (!url.hostname) throw invalid('the host name is missing');
  if (url.username || url.password) throw invalid('credentials in the URL are not allowed; use --api-key');
  return `${url.protocol}//${url.host}`;
}

export interface TargetFlags {
  host?: string | undefined;
  apiKey?: string | undefined;
}

export interface Target {
  host: string;
  apiKey: string;
}

/**
 * Host: `--host`, else `CHARTA_HOST`, else the stored default. API key: `--api-key`, else
 * `CHARTA_API_KEY`, else the key stored for that host. Empty values count as unset. The store
 * is read only if a value is still missing, so flags alone work even with no credentials file.
 */
export function resolveTarget(flags: TargetFlags, env: Env, store: { load(): Credentials }): Target {
  let credentials: Credentials | undefined;
  const stored = () => (credentials ??= store.load());
  const given = (value: string | undefined) => (value !== undefined && value.trim() !== '' ? value : undefined);

  let host: string;
  if (given(flags.host)) host = normalizeHost(flags.host!);
  else if (given(env.CHARTA_HOST)) host = normalizeHost(env.CHARTA_HOST!, 'CHARTA_HOST');
  else {
    const fallback = stored().default_host;
    if (!fallback) throw new UsageError(NO_HOST_MESSAGE);
    host = normalizeHost(fallback, 'default host');
  }

  const apiKey = given(flags.apiKey) ?? given(env.CHARTA_API_KEY) ?? stored().hosts[host]?.api_key;
  if (!apiKey) {
    throw new UsageError(`No API key for ${host}: pass --api-key, set CHARTA_API_KEY or run \`charta auth add-api-key --host ${host}\``, { host });
  }
  return { host, apiKey };
}
