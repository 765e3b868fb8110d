// The page's catalogues, made at build time from the shared ones in clients/i18n (issue #29): only the
// messages the page's sources name, each compiled from ICU MessageFormat to the parser's AST, so that the page
// ships no ICU parser (build.mjs resolves @formatjs/icu-messageformat-parser to its no-parser build, as
// formatjs's performance guide says) and no terminal-only message. build.mjs bundles English into app.js and
// writes the others as dist/i18n/<lang>.json; the logic tests compile with the same functions.
import { TYPE, isNumberSkeleton, parse } from "@formatjs/icu-messageformat-parser";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * One message as the page formats it: its AST (no locations), or the text itself when it is nothing but text
 * (the page makes that a literal element). The skeleton `::group-min2` (game points: no separator below
 * 10 000, as players write scores; ICU4C honours it) is not read by the skeleton parser, so it is set here.
 * @param {string} text
 * @returns {string | import("@formatjs/icu-messageformat-parser").MessageFormatElement[]}
 */
export function compileMessage(text) {
  const ast = parse(text, { ignoreTag: true, shouldParseSkeletons: true });
  /** @param {import("@formatjs/icu-messageformat-parser").MessageFormatElement[]} elements */
  const visit = (elements) => {
    for (const el of elements) {
      if (el.type === TYPE.number && isNumberSkeleton(el.style) && el.style.tokens.some((t) => t.stem === "group-min2"))
        el.style.parsedOptions = { ...el.style.parsedOptions, useGrouping: "min2" };
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const option of Object.values(el.options)) visit(option.value);
    }
  };
  visit(ast);
  if (ast.length === 0) return "";
  if (ast.length === 1 && ast[0].type === TYPE.literal) return ast[0].value;
  return ast;
}

/**
 * A language's messages and its glossary's words as one flat catalogue (the glossary as `term.<id>`).
 * @param {Record<string, string>} messages
 * @param {Record<string, unknown>} glossary
 * @returns {Record<string, string>}
 */
export function flatten(messages, glossary) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [key, text] of Object.entries(messages)) if (key !== "$comment") out[key] = text;
  for (const [id, entry] of Object.entries(glossary))
    if (id !== "$comment" && typeof entry === "object" && entry !== null) out[`term.${id}`] = String(/** @type {{text: string}} */ (entry).text);
  return out;
}

/**
 * The keys the page's sources name: a string literal that is a key (`t("web.cards")`), or any key under a
 * template literal's fixed head (`tMaybe(\`error.${reason}\`)` names every `error.*`). `t` takes only literal
 * keys (tsc checks them against English), so what the sources do not name, the page never formats.
 * @param {string} sources the page's TypeScript sources, concatenated
 * @param {Iterable<string>} keys
 * @returns {Set<string>}
 */
export function keysNamed(sources, keys) {
  const literals = new Set([...sources.matchAll(/["'`]([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_]+)+)["'`]/g)].map((m) => m[1]));
  const heads = [...sources.matchAll(/`([a-z][a-z0-9_]*\.[A-Za-z0-9_.]*)\$\{/g)].map((m) => m[1]);
  return new Set([...keys].filter((key) => literals.has(key) || heads.some((head) => key.startsWith(head))));
}

/**
 * The page's TypeScript sources (src/, less the generated contract code), concatenated.
 * @param {string} src
 * @returns {Promise<string>}
 */
export async function pageSources(src) {
  const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith(".ts") && !f.startsWith("gen"));
  return (await Promise.all(files.map((f) => readFile(join(src, f), "utf8")))).join("\n");
}

/**
 * A language's catalogue for the page: its messages the page's sources name, compiled.
 * @param {string} catalogues the clients/i18n directory
 * @param {string} lang
 * @param {Set<string>} named the keys the page names (keysNamed)
 * @returns {Promise<Record<string, string | import("@formatjs/icu-messageformat-parser").MessageFormatElement[]>>}
 */
export async function pageCatalogue(catalogues, lang, named) {
  const read = async (/** @type {string} */ kind) => JSON.parse(await readFile(join(catalogues, kind, `${lang}.json`), "utf8"));
  const flat = flatten(await read("messages"), await read("glossary"));
  return Object.fromEntries(Object.entries(flat).filter(([key]) => named.has(key)).map(([key, text]) => [key, compileMessage(text)]));
}
