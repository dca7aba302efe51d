/**
 * How deeply JSON from outside may nest objects and arrays (docs/behaviour.md). Checked once
 * where text becomes a value (a request body, an import line), so nothing after it
 * (canonicalJson, the storable-text check, the validators) recurses without a bound. No
 * record of the API nests more than a few levels.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests objects and arrays more than `limit` deep (brackets inside strings
 * not counted). Linear and without recursion: safe on any text, valid JSON or not.
 */
export function jsonDepthOver(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}
