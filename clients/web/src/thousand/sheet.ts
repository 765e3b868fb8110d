// The score sheet deal by deal (T-22 to T-29: bolts, barrel, falls, 555) and the summary of a deal's end.
import type { ThousandView } from "../gen/thousand/v1/thousand_views_pb";
import { Mark, Outcome } from "../gen/thousand/v1/thousand_events_pb";
import { h, type Child } from "../dom";
import type { TableLike } from "../session";
import type { SheetRow, ThousandModel } from "./model";
import { KIND_WORDS, MARK_SIGNS, MARK_WORDS, OUTCOME_WORDS, REDEAL_WORDS, markLegend, signed } from "./words";

export function marksOf(row: SheetRow, seat: number): { sign: string; words: string }[] {
  const own = row.marks.filter((m) => m.seat === seat);
  // A third bolt comes as a bolt and its penalty: one sign for both (•••), not four dots.
  const third = own.some((m) => m.mark === Mark.BOLT_PENALTY);
  return own
    .filter((m) => !(third && m.mark === Mark.BOLT))
    .map((m) => ({ sign: MARK_SIGNS[m.mark] ?? "?", words: MARK_WORDS[m.mark] ?? "mark" }));
}

export function sheetTable(session: TableLike, model: ThousandModel, view: ThousandView): HTMLElement {
  const seats = view.scores.map((_, i) => i);
  const rows = model.sheet.map((row) => {
    if (row.redeal)
      return h(
        "tr",
        { class: "redeal" },
        h("th", { scope: "row" }, String(row.number)),
        h("td", { colspan: seats.length }, `Redeal: ${session.names(row.redeal.seat)}, ${REDEAL_WORDS[row.redeal.reason] ?? ""}`),
      );
    return h(
      "tr",
      {},
      h("th", { scope: "row", title: KIND_WORDS[row.kind] ?? "" }, `${row.number}${row.check ? (row.check.ok ? " ✓" : " ✗") : ""}`),
      seats.map((seat) => {
        const declarer = row.declarer === seat;
        const marks = marksOf(row, seat);
        const title = [
          declarer ? `played ${row.contract}: ${OUTCOME_WORDS[row.outcome ?? 0] ?? ""}` : `took ${row.dealPoints[seat] ?? 0}`,
          ...marks.map((m) => m.words),
        ].join("; ");
        return h(
          "td",
          { class: declarer ? (row.outcome === Outcome.MADE ? "made" : "failed") : "", title },
          h("span", { class: "total" }, String(row.totals[seat] ?? "")),
          h("span", { class: "delta" }, ` ${signed(row.deltas[seat] ?? 0)}`),
          marks.length ? h("span", { class: "marks", "aria-label": marks.map((m) => m.words).join(", ") }, ` ${marks.map((m) => m.sign).join("")}`) : null,
        );
      }),
    );
  });
  const status = seats.map((seat) => {
    const s = view.scores[seat];
    const bits = [s?.bolts ? `bolts ${s.bolts}` : "", s?.onBarrel ? `barrel ${Math.min((s.barrelDeals ?? 0) + 1, 3)}/3` : "", s?.falls ? `falls ${s.falls}` : ""].filter(Boolean);
    return h("td", {}, h("strong", {}, String(s?.score ?? 0)), bits.length ? h("div", { class: "small" }, bits.join(", ")) : null);
  });
  return h(
    "details",
    { class: "sheet", open: true },
    h("summary", {}, "Score sheet"),
    h(
      "table",
      { "aria-label": "Score sheet, deal by deal" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Deal"), seats.map((s) => h("th", { scope: "col" }, session.names(s))))),
      h("tbody", {}, rows),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "Now"), status)),
    ),
    h("p", { class: "legend small", "data-testid": "sheet-legend" }, markLegend()),
  );
}

export function summaryDialog(session: TableLike, model: ThousandModel, dismiss: () => void, last = false): Child {
  const row = model.row(model.summary);
  if (!row) return null;
  const declarer = session.names(row.declarer);
  const outcome = OUTCOME_WORDS[row.outcome ?? 0] ?? "";
  const headline =
    row.outcome === Outcome.CONCEDED
      ? `${declarer} conceded ${row.contract}.`
      : `${declarer} played ${row.contract} and ${outcome} it${row.doubled ? " (doubled)" : ""}.`;
  const seats = row.totals.map((_, i) => i);
  const close = h("button", { class: "primary", "data-key": "next-deal", "data-testid": "next-deal", onclick: dismiss, autofocus: true }, last ? "See the final standings" : "Next deal");
  const dialog = h(
    "div",
    { class: "dialog-backdrop" },
    h(
      "section",
      { class: "dialog summary", role: "dialog", "aria-modal": "true", "aria-labelledby": "summary-title", "data-testid": "deal-summary" },
      h("h2", { id: "summary-title" }, `Deal ${row.number}${KIND_WORDS[row.kind] ? ` (${KIND_WORDS[row.kind]})` : ""}`),
      h("p", { class: "headline" }, headline),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "Took"), h("th", {}, "Change"), h("th", {}, "Marks"), h("th", {}, "Score"))),
        h(
          "tbody",
          {},
          seats.map((seat) =>
            h(
              "tr",
              { class: seat === row.declarer ? "declarer" : "" },
              h("th", { scope: "row" }, session.names(seat)),
              h("td", {}, String(row.dealPoints[seat] ?? 0)),
              h("td", {}, signed(row.deltas[seat] ?? 0)),
              h("td", {}, marksOf(row, seat).map((m) => m.words).join(", ")),
              h("td", {}, String(row.totals[seat] ?? 0)),
            ),
          ),
        ),
      ),
      row.check ? h("p", { class: row.check.ok ? "check ok" : "check bad", "data-testid": "deal-check" }, row.check.text) : null,
      close,
    ),
  );
  queueMicrotask(() => close.isConnected && document.activeElement?.tagName !== "INPUT" && close.focus());
  return dialog;
}
