// `import path from ".../standalone.js" with { type: "file" }` yields the file's path (embedded
// in the compiled binary), not a module; tell TypeScript so.
declare module "*/standalone.js" {
  const path: string;
  export default path;
}
