// The language menu, always in the page's header: every language by its own name; a choice is kept in this
// browser (localStorage) and the page is shown again in it.
import { h } from "../dom";
import { LANGUAGES, LANGUAGE_NAMES, language, switchLanguage, t, type Lang } from "../i18n";

export function languageMenu(): HTMLElement {
  return h(
    "select",
    {
      class: "language",
      "aria-label": t("web.language"),
      title: t("web.language"),
      "data-key": "language",
      "data-testid": "language",
      onchange: (e: Event) => switchLanguage((e.target as HTMLSelectElement).value as Lang, window.localStorage),
    },
    LANGUAGES.map((lang) => h("option", { value: lang, lang, selected: lang === language() }, LANGUAGE_NAMES[lang])),
  );
}
