// What the loaders share to read untrusted input: UTF-8 text or nothing (binary), the reason a read failed, a
// plain-object check for parsed JSON, and the fix for a catalogue path that is neither a folder nor a JSON list.
export const CATALOGUE_FIX = 'give a folder of skills (each in its own folder with a SKILL.md) or a JSON file [{"name": ..., "description": ...}]';

/** The text of a file, or null when it is binary (a NUL byte in its first 8000) or not valid UTF-8. */
export function decodeText(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8000).includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Why a read failed, for a message: the error code (ENOENT, EACCES, ...), else its message. */
export function errCode(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e?.code ?? e?.message ?? String(err);
}
