// Stable hashes of ids: what a job's shard, its database and its fire-time jitter are derived
// from. Stored results depend on them, so they never change.

/**
 * A fast, stable, non-cryptographic 32-bit hash: FNV-1a over the UTF-8 bytes, then the
 * murmur3 `fmix32` finalizer. Plain FNV-1a's low bits depend only on the low bits of each
 * input byte (the last step is a multiply), so `hash % 16` or `% 256` over ids that differ
 * in a few characters clusters; the finalizer mixes every input bit into every output bit.
 *
 * Never change this function: shard numbers and fire-time jitter derived from it are stored
 * (jobs keep their shard) or must agree across isolates and restarts.
 *
 * @example hash32("job_1") === hash32("job_1") // an integer in [0, 2^32)
 */
export function hash32(text: string): number {
  let hash = fnv1a32(text);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** FNV-1a 32-bit over the UTF-8 bytes of `text`. @example fnv1a32("a") === 0xe40c292c */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Ids are ASCII: hash code units directly (same bytes as UTF-8), without allocating.
    if (code >= 0x80) return fnv1a32Bytes(new TextEncoder().encode(text));
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  return hash >>> 0;
}

function fnv1a32Bytes(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}
