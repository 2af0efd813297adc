// The manifest of the published package (the CLI and `edgecron/client`), made from the repository's
// own package.json. The repository's manifest is for developing edgecron: its `prepare` script
// builds the CLI and the client on `npm install`, which cannot run in an installed copy (it has
// neither `src/` nor esbuild) and which npm 11 warns about on every install of a package that has
// one. The published manifest therefore has no scripts at all, and depends only on what an
// installed copy uses: the bundles import nothing, and the client's type declarations import zod.

/** The dependencies an installed copy needs: the client's declarations import `zod` (types only). */
export const PUBLISHED_DEPENDENCIES = ["zod"];

/**
 * @param {Record<string, any>} root the repository's package.json, parsed
 * @returns {Record<string, unknown>} the published package.json
 * @example publishedManifest(rootPackageJson).scripts === undefined
 */
export function publishedManifest(root) {
  /** @type {Record<string, string>} */
  const dependencies = {};
  for (const name of PUBLISHED_DEPENDENCIES) {
    const version = root.dependencies?.[name] ?? root.devDependencies?.[name];
    if (typeof version !== "string") throw new Error(`package.json does not depend on ${name}`);
    dependencies[name] = version;
  }
  return {
    name: root.name,
    version: root.version,
    description: root.description,
    type: root.type,
    bin: root.bin,
    exports: root.exports,
    files: root.files,
    engines: root.engines,
    dependencies,
  };
}
