// No literal user-facing text in the web client's code (issue #29): every word a person reads comes from the
// shared catalogues (clients/i18n) through i18n.ts's t(). The code is read with the TypeScript compiler's own
// parser; a string (or a template's text) fails when it reads as prose (two words in a row), or when it is a
// single word where a person reads it: an element's child in h(), an aria-label, a title, a placeholder, a
// confirm(). What is not text passes: catalogue keys, module names, types, CSS classes and selectors, data-*
// attributes, comparisons with the contract's values, console and developer errors.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import ts from "typescript";

const SRC = join(process.cwd(), "src");
const PROSE = /\p{L}{2,}[:,.!?]*\s+\p{L}{2,}/u;
const WORD = /\p{L}{2,}/u;
/** Attributes a person reads (or hears). */
const READ_ATTRIBUTES = new Set(["aria-label", "title", "placeholder", "alt", "aria-description", "aria-roledescription"]);
/** Calls whose string arguments are not text a person reads. */
const NOT_TEXT_CALLS = new Set([
  "t",
  "tMaybe",
  "querySelector",
  "querySelectorAll",
  "closest",
  "getItem",
  "setItem",
  "removeItem",
  "addEventListener",
  "removeEventListener",
  "getElementById",
  "createElement",
  "matches",
  "warn",
  "error",
  "log",
  "debug",
  "Error",
  "TypeError",
  "RangeError",
  "fetch",
]);
/** Object keys whose values are not text a person reads. */
const NOT_TEXT_KEYS = new Set(["class", "id", "for", "type", "role", "name", "href", "download", "inputmode", "pattern", "style", "lang", "tabindex"]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "gen" ? [] : sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function calleeName(call: ts.CallExpression | ts.NewExpression): string {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return "";
}

/** Whether the literal sits where its text is not for people (a key, a type, a selector, a comparison...). */
function notText(node: ts.Node): boolean {
  for (let child = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
    if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isImportTypeNode(parent)) return true;
    if (ts.isLiteralTypeNode(parent) || ts.isTypeReferenceNode(parent) || ts.isIndexedAccessTypeNode(parent)) return true;
    if (ts.isPropertyAssignment(parent) && parent.name === child) return true; // a key
    if (ts.isPropertyAssignment(parent) && parent.initializer === child) {
      const key = parent.name.getText().replace(/^["']|["']$/g, "");
      if (NOT_TEXT_KEYS.has(key) || key.startsWith("data-") || key.startsWith("aria-") && !READ_ATTRIBUTES.has(key)) return true;
      return false;
    }
    if (ts.isElementAccessExpression(parent) && parent.argumentExpression === child) return true;
    if (ts.isCaseClause(parent) && parent.expression === child) return true;
    if (ts.isBinaryExpression(parent)) {
      const op = parent.operatorToken.kind;
      if ([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.InKeyword].includes(op)) return true;
    }
    if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && child !== parent.expression)
      return NOT_TEXT_CALLS.has(calleeName(parent)) || (calleeName(parent) === "h" && parent.arguments?.[0] === child);
    if (ts.isTemplateSpan(parent) || ts.isTemplateExpression(parent) || ts.isParenthesizedExpression(parent)) continue;
    if (ts.isConditionalExpression(parent) && parent.condition !== child) continue;
    if (ts.isBinaryExpression(parent) || ts.isArrayLiteralExpression(parent)) continue;
    if (ts.isStatement(parent) || ts.isFunctionLike(parent)) return false;
  }
  return false;
}

/** Whether the literal is read by a person where a single word is text: an element's child, a read attribute,
 * a dialog's question, the page's title. */
function readPlace(node: ts.Node): boolean {
  for (let child = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
    if (ts.isCallExpression(parent) && child !== parent.expression) {
      const name = calleeName(parent);
      if (name === "h") return parent.arguments.indexOf(child as ts.Expression) >= 2;
      return name === "confirm" || name === "alert" || name === "prompt";
    }
    if (ts.isPropertyAssignment(parent) && parent.initializer === child)
      return READ_ATTRIBUTES.has(parent.name.getText().replace(/^["']|["']$/g, ""));
    if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken)
      return /\b(title|textContent|innerText)$/.test(parent.left.getText());
    if (ts.isTemplateSpan(parent) || ts.isTemplateExpression(parent) || ts.isParenthesizedExpression(parent)) continue;
    if (ts.isConditionalExpression(parent) || ts.isBinaryExpression(parent) || ts.isArrayLiteralExpression(parent)) continue;
    if (ts.isArrowFunction(parent) && parent.body === child) continue;
    return false;
  }
  return false;
}

/** The text pieces of a literal: a string, or a template's fixed parts. */
function texts(node: ts.Node): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)];
  return [];
}

export function literalTexts(fileName: string, code: string): { line: number; text: string }[] {
  const file = ts.createSourceFile(fileName, code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    const pieces = texts(node);
    if (pieces.length) {
      const text = pieces.join(" ");
      const prose = PROSE.test(text);
      const word = WORD.test(text) && readPlace(node);
      if ((prose || word) && !notText(node)) found.push({ line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1, text });
      if (ts.isTemplateExpression(node)) node.templateSpans.forEach((s) => visit(s.expression));
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

test("no user-facing literal in the web client's code: every text comes from the catalogues", () => {
  const found = sources(SRC).flatMap((path) =>
    literalTexts(path, readFileSync(path, "utf8")).map((f) => `${relative(SRC, path)}:${f.line}: ${JSON.stringify(f.text)}`),
  );
  assert.deepEqual(found, []);
});

test("the lint finds a literal where a person reads it, and passes what is not text", () => {
  const code = `
    import { t } from "../i18n";
    const a = h("button", { class: "action primary", "data-key": "leave" }, "Leave");
    const b = h("p", { title: "time left" }, t("web.lobby"));
    const c = h("span", { "aria-label": t("web.your_hand") }, \`\${n} cards\`);
    if (reason === "NOT YOUR TURN") console.warn("the view differs from the server");
    const d = t("web.lobby.join");
    const e = h("div", {}, "•", "★", \`\${x} · \${y}\`);
    if (!confirm("Leave this table?")) return;
  `;
  assert.deepEqual(
    literalTexts("screen.ts", code).map((f) => f.text),
    ["Leave", "time left", "  cards", "Leave this table?"],
  );
});
