/**
 * Downloads of an append-only log (the audit log, the provisioning log): the whole filtered log,
 * oldest first, as CSV (RFC 4180, a header row) or NDJSON (one entry per line). Rows are read in
 * batches of 500 keyed by id, so a long export neither holds a read transaction open nor skips
 * or repeats a row written meanwhile.
 */
export type LogExportFormat = "csv" | "ndjson";

const BATCH = 500;

/** One CSV field (RFC 4180), with a leading = + - @ neutralised so a spreadsheet never runs it as a formula. */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s) && typeof value === "string") s = "'" + s;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export type LogExport<Row extends { id: number }> = {
  format: LogExportFormat;
  /** `gatehouse-<name>-<day>.<format>` */
  name: string;
  columns: readonly string[];
  /** Up to `limit` rows with an id above `afterId`, by id ascending. */
  rowsAfter(afterId: number, limit: number): Promise<Row[]>;
  /** A row's CSV cells, in `columns`' order. */
  cells(row: Row): (string | number | null)[];
  /** A row as its NDJSON entry (the shape the list endpoint answers). */
  entry(row: Row): unknown;
};

/** The download response; the caller validates its filters before calling, so errors answer before the stream starts. */
export function logExportResponse<Row extends { id: number }>(log: LogExport<Row>): Response {
  const encoder = new TextEncoder();
  const line = log.format === "csv" ? (r: Row) => log.cells(r).map(csvField).join(",") + "\r\n" : (r: Row) => JSON.stringify(log.entry(r)) + "\n";
  let afterId = 0;
  let headerSent = log.format !== "csv";
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(log.columns.join(",") + "\r\n"));
        return;
      }
      const rows = await log.rowsAfter(afterId, BATCH);
      if (rows.length === 0) return controller.close();
      afterId = rows[rows.length - 1]!.id;
      controller.enqueue(encoder.encode(rows.map(line).join("")));
    },
  });
  const day = new Date().toISOString().slice(0, 10);
  return new Response(stream, {
    headers: {
      "content-type": log.format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="gatehouse-${log.name}-${day}.${log.format}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
