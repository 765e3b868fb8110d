// A few lines of DOM building instead of a UI framework: the pages are small, re-rendered whole on each
// change of the table, and keep the keyboard focus across a re-render by each control's data-key.
export type Child = Node | string | number | false | null | undefined | Child[];

type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.replace(/^on/, ""), value);
    else if (name === "class") el.className = String(value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replace the container's content, keeping the focus on the control with the same data-key. */
export function render(container: HTMLElement, ...children: Child[]): void {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && container.contains(active) ? active.dataset["key"] : undefined;
  const selection =
    active instanceof HTMLInputElement && active.type === "text" ? [active.selectionStart, active.selectionEnd] : undefined;
  // A scrolled area (data-key and data-keep-scroll: the score sheet scrolled sideways; the board's centre and
  // side columns, the log, the melds scrolled down) stays where the player scrolled it: a re-render on each
  // event would otherwise bring it back to its start.
  const scrolled = [...container.querySelectorAll<HTMLElement>("[data-keep-scroll][data-key]")]
    .filter((el) => el.scrollLeft !== 0 || el.scrollTop !== 0)
    .map((el) => ({ key: el.dataset["key"] ?? "", left: el.scrollLeft, top: el.scrollTop }));
  container.replaceChildren();
  append(container, children);
  for (const { key: scrolledKey, left, top } of scrolled) {
    const again = container.querySelector<HTMLElement>(`[data-key="${CSS.escape(scrolledKey)}"]`);
    if (again) again.scrollTo(left, top);
  }
  if (key === undefined) return;
  const again = container.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
  if (again) {
    again.focus({ preventScroll: true });
    if (selection && again instanceof HTMLInputElement) again.setSelectionRange(selection[0] ?? null, selection[1] ?? null);
  }
}

/** Arrow keys move the focus among a group's buttons (a toolbar: the hand, the bridge, a row of actions). */
export function arrowKeys(group: HTMLElement): HTMLElement {
  group.addEventListener("keydown", (event) => {
    const keys: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    const step = keys[event.key];
    if (step === undefined) return;
    const buttons = [...group.querySelectorAll<HTMLElement>('button:not([disabled]):not([aria-disabled="true"])')];
    const at = buttons.indexOf(document.activeElement as HTMLElement);
    if (at < 0 || buttons.length === 0) return;
    event.preventDefault();
    buttons[(at + step + buttons.length) % buttons.length]?.focus();
  });
  return group;
}

/** The icons the page draws itself: a symbol font may lack their characters (Debian's Chromium with DejaVu
 * has no ⓘ, U+24D8, or ⏱, U+23F1, and showed a box), so each is a small inline SVG (16x16 units) in the text's
 * colour: its shapes, each an SVG element with its attributes. */
type Shape = [tag: "circle" | "rect" | "path", attrs: Record<string, string>];
const RING = { fill: "none", stroke: "currentColor", "stroke-width": "1.5" };
const ICONS: Record<"info" | "stopwatch", Shape[]> = {
  // A circle with an "i": details behind it.
  info: [
    ["circle", { cx: "8", cy: "8", r: "6.75", ...RING }],
    ["circle", { cx: "8", cy: "4.9", r: "1.05" }],
    ["rect", { x: "7.1", y: "6.8", width: "1.8", height: "5", rx: "0.6" }],
  ],
  // A stopwatch: the dial, its hand, the crown on top.
  stopwatch: [
    ["circle", { cx: "8", cy: "9.2", r: "5.6", ...RING }],
    ["rect", { x: "6.2", y: "0.8", width: "3.6", height: "1.6", rx: "0.5" }],
    ["rect", { x: "7.3", y: "2.2", width: "1.4", height: "1.6" }],
    ["path", { d: "M8 9.2V5.6", ...RING, "stroke-linecap": "round" }],
  ],
};

/** An icon (ICONS) as an inline SVG sized to the text (app.css: 1em), hidden from assistive technology: the
 * element that holds it carries the words (an aria-label, a title). */
export function icon(name: keyof typeof ICONS): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  const set = (el: Element, attrs: Record<string, string>): void => Object.entries(attrs).forEach(([k, v]) => el.setAttribute(k, v));
  set(svg, { viewBox: "0 0 16 16", width: "16", height: "16", fill: "currentColor", "aria-hidden": "true", focusable: "false" });
  svg.classList.add("icon", `icon-${name}`);
  for (const [tag, attrs] of ICONS[name]) {
    const shape = document.createElementNS(ns, tag);
    set(shape, attrs);
    svg.append(shape);
  }
  return svg;
}
