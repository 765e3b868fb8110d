// Times from opening a page to a table's first view, in Chromium (bench/web_client.py runs it). Argument: a
// JSON object {url, chromium, runs, pages: [{name, hash, seat?: {tableId, seat, token}}]}. For each page and
// run, a fresh browser context (empty cache and storage) opens url + hash; an init script notes the moment
// (performance.now(), from the navigation's start) the table's board first shows cards, and the load event's
// moment as the reference: the page itself, without the table. Prints one JSON object.
import { chromium } from "playwright-core";

interface PageSpec {
  name: string;
  hash: string;
  seat?: { tableId: string; seat: number; token: string };
  ready: string;
}

const spec = JSON.parse(process.argv[2] ?? "{}") as { url: string; chromium: string; runs: number; pages: PageSpec[] };
const browser = await chromium.launch({
  executablePath: spec.chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const results: Record<string, { first_view_ms: number[]; load_ms: number[] }> = {};
for (const page of spec.pages) {
  results[page.name] = { first_view_ms: [], load_ms: [] };
  for (let run = 0; run < spec.runs; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(
      ({ seat, ready }) => {
        if (seat) localStorage.setItem("thousand.seats.v1", JSON.stringify({ [seat.tableId]: { ...seat, name: "bench" } }));
        const w = window as unknown as { firstView?: number; loaded?: number };
        const look = (): void => {
          if (w.firstView === undefined && document.querySelector(ready)) w.firstView = performance.now();
        };
        new MutationObserver(look).observe(document, { childList: true, subtree: true });
        addEventListener("load", () => (w.loaded = performance.now()));
      },
      { seat: page.seat, ready: page.ready },
    );
    const tab = await context.newPage();
    await tab.goto(`${spec.url}/${page.hash}`);
    await tab.waitForFunction(() => (window as unknown as { firstView?: number }).firstView !== undefined, undefined, { timeout: 20000 });
    await tab.waitForFunction(() => (window as unknown as { loaded?: number }).loaded !== undefined, undefined, { timeout: 20000 });
    const { firstView, loaded } = await tab.evaluate(() => {
      const w = window as unknown as { firstView: number; loaded: number };
      return { firstView: w.firstView, loaded: w.loaded };
    });
    results[page.name]!.first_view_ms.push(Math.round(firstView));
    results[page.name]!.load_ms.push(Math.round(loaded ?? 0));
    await context.close();
  }
}
await browser.close();
console.log(JSON.stringify(results));
