import { expect, test } from "bun:test";
import { parseCommandLine } from "../../src/cli/args";

const ok = (argv: string[]) => {
  const r = parseCommandLine(argv);
  if (!r.ok) throw new Error(r.error);
  return r.command;
};
const error = (argv: string[]) => {
  const r = parseCommandLine(argv);
  if (r.ok) throw new Error(`expected an error for ${argv.join(" ")}`);
  return r.error;
};

test("serve is the default command; --env-file goes anywhere", () => {
  expect(ok([])).toEqual({ name: "serve", envFile: null });
  expect(ok(["--env-file", "a.env"])).toEqual({ name: "serve", envFile: "a.env" });
  expect(ok(["serve", "--env-file=a.env"])).toEqual({ name: "serve", envFile: "a.env" });
  expect(ok(["--env-file", "a.env", "migrate"])).toEqual({ name: "migrate", envFile: "a.env" });
});

test("backup takes exactly one target", () => {
  expect(ok(["backup", "/tmp/x.db"])).toEqual({ name: "backup", envFile: null, target: "/tmp/x.db" });
  expect(error(["backup"])).toContain("backup needs a target file");
  expect(error(["backup", "a", "b"])).toContain("unexpected argument b");
  expect(error(["backup", "--force"])).toContain("unknown option --force");
});

test("version and help have flag forms", () => {
  for (const v of ["version", "--version", "-v"]) expect(ok([v])).toEqual({ name: "version" });
  for (const h of ["help", "--help", "-h"]) expect(ok([h])).toEqual({ name: "help" });
});

test("scim-token passes its own arguments through", () => {
  expect(ok(["scim-token", "create", "--name", "entra", "--env-file", "x.env"])).toEqual({ name: "scim-token", envFile: "x.env", args: ["create", "--name", "entra"] });
});

test("unknown commands, options and stray arguments are errors", () => {
  expect(error(["start"])).toBe("unknown command start");
  expect(error(["--port", "80"])).toBe("unknown option --port");
  expect(error(["serve", "--verbose"])).toBe("unknown option --verbose for serve");
  expect(error(["migrate", "now"])).toBe("unexpected argument now for migrate");
  expect(error(["--env-file"])).toBe("--env-file needs a file name");
  expect(error(["--env-file", "a", "--env-file", "b"])).toBe("--env-file given twice");
});
