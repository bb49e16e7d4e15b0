// Secrets never reach an output: API keys (as sent: trimmed) and credentials in base URLs (userinfo, key-like query
// parameters) are registered when a client is configured, and every error text, results file and report is passed
// through `redact` before it is written or printed.

const secrets = new Set<string>();
/** Query parameters that carry credentials in the URLs users paste (`?key=`, `?api_key=`, `?token=` ...). */
const SECRET_PARAMS = /^(key|api[-_]?key|apikey|token|access[-_]?token|auth|authorization|secret|password|sig|signature)$/i;
const MIN_SECRET = 6;

/** Remembers a secret value (and its trimmed form) so that redact() hides it. Short values are ignored: hiding
 * "abc" everywhere would mangle the reports more than it protects. */
export function registerSecret(value: string | undefined | null): void {
  if (!value) return;
  for (const v of [value, value.trim()]) if (v.length >= MIN_SECRET) secrets.add(v);
}

/** Registers the credentials a URL carries (userinfo, key-like query values). */
export function registerUrlSecrets(url: string | undefined): void {
  if (!url) return;
  try {
    const u = new URL(url);
    if (u.password) registerSecret(decodeURIComponent(u.password));
    if (u.username && u.password) registerSecret(decodeURIComponent(u.username));
    else if (u.username) registerSecret(decodeURIComponent(u.username));
    for (const [k, v] of u.searchParams) if (SECRET_PARAMS.test(k)) registerSecret(v);
  } catch {
    // not a URL: nothing to register
  }
}

/** A URL fit to print: userinfo and key-like query values replaced by ***. */
export function safeUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  try {
    const u = new URL(url);
    if (u.username) u.username = '***';
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (SECRET_PARAMS.test(k)) u.searchParams.set(k, '***');
    return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '').replace(/%2A%2A%2A/g, '***');
  } catch {
    return url;
  }
}

/** Text with every registered secret replaced by ***. */
export function redact(text: string): string {
  if (!secrets.size || !text) return text;
  let out = text;
  // Longest first, so a secret that contains another is hidden whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (out.includes(s)) out = out.split(s).join('***');
  return out;
}

/** The secrets registered so far (the cache checks that none is written into an entry). */
export function knownSecrets(): string[] {
  return [...secrets];
}

/** Tests only. */
export function forgetSecrets(): void {
  secrets.clear();
}
