// Builds the web client into dist/ (index.html, app.js, app.css: what the server serves at /), the tests
// into build/test/ (one ES module per test/**/*.test.ts, run by `node --test`) and the benchmark's browser
// side into build/bench/. `node build.mjs --app` builds
// only the client. esbuild bundles and minifies; type checking is tsc's job (`make typecheck`).
import * as esbuild from "esbuild";
import { copyFile, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { faviconIco } from "./favicon.mjs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
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
