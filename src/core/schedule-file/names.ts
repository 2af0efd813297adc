// The order of job names in a schedule file's pages: Unicode code point order, which is also the
// order of their UTF-8 bytes, so SQLite's BINARY collation (D1 stores text as UTF-8) sorts names
// exactly as this does. JavaScript's `<` compares UTF-16 code units, which puts U+E000-U+FFFF
// after the astral planes: a page's range would then disagree with the database's.

/**
 * Negative, zero or positive as `a` sorts before, with or after `b`.
 * @example compareNames("\u{1F600}", "\uFF21") > 0 // true (U+1F600 after U+FF21; `<` says before)
 */
export function compareNames(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a.codePointAt(index) ?? 0;
    const right = b.codePointAt(index) ?? 0;
    if (left !== right) return left - right;
    if (left > 0xffff) index++;
  }
  return a.length - b.length;
}

/** Whether `name` is in `[from, to)`; a null bound is open. */
export function nameInRange(name: string, range: { from: string | null; to: string | null }): boolean {
  return (
    (range.from === null || compareNames(range.from, name) <= 0) &&
    (range.to === null || compareNames(name, range.to) < 0)
  );
}
