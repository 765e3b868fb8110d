// A refusal in words, from its stable reason and the rule an ILLEGAL_ACTION cites (the shared catalogues'
// `error.*` and `rule.*`), never a code or a rule ID. In English the server's own explanation follows (it is
// English already and says more: the card, the points); other languages never show the server's English.
import { Code } from "@connectrpc/connect";
import type { Failure } from "../api";
import { language, t, tMaybe, withoutRuleIds } from "../i18n";

/** A refusal for a person: what it means, and in English the server's explanation with the rule references
 * and identifiers taken out (they belong in the rules help, not in a message to a player). */
export function refusalText(f: Failure): string {
  if (!f.reason) return transport(f.code);
  const rule = f.metadata["rule"];
  const ruleWords = rule ? tMaybe(`rule.${rule}`) : undefined;
  const reason = withoutRuleIds(ruleWords ?? tMaybe(`error.${f.reason}`) ?? t("error.unknown", { reason: f.reason }));
  const message = language() === "en" ? plain(f.message) : "";
  return message ? t("web.refusal_detail", { reason, detail: message }) : reason;
}

/** The server's message without rule IDs ("(B-11)"), setting names ("(opening_one_meld)") or codes. */
export function plain(message: string): string {
  return message
    .replace(/\s*\((?:[TB]-\d+[a-z]?|[a-z]+(?:_[a-z]+)+)(?:[,;]\s*(?:[TB]-\d+[a-z]?|[a-z]+(?:_[a-z]+)+))*\)/g, "")
    .replace(/\b(?:rule\s+)?[TB]-\d+[a-z]?\b/g, "")
    .replace(/\b[A-Z]+(?:_[A-Z]+)+\b/g, (code) => code.toLowerCase().replace(/_/g, " "))
    .replace(/\s+([;,.])/g, "$1")
    .trim();
}

function transport(code: Code): string {
  if (code === Code.Unavailable) return t("web.unreachable");
  if (code === Code.DeadlineExceeded) return t("web.no_answer");
  return t("web.try_again");
}
