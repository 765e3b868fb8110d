// Builds the web client into dist/ (index.html, app.js, app.css: what the server serves at /), the tests
// into build/test/ (one ES module per test/**/*.test.ts, run by `node --test`) and the benchmark's browser
// side into build/bench/. The page's catalogues come from the shared ones in clients/i18n (catalogues.mjs:
// the messages its sources name, compiled to ICU ASTs so that no ICU parser is shipped): English bundled into
// app.js, the other languages written to dist/i18n/<lang>.json and fetched by the page. `node build.mjs --app`
// builds only the client. esbuild bundles and minifies; type checking is tsc's job (`make typecheck`).
import * as esbuild from "esbuild";
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { faviconIco } from "./favicon.mjs";
import { flatten, keysNamed, pageCatalogue, pageSources } from "./catalogues.mjs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const catalogues = join(root, "..", "i18n");
const FETCHED = ["ru", "uk", "be", "pl"];
/** The keys the page names (every language's page catalogue has exactly these). */
const named = keysNamed(await pageSources(join(root, "src")), Object.keys(flatten(
  JSON.parse(await readFile(join(catalogues, "messages", "en.json"), "utf8")),
  JSON.parse(await readFile(join(catalogues, "glossary", "en.json"), "utf8")),
)));

/** `import english from "page-catalogue:en"` (i18n.ts): English's page catalogue, compiled, bundled. */
const pageCatalogues = {
  name: "page-catalogues",
  setup(build) {
    build.onResolve({ filter: /^page-catalogue:en$/ }, (args) => ({ path: args.path, namespace: "page-catalogue" }));
    build.onLoad({ filter: /.*/, namespace: "page-catalogue" }, async () => ({
      contents: JSON.stringify(await pageCatalogue(catalogues, "en", named)),
      loader: "json",
      watchFiles: [join(catalogues, "messages", "en.json"), join(catalogues, "glossary", "en.json")],
    }));
  },
};
const onlyApp = process.argv.includes("--app");

async function testEntries(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await testEntries(path)));
    else if (entry.name.endsWith(".test.ts")) found.push(path);
  }
  return found;
}

async function buildApp() {
  const dist = join(root, "dist");
  await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
  await esbuild.build({
    entryPoints: { app: join(root, "src", "main.ts") },
    bundle: true,
    minify: true,
    format: "esm",
    // Code only some pages need (signing in: oauth4webapi) in a chunk of its own, loaded when needed.
    splitting: true,
    chunkNames: "[name]-[hash]",
    target: ["es2022", "chrome100", "firefox100", "safari15"],
    outdir: dist,
    plugins: [pageCatalogues],
    // Every message arrives compiled (catalogues.mjs): the page needs the parser's types, not the parser.
    alias: { "@formatjs/icu-messageformat-parser": "@formatjs/icu-messageformat-parser/no-parser.js" },
    legalComments: "none",
    logLevel: "warning",
  });
  await esbuild.build({
    entryPoints: { app: join(root, "src", "app.css") },
    bundle: true,
    minify: true,
    outdir: dist,
    logLevel: "warning",
  });
  await copyFile(join(root, "src", "index.html"), join(dist, "index.html"));
  await copyFile(join(root, "src", "favicon.svg"), join(dist, "favicon.svg"));
  await writeFile(join(dist, "favicon.ico"), faviconIco());
  await writeLanguages(join(dist, "i18n"));
}

/** Each fetched language's page catalogue (the same keys as English's, compiled). */
async function writeLanguages(out) {
  await mkdir(out, { recursive: true });
  for (const lang of FETCHED) await writeFile(join(out, `${lang}.json`), JSON.stringify(await pageCatalogue(catalogues, lang, named)));
}

async function buildBench() {
  await esbuild.build({
    entryPoints: [join(root, "bench", "first-view.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    outdir: join(root, "build", "bench"),
    outExtension: { ".js": ".mjs" },
    packages: "external",
    plugins: [pageCatalogues],
    logLevel: "warning",
  });
}

async function buildTests() {
  const out = join(root, "build", "test");
  await rm(out, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: await testEntries(join(root, "test")),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    outdir: out,
    outbase: join(root, "test"),
    outExtension: { ".js": ".mjs" },
    packages: "external",
    sourcemap: "inline",
    plugins: [pageCatalogues],
    logLevel: "warning",
  });
}

await buildApp();
if (!onlyApp) await Promise.all([buildTests(), buildBench()]);
