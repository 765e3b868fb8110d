// The 1000 Blagogo score sheet round by round (B-17 to B-20) and a round's summary.
import type { BlagogoView } from "../gen/thousand/v1/blagogo_views_pb";
import { h, type Child } from "../dom";
import type { TableLike } from "../session";
import { signed } from "../thousand/words";
import type { BlagogoModel } from "./model";
import { t } from "../i18n";

export function roundSheet(session: TableLike, model: BlagogoModel, view: BlagogoView): HTMLElement {
  const seats = view.scores.map((_, i) => i);
  return h(
    "details",
    { class: "sheet", open: true },
    h("summary", {}, t("web.blagogo.sheet_title", { target: view.rules?.target ?? 1000 })),
    h(
      "div",
      // Six players or more: the sheet scrolls sideways, its first column stuck (app.css); a scrolled area
      // is reachable by keyboard, and keeps its place across re-renders (dom.ts render).
      { class: "sheet-scroll", tabindex: 0, "data-key": "sheet-scroll", "data-keep-scroll": true },
      h(
        "table",
        { "aria-label": t("web.blagogo.sheet_label") },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("web.blagogo.round_column")), seats.map((s) => h("th", { scope: "col" }, session.names(s))))),
        h(
          "tbody",
          {},
          model.sheet.map((r) =>
            h(
              "tr",
              {},
              h("th", { scope: "row" }, `${r.number}${r.check ? (r.check.ok ? " ✓" : " ✗") : ""}`),
              seats.map((s) =>
                h(
                  "td",
                  { class: r.winner === s ? "made" : "" },
                  h("span", { class: "total" }, String(r.totals[s] ?? 0)),
                  h("span", { class: "delta" }, ` ${signed(r.deltas[s] ?? 0)}`),
                ),
              ),
            ),
          ),
        ),
        h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("web.now")), seats.map((s) => h("td", {}, h("strong", {}, String(view.scores[s] ?? 0)))))),
      ),
    ),
  );
}

export function roundSummary(session: TableLike, model: BlagogoModel, dismiss: () => void, last = false): Child {
  const row = model.row(model.summary);
  if (!row) return null;
  const headline =
    row.winner === undefined
      ? t("web.blagogo.no_winner")
      : t("web.blagogo.went_out", { name: session.names(row.winner), kantrame: row.kantrame ? "yes" : "no" });
  const close = h("button", { class: "primary", "data-key": "next-round", "data-testid": "next-round", onclick: dismiss }, last ? t("web.thousand.see_standings") : t("web.blagogo.next_round"));
  queueMicrotask(() => close.isConnected && close.focus());
  return h(
    "div",
    { class: "dialog-backdrop" },
    h(
      "section",
      { class: "dialog summary", role: "dialog", "aria-modal": "true", "aria-labelledby": "round-title", "data-testid": "round-summary" },
      h("h2", { id: "round-title" }, t("web.blagogo.round", { number: row.number })),
      h("p", { class: "headline" }, headline),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, t("web.blagogo.melds_column")), h("th", {}, t("web.blagogo.hand_column")), h("th", {}, t("web.change")), h("th", {}, t("web.score")))),
        h(
          "tbody",
          {},
          row.totals.map((total, seat) =>
            h(
              "tr",
              { class: seat === row.winner ? "declarer" : "" },
              h("th", { scope: "row" }, session.names(seat)),
              h("td", {}, String(row.meldPoints[seat] ?? 0)),
              h("td", {}, row.handPenalties[seat] ? `−${row.handPenalties[seat]}` : "0"), // a hand that cost nothing: 0, not −0
              h("td", {}, signed(row.deltas[seat] ?? 0)),
              h("td", {}, String(total)),
            ),
          ),
        ),
      ),
      row.check ? h("p", { class: row.check.ok ? "check ok" : "check bad", "data-testid": "deal-check" }, row.check.text) : null,
      close,
    ),
  );
}
