import { createHash } from "node:crypto";

/** What the public report shows: the run, its counts, and each case with its latest status. */
export type ReportData = {
  project: string;
  title: string;
  description: string;
  status: string;
  environment: string | null;
  started: string;
  ended: string | null;
  stats: Record<string, number>;
  cases: { title: string; status: string | null }[];
};

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1b1b1b}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #ddd}
.passed{color:#18794e}.failed,.invalid{color:#c62a2f}.blocked{color:#a35200}.untested,.skipped{color:#666}
@media (prefers-color-scheme:dark){body{background:#111;color:#eee}th,td{border-color:#333}}`;

/** The style's hash for the page's Content-Security-Policy (no other inline content is allowed). */
export const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

/** A read-only HTML page; every value from the database is escaped. */
export function renderReport(d: ReportData): string {
  const stat = (k: string) => `<tr><th>${escape(k.replace("_", " "))}</th><td>${d.stats[k] ?? 0}</td></tr>`;
  const rows = d.cases.map((c) => `<tr><td>${escape(c.title)}</td><td class="${escape(c.status ?? "untested")}">${escape(c.status ?? "untested")}</td></tr>`).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escape(d.title)} · ${escape(d.project)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escape(d.title)}</h1>
<p>Project ${escape(d.project)} · ${escape(d.status)}${d.environment ? ` · environment ${escape(d.environment)}` : ""} · started ${escape(d.started)}${d.ended ? ` · ended ${escape(d.ended)}` : ""}</p>
${d.description ? `<p>${escape(d.description)}</p>` : ""}
<h2>Results</h2>
<table>${["total", "passed", "failed", "blocked", "skipped", "invalid", "retest", "in_progress", "untested"].map(stat).join("")}</table>
<h2>Cases</h2>
<table><thead><tr><th>Case</th><th>Latest status</th></tr></thead><tbody>
${rows}
</tbody></table>
</body>
</html>
`;
}

export const NOT_FOUND_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><p>This report does not exist or is no longer public.</p></body></html>\n`;

/**
 * The page behind the run link every Qase reporter prints (`{host}/run/{CODE}/dashboard/{id}`).
 * Gatehouse has no dashboard and the link carries no credential, so the page reads nothing from
 * the database (it says nothing about whether the run exists) and tells how to see the run.
 */
export function renderRunLink(baseUrl: string, code: string, id: string): string {
  const c = escape(code.toUpperCase());
  const n = escape(id);
  const api = `${escape(baseUrl)}/api/v1/run/${c}/${n}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test run ${n} · ${c}</title></head>
<body>
<h1>Test run ${n} of project ${c}</h1>
<p>This is the link your Qase reporter printed. Gatehouse serves the Qase API, not Qase's web dashboard, so there is no page for the run here.</p>
<ul>
<li>Read it with an API token: <code>GET ${api}</code> with the header <code>Token: &lt;your token&gt;</code> (its results: <code>GET ${escape(baseUrl)}/api/v1/result/${c}?run=${n}</code>).</li>
<li>Share it as a read-only page: <code>PATCH ${api}/public</code> with <code>{"status": true}</code> answers the address of its public report. Reporters print that address themselves with <code>QASE_TESTOPS_SHOW_PUBLIC_REPORT_LINK=true</code>.</li>
</ul>
</body></html>
`;
}
