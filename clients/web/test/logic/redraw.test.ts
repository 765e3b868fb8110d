// The table's redraws at the end of a motion or a held trick (Ui.redrawAt): one per moment, however many
// renders ask for it before it comes (every render of a held trick asks again), so that a page is not drawn
// over and over with nothing changed.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TableLike } from "../../src/session";
import { Ui } from "../../src/ui/tablepage";

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

test("redrawAt: renders that ask for the same moment get one redraw; another moment gets its own", async () => {
  let draws = 0;
  const ui = new Ui({ turnSequence: 0n } as unknown as TableLike, () => draws++, 0, 0);
  const at = Math.ceil(performance.now()) + 40;
  for (let i = 0; i < 5; i++) ui.redrawAt(at); // five renders during the hold
  ui.redrawAt(at - 0.4); // the same whole millisecond
  await sleep(10);
  assert.equal(draws, 0, "not before its moment");
  await sleep(80);
  assert.equal(draws, 1, "one redraw for the moment the hold ends");
  ui.redrawAt(at); // asked again once passed: drawn again at once (a late render of the same motion)
  ui.redrawAt(performance.now() + 20);
  await sleep(60);
  assert.equal(draws, 3);
});
