/** Every stderr line parsed as JSON (a line that is not JSON fails the test); their messages joined. */
export function jsonLines(stderr: string): { lines: Record<string, unknown>[]; text: string } {
  const lines = stderr.split("\n").filter(Boolean).map((l) => {
    try {
      return JSON.parse(l) as Record<string, unknown>;
    } catch {
      throw new Error(`stderr line is not JSON: ${l}`);
    }
  });
  return { lines, text: lines.map((l) => String(l.msg)).join("\n") };
}
