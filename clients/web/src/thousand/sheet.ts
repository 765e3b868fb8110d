// The score sheet deal by deal (T-22 to T-29: bolts, barrel, falls, 555) and the summary of a deal's end.
import type { ThousandView } from "../gen/thousand/v1/thousand_views_pb";
import { Mark, Outcome } from "../gen/thousand/v1/thousand_events_pb";
import { h, type Child } from "../dom";
import type { TableLike } from "../session";
import type { SheetRow, ThousandModel } from "./model";
import { MARK_SIGNS, kindWords, markLegend, markWords, outcomeWords, redealWords, signed } from "./words";
import { t } from "../i18n";

export function marksOf(row: SheetRow, seat: number): { sign: string; words: string }[] {
  const own = row.marks.filter((m) => m.seat === seat);
  // A third bolt comes as a bolt and its penalty: one sign for both (•••), not four dots.
  const third = own.some((m) => m.mark === Mark.BOLT_PENALTY);
  return own
    .filter((m) => !(third && m.mark === Mark.BOLT))
    .map((m) => ({ sign: MARK_SIGNS[m.mark] ?? "?", words: markWords(m.mark) || "?" }));
}

export function sheetTable(session: TableLike, model: ThousandModel, view: ThousandView): HTMLElement {
  const seats = view.scores.map((_, i) => i);
  const rows = model.sheet.map((row) => {
    if (row.redeal)
      return h(
        "tr",
        { class: "redeal" },
        h("th", { scope: "row" }, String(row.number)),
        h("td", { colspan: seats.length }, t("web.thousand.redeal_row", { name: session.names(row.redeal.seat), reason: redealWords(row.redeal.reason) })),
      );
    return h(
      "tr",
      {},
      h("th", { scope: "row", title: kindWords(row.kind) }, `${row.number}${row.check ? (row.check.ok ? " ✓" : " ✗") : ""}`),
      seats.map((seat) => {
        const declarer = row.declarer === seat;
        const marks = marksOf(row, seat);
        const title = [
          declarer ? t("web.thousand.played_contract", { contract: row.contract ?? 0, outcome: outcomeWords(row.outcome ?? 0) }) : t("web.thousand.took", { points: row.dealPoints[seat] ?? 0 }),
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
    const bits = [s?.bolts ? t("web.thousand.bolts", { n: s.bolts }) : "", s?.onBarrel ? t("web.thousand.barrel_deal", { n: Math.min((s.barrelDeals ?? 0) + 1, 3) }) : "", s?.falls ? t("web.thousand.falls", { n: s.falls }) : ""].filter(Boolean);
    return h("td", {}, h("strong", {}, String(s?.score ?? 0)), bits.length ? h("div", { class: "small" }, bits.join(", ")) : null);
  });
  return h(
    "details",
    { class: "sheet", open: true },
    h("summary", {}, t("web.score_sheet")),
    h(
      "div",
      // Six players or more: the sheet scrolls sideways, its first column stuck (app.css); a scrolled area
      // is reachable by keyboard, and keeps its place across re-renders (dom.ts render).
      { class: "sheet-scroll", tabindex: 0, "data-key": "sheet-scroll", "data-keep-scroll": true },
      h(
        "table",
        { "aria-label": t("web.thousand.sheet_label") },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("web.thousand.deal_column")), seats.map((s) => h("th", { scope: "col" }, session.names(s))))),
        h("tbody", {}, rows),
        h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("web.now")), status)),
      ),
    ),
    h("p", { class: "legend small", "data-testid": "sheet-legend" }, markLegend()),
  );
}

export function summaryDialog(session: TableLike, model: ThousandModel, dismiss: () => void, last = false): Child {
  const row = model.row(model.summary);
  if (!row) return null;
  const declarer = session.names(row.declarer);
  const headline = t("web.thousand.summary_headline", {
    name: declarer,
    contract: row.contract ?? 0,
    outcome: row.outcome === Outcome.CONCEDED ? "conceded" : row.outcome === Outcome.MADE ? "made" : "failed",
    doubled: row.doubled ? "yes" : "no",
  });
  const seats = row.totals.map((_, i) => i);
  const close = h("button", { class: "primary", "data-key": "next-deal", "data-testid": "next-deal", onclick: dismiss, autofocus: true }, last ? t("web.thousand.see_standings") : t("web.thousand.next_deal"));
  const dialog = h(
    "div",
    { class: "dialog-backdrop" },
    h(
      "section",
      { class: "dialog summary", role: "dialog", "aria-modal": "true", "aria-labelledby": "summary-title", "data-testid": "deal-summary" },
      h("h2", { id: "summary-title" }, t("web.thousand.deal_title", { number: row.number, kind: kindWords(row.kind) })),
      h("p", { class: "headline" }, headline),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, t("web.thousand.took_column")), h("th", {}, t("web.change")), h("th", {}, t("web.thousand.marks")), h("th", {}, t("web.score")))),
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
