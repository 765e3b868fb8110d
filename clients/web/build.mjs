// Builds the web client into dist/ (index.html, app.js, app.css: what the server serves at /), the tests
// into build/test/ (one ES module per test/**/*.test.ts, run by `node --test`) and the benchmark's browser
// side into build/bench/. The languages other than English (bundled) are written to dist/i18n/<lang>.json
// from the shared catalogues in clients/i18n (messages and glossary as one flat map), fetched by the page. `node build.mjs --app` builds
// only the client. esbuild bundles and minifies; type checking is tsc's job (`make typecheck`).
import * as esbuild from "esbuild";
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { faviconIco } from "./favicon.mjs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const catalogues = join(root, "..", "i18n");
const FETCHED = ["ru", "uk", "be", "pl"];
/** The terminal client's own messages, which no page shows: left out of what the page loads (the same list
 * is in test/logic/catalogues.test.ts). */
const TERMINAL_ONLY = ["cli.", "help.", "device.", "bot.", "connection."];
const forPage = (key) => key !== "$comment" && !TERMINAL_ONLY.some((prefix) => key.startsWith(prefix));

/** English, bundled into app.js (i18n.ts imports it), without the terminal's own messages. */
const pageCatalogues = {
  name: "page-catalogues",
  setup(build) {
    build.onLoad({ filter: /i18n[\\/]messages[\\/]en\.json$/ }, async (args) => {
      const messages = JSON.parse(await readFile(args.path, "utf8"));
      const kept = Object.fromEntries(Object.entries(messages).filter(([key]) => forPage(key)));
      return { contents: JSON.stringify(kept), loader: "json" };
    });
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

/** Each fetched language as the page's i18n.ts `flatten` makes it: its messages, and its glossary as term.<id>. */
async function writeLanguages(out) {
  await mkdir(out, { recursive: true });
  for (const lang of FETCHED) {
    const read = async (kind) => JSON.parse(await readFile(join(catalogues, kind, `${lang}.json`), "utf8"));
    const [messages, glossary] = [await read("messages"), await read("glossary")];
    const flat = {};
    for (const [key, text] of Object.entries(messages)) if (forPage(key)) flat[key] = text;
    for (const [id, entry] of Object.entries(glossary)) if (id !== "$comment") flat[`term.${id}`] = entry.text;
    await writeFile(join(out, `${lang}.json`), JSON.stringify(flat));
  }
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
    logLevel: "warning",
  });
}

await buildApp();
if (!onlyApp) await Promise.all([buildTests(), buildBench()]);
