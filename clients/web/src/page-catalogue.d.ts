/** English's page catalogue, compiled by the build from clients/i18n (build.mjs, catalogues.mjs). */
declare module "page-catalogue:en" {
  const catalogue: Record<string, string | import("@formatjs/icu-messageformat-parser").MessageFormatElement[]>;
  export default catalogue;
}
