/** `--name N` from the command line as a number, or `fallback` when absent (the benchmarks' sizes). */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** `--name VALUE` from the command line, or null when absent. */
export function argOf(name: string): string | null {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : null;
}
