// Every path a reader is pointed to must exist: a doc or a comment that names a file which moved
// sends the next reader to nothing, and after a restructuring there are hundreds of them. This finds
// the paths written in README.md, docs/*.md, the READMEs beside the code (any README.md under the
// scanned folders) and the comments of src/, durable-objects/, scripts/ and bench/, and reports the
// ones that name nothing.
//
// A path is a repository path starting with one of TOP_DIRS (`src/shard/client.ts`,
// `docs/API.md`, `test/e2e/`), a relative one (`./schema-lock.mjs`, `../check-structure.mjs`, read
// from the file's folder; in a Markdown file, a command's path may also be read from the
// repository's root, where commands run), or a Markdown link's target (`[API](docs/API.md)`, from
// the file's folder). A path may leave out its extension, as an import does (`src/shard/client`),
// and a migration may be named by its number (`migrations-jobs/0014`). Not paths: globs and
// placeholders (`test/e2e/**`, `migrations/NNNN_words.sql`, `src/{a,b}`), addresses
// (`https://host/src/x`), and what a build or a run writes (.gitignore's folders, such as
// `bench/results/`).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import ts from "typescript";

/** Repository paths are recognised by their first folder. */
const TOP_DIRS = [
  "src",
  "durable-objects",
  "test",
  "docs",
  "scripts",
  "bench",
  "migrations",
  "migrations-jobs",
  "public",
];
/** Folders whose code comments are read. */
const COMMENT_DIRS = ["src", "durable-objects", "scripts", "bench"];
const CODE_EXTENSIONS = [".ts", ".tsx", ".mjs", ".js", ".cjs"];
/** What an extension-less path may stand for, as a module specifier does. */
const IMPLIED = ["", ".ts", ".tsx", ".mjs", ".js", ".d.ts", ".md", ".json"];
const SKIPPED_DIRS = new Set(["node_modules", ".git", ".wrangler", "results", "dist", "artifacts"]);

const PATH_CHARS = "[\\w@+.-]";
const REPO_PATH = new RegExp(`(?<![\\w./@-])((?:${TOP_DIRS.join("|")})/(?:${PATH_CHARS}+/?)*)`, "g");
const RELATIVE_PATH = new RegExp(`(?<![\\w./@-])(\\.\\.?/(?:${PATH_CHARS}+/?)+)`, "g");
const MARKDOWN_LINK = /\]\(([^)\s#]+)(?:#[^)]*)?\)/g;
/** After a match, these say it was a glob, a placeholder or a template, not a path. */
const NOT_A_PATH_NEXT = /^[*{}<>$[]/;
/**
 * Placeholders written in capitals before an underscore (`NNNN_words.sql`) and ellipses. A name in
 * capitals before its extension is a real file (`README.md`, `docs/API.md`), so it is checked.
 */
const PLACEHOLDER = /(^|\/)[A-Z]{3,}_|\.\.\.|\bNNNN\b/;

/** Repository-relative, forward slashes. */
const toPosix = (/** @type {string} */ path) => path.split("\\").join("/");

/**
 * Adds to `into` every file under `dir` that `keep` accepts, skipping dependencies, build output
 * and hidden folders.
 * @param {string} root
 * @param {string} dir
 * @param {(path: string) => boolean} keep
 * @param {string[]} into
 * @returns {string[]}
 */
function walk(root, dir, keep, into) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return into;
  }
  for (const entry of entries) {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(".")) walk(root, path, keep, into);
    } else if (keep(path)) into.push(path);
  }
  return into;
}

/**
 * The Markdown files whose paths are checked: README.md, docs/*.md, and every README.md beside the code.
 * @param {string} root
 * @returns {string[]}
 */
export function docFiles(root) {
  /** @type {string[]} */
  const files = [];
  if (existsSync(join(root, "README.md"))) files.push("README.md");
  walk(root, "docs", (path) => path.endsWith(".md") && !path.slice(5).includes("/"), files);
  for (const dir of [...COMMENT_DIRS, "test"]) walk(root, dir, (path) => path.endsWith("/README.md"), files);
  return files.sort();
}

/**
 * The code files whose comments are checked.
 * @param {string} root
 * @returns {string[]}
 */
export function commentedFiles(root) {
  /** @type {string[]} */
  const files = [];
  for (const dir of COMMENT_DIRS) {
    walk(root, dir, (path) => CODE_EXTENSIONS.some((ext) => path.endsWith(ext)), files);
  }
  return files.sort();
}

/**
 * Each comment of a source file with the line it starts on (from the syntax tree, so strings never count).
 * @param {string} file
 * @param {string} text
 * @returns {{ line: number, text: string }[]}
 */
function commentsOf(file, text) {
  const kind = file.endsWith(".tsx")
    ? ts.ScriptKind.TSX
    : file.endsWith(".ts")
      ? ts.ScriptKind.TS
      : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  /** @type {Map<number, { line: number, text: string }>} */
  const seen = new Map();
  const note = (/** @type {readonly ts.CommentRange[] | undefined} */ ranges) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.set(range.pos, {
        line: source.getLineAndCharacterOfPosition(range.pos).line + 1,
        text: text.slice(range.pos, range.end),
      });
    }
  };
  // Nodes, not tokens (getChildren makes a token object per punctuation mark and took seconds
  // over the repository): a comment is in the trivia before a node or after one, and the comments
  // on their own lines before a closing brace follow the block's last node.
  const visit = (/** @type {ts.Node} */ node) => {
    note(ts.getLeadingCommentRanges(text, node.pos));
    note(ts.getTrailingCommentRanges(text, node.end));
    note(ts.getLeadingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...seen.values()];
}

/**
 * The candidate paths of one piece of text, each with where it starts in the text.
 * @param {string} text
 * @param {{ markdown: boolean }} options
 * @returns {{ path: string, index: number, relative: boolean }[]}
 */
function pathsIn(text, { markdown }) {
  /** @type {{ path: string, index: number, relative: boolean }[]} */
  const found = [];
  /** @type {(path: string, index: number, relative: boolean) => void} */
  const add = (path, index, relative) => {
    const next = text.slice(index + path.length, index + path.length + 1);
    if (NOT_A_PATH_NEXT.test(next) || PLACEHOLDER.test(path)) return;
    const trimmed = path.replace(/[.,;:]+$/, "");
    if (trimmed.endsWith("/.") || trimmed === "" || /\/\.\.?$/.test(trimmed)) return;
    found.push({ path: trimmed, index, relative });
  };
  for (const match of text.matchAll(REPO_PATH)) add(match[1] ?? "", match.index, false);
  for (const match of text.matchAll(RELATIVE_PATH)) add(match[1] ?? "", match.index, true);
  if (markdown) {
    for (const match of text.matchAll(MARKDOWN_LINK)) {
      const target = match[1] ?? "";
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/")) continue;
      if (TOP_DIRS.some((dir) => target.startsWith(`${dir}/`)) || target.startsWith(".")) continue;
      add(target, match.index + 2, true);
    }
  }
  return found;
}

/** Folder prefixes .gitignore names (`dist/`, `bench/results/*`): what a build or a run writes. */
/** @param {string} root @returns {string[]} */
function generatedPrefixes(root) {
  let text = "";
  try {
    text = readFileSync(join(root, ".gitignore"), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#") && !line.startsWith("!"))
    .filter((line) => line.endsWith("/") || line.endsWith("/*"))
    .map((line) => line.replace(/\*$/, "").replace(/^\//, ""));
}

/** `migrations/0014`: the migration numbered 0014 in that folder. */
/** @param {string} root @param {string} path */
function migrationByNumber(root, path) {
  const match = /^(migrations(?:-jobs)?)\/(\d{4})$/.exec(path);
  if (!match) return false;
  try {
    return readdirSync(join(root, match[1] ?? "")).some((name) => name.startsWith(`${match[2]}_`));
  } catch {
    return false;
  }
}

/** @param {string} root @param {string} path */
function exists(root, path) {
  const clean = path.replace(/\/$/, "");
  if (clean === "") return true;
  if (migrationByNumber(root, clean)) return true;
  return IMPLIED.some((ext) => {
    const full = join(root, clean + ext);
    if (!existsSync(full)) return false;
    // A trailing slash promises a folder.
    return !path.endsWith("/") || statSync(full).isDirectory();
  });
}

/** @typedef {{ file: string, line: number, path: string }} StalePath */

/**
 * Every path in the docs and the comments that names nothing, as
 * `{file, line, path}` (path as written).
 * @param {string} root
 * @returns {StalePath[]}
 */
export function findStalePaths(root) {
  /** @type {StalePath[]} */
  const stale = [];
  const generated = generatedPrefixes(root);
  /** @type {(file: string, path: string, relative: boolean, markdown: boolean) => boolean} */
  const named = (file, path, relative, markdown) => {
    if (!relative) return exists(root, path);
    const fromFolder = toPosix(posix.normalize(posix.join(dirname(file), path)));
    if (!fromFolder.startsWith("../") && exists(root, fromFolder)) return true;
    const fromRoot = toPosix(posix.normalize(path));
    // Outside the repository (`../shared/...`): not ours to check.
    if (fromRoot.startsWith("../") && (markdown || fromFolder.startsWith("../"))) return true;
    return markdown && !fromRoot.startsWith("../") && exists(root, fromRoot);
  };
  /** @type {(file: string, line: number, text: string, markdown: boolean) => void} */
  const check = (file, line, text, markdown) => {
    for (const { path, index, relative } of pathsIn(text, { markdown })) {
      if (generated.some((prefix) => path.startsWith(prefix))) continue;
      if (!named(file, path, relative, markdown)) {
        const lineOfIndex = line + text.slice(0, index).split("\n").length - 1;
        stale.push({ file, line: lineOfIndex, path });
      }
    }
  };
  for (const file of docFiles(root)) {
    const lines = readFileSync(join(root, file), "utf8").split("\n");
    for (const [index, text] of lines.entries()) check(file, index + 1, text, true);
  }
  for (const file of commentedFiles(root)) {
    for (const comment of commentsOf(file, readFileSync(join(root, file), "utf8"))) {
      check(file, comment.line, comment.text, false);
    }
  }
  return stale;
}
