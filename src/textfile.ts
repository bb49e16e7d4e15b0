// Decoding a text file the user gave: UTF-8 only (a byte-order mark is dropped). A UTF-16 file, a binary file or
// bytes that are not UTF-8 are named as such, never decoded with U+FFFD in place of the bad bytes, and never echoed
// (a UTF-16 file echoed as UTF-8 is a line full of NUL bytes).

export type Decoded = { ok: true; text: string } | { ok: false; problem: string; fix: string };

const UTF8_FIX = 'save the file as UTF-8 (without NUL bytes)';

export function decodeUtf8(bytes: Uint8Array): Decoded {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { ok: false, problem: `is UTF-16 (${bytes[0] === 0xff ? 'little' : 'big'}-endian byte-order mark), not UTF-8`, fix: UTF8_FIX };
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    // UTF-16 without a mark: ASCII text with every other byte NUL.
    const sample = bytes.subarray(0, 512);
    let zeros = 0;
    for (let i = 0; i < sample.length; i++) if (sample[i] === 0) zeros++;
    const utf16 = sample.length >= 4 && zeros * 2 >= sample.length * 0.8;
    return { ok: false, problem: utf16 ? 'looks like UTF-16 (every other byte is NUL), not UTF-8' : `holds a NUL byte at byte ${nul} (binary content, not text)`, fix: UTF8_FIX };
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); // drops a leading BOM
    return { ok: true, text };
  } catch {
    const at = firstInvalidUtf8(bytes);
    const line = lineAt(bytes, at);
    return { ok: false, problem: `is not valid UTF-8 (byte ${at}, line ${line}: 0x${bytes[at]?.toString(16).padStart(2, '0') ?? '??'})`, fix: UTF8_FIX };
  }
}

/** Offset of the first byte that starts an invalid (or truncated) UTF-8 sequence. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (len === 0 || i + len > b.length) return i;
    for (let k = 1; k < len; k++) if ((b[i + k]! & 0xc0) !== 0x80) return i;
    // Overlong 3-byte, surrogates, overlong 4-byte and above U+10FFFF.
    if ((c === 0xe0 && b[i + 1]! < 0xa0) || (c === 0xed && b[i + 1]! > 0x9f) || (c === 0xf0 && b[i + 1]! < 0x90) || (c === 0xf4 && b[i + 1]! > 0x8f)) return i;
    i += len;
  }
  return b.length;
}

function lineAt(b: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < b.length; i++) if (b[i] === 0x0a) line++;
  return line;
}
