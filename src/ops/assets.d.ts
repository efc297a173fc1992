// Files embedded in the executable through import attributes. TypeScript does not know them:
// `with { type: "file" }` yields the embedded file's path, `with { type: "text" }` its content.
declare module "*/standalone.js" {
  const path: string;
  export default path;
}
/** The console's browser modules (src/admin/console/*.mjs), embedded as text. */
declare module "*.mjs" {
  const text: string;
  export default text;
}
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*.svg" {
  const text: string;
  export default text;
}
