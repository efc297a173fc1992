/**
 * Fails on a promise nobody awaits: a call whose value is a Promise, used as a statement by itself
 * (not awaited, returned, assigned or marked `void`). Storage calls are asynchronous (both
 * engines), and a write transaction started without `await` commits after the request answered —
 * or its error escapes as an unhandled rejection. tsc does not check this; this does, over src/.
 *
 * `bun scripts/check-floating-promises.ts` prints each place and exits 1; `void p` says on purpose.
 */
import ts from "typescript";
import { join, relative } from "node:path";

const root = join(import.meta.dir, "..");
const configPath = ts.findConfigFile(root, ts.sys.fileExists, "tsconfig.json")!;
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, root);
const program = ts.createProgram(config.fileNames.filter((f) => f.includes("/src/")), config.options);
const checker = program.getTypeChecker();

function isPromiseLike(type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some(isPromiseLike);
  const then = type.getProperty("then");
  if (!then) return false;
  const thenType = checker.getTypeOfSymbol(then);
  return thenType.getCallSignatures().length > 0;
}

const found: string[] = [];
for (const file of program.getSourceFiles()) {
  if (file.isDeclarationFile || !file.fileName.includes("/src/")) continue;
  const visit = (node: ts.Node) => {
    if (ts.isExpressionStatement(node)) {
      const e = node.expression;
      const call = ts.isCallExpression(e) || ts.isNewExpression(e) ? e : null;
      // `.catch(…)` and `.then(onDone, onFailed)` handle the rejection: not floating.
      const callee = call && ts.isCallExpression(call) && ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : "";
      const handled = callee === "catch" || (callee === "then" && (call as ts.CallExpression).arguments.length >= 2);
      if (call && !handled && isPromiseLike(checker.getTypeAtLocation(e))) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${relative(root, file.fileName)}:${line + 1}: ${node.getText().split("\n")[0]!.slice(0, 120)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
if (found.length) {
  console.error(`${found.length} promise(s) neither awaited, returned nor marked void:\n${found.join("\n")}`);
  process.exit(1);
}
console.log("no floating promises in src/");
