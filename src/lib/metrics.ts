/**
 * A tiny Prometheus text-format registry (exposition format 0.0.4): counters, gauges and
 * histograms with typed label names. No dependency: the format is small and stable, and
 * `prom-client` pulls in Node-specific machinery we do not need.
 *
 * One registry per app context (`metricsFor(ctx)`), so tests that build several apps in one
 * process never see each other's numbers. A feature registers its metrics once, when its plugin
 * is built, and keeps the handles:
 *
 *   const deliveries = metricsFor(ctx).counter(
 *     "gatehouse_webhook_deliveries_total", "Webhook delivery attempts by outcome.", ["outcome"]);
 *   deliveries.inc({ outcome: "delivered" });
 *
 * Registering an existing name again with the same type returns the same metric (so building
 * a plugin twice is harmless); a different type throws. Names: `gatehouse_<feature>_<what>_<unit>`,
 * counters end in `_total`, durations are seconds.
 */
type LabelValues<L extends string> = [L] extends [never] ? Record<string, never> | undefined : Record<L, string | number>;

/** Default latency buckets in seconds: 1 ms … 10 s, dense where an API call usually lands. */
export const DEFAULT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}
function escapeHelp(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}
function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

abstract class Metric<L extends string> {
  protected readonly series = new Map<string, { labels: [string, string][] }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
  ) {
    if (!NAME_RE.test(name)) throw new Error(`invalid metric name ${name}`);
    for (const l of labelNames) if (!LABEL_RE.test(l) || l === "le") throw new Error(`invalid label name ${l} on ${name}`);
  }
  abstract readonly type: "counter" | "gauge" | "histogram";

  /**
   * Stable key of one label combination; also validates that exactly the declared labels are
   * given. Runs several times per HTTP request, so it allocates nothing but the key string.
   */
  protected key(labels: Record<string, string | number> | undefined): string {
    if (labels === undefined && this.labelNames.length === 0) return "";
    const given = labels ?? {};
    let key = "";
    for (let i = 0; i < this.labelNames.length; i++) {
      const v = given[this.labelNames[i]!];
      if (v === undefined) throw new Error(`metric ${this.name}: missing label ${this.labelNames[i]}`);
      key += i === 0 ? String(v) : `\u0000${v}`;
    }
    let count = 0;
    for (const _ in given) count++;
    if (count !== this.labelNames.length) throw new Error(`metric ${this.name}: labels must be exactly ${this.labelNames.join(", ") || "(none)"}`);
    return key;
  }

  /** The label pairs of a new series, in declaration order (only when a series is first seen). */
  protected pairs(labels: Record<string, string | number> | undefined): [string, string][] {
    return this.labelNames.map((n) => [n, String(labels![n])]);
  }

  protected static labelText(pairs: [string, string][], extra?: [string, string]): string {
    const all = extra ? [...pairs, extra] : pairs;
    if (all.length === 0) return "";
    return `{${all.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",")}}`;
  }

  header(): string[] {
    return [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`];
  }
  abstract lines(): string[];
}

export class Counter<L extends string = never> extends Metric<L> {
  readonly type = "counter" as const;
  private readonly values = new Map<string, { pairs: [string, string][]; value: number }>();
  inc(labels?: LabelValues<L>, by = 1): void {
    if (by < 0 || !Number.isFinite(by)) throw new Error(`counter ${this.name} can only increase`);
    const key = this.key(labels as Record<string, string> | undefined);
    const cur = this.values.get(key);
    if (cur) cur.value += by;
    else this.values.set(key, { pairs: this.pairs(labels as Record<string, string> | undefined), value: by });
  }
  /**
   * One label combination bound once, for a caller that counts it on every request: `inc` then
   * neither builds nor checks the key. The series appears at its first `inc`, as with `inc(labels)`.
   */
  bind(labels?: LabelValues<L>): { inc(by?: number): void } {
    const key = this.key(labels as Record<string, string> | undefined);
    let entry = this.values.get(key);
    return {
      inc: (by = 1) => {
        if (by < 0 || !Number.isFinite(by)) throw new Error(`counter ${this.name} can only increase`);
        if (!entry) this.values.set(key, (entry = this.values.get(key) ?? { pairs: this.pairs(labels as Record<string, string> | undefined), value: 0 }));
        entry.value += by;
      },
    };
  }
  /** Current value of one series (0 when never incremented); handy in tests. */
  get(labels?: LabelValues<L>): number {
    return this.values.get(this.key(labels as Record<string, string> | undefined))?.value ?? 0;
  }
  lines(): string[] {
    return [...this.values.values()].map((s) => `${this.name}${Metric.labelText(s.pairs)} ${formatValue(s.value)}`);
  }
}

export class Gauge<L extends string = never> extends Metric<L> {
  readonly type = "gauge" as const;
  private readonly values = new Map<string, { pairs: [string, string][]; value: number }>();
  set(labels: LabelValues<L>, value: number): void {
    this.add(labels, value, true);
  }
  inc(labels?: LabelValues<L>, by = 1): void {
    this.add(labels, by, false);
  }
  dec(labels?: LabelValues<L>, by = 1): void {
    this.add(labels, -by, false);
  }
  private add(labels: LabelValues<L> | undefined, value: number, replace: boolean): void {
    const key = this.key(labels as Record<string, string> | undefined);
    const cur = this.values.get(key);
    if (cur) cur.value = replace ? value : cur.value + value;
    else this.values.set(key, { pairs: this.pairs(labels as Record<string, string> | undefined), value });
  }
  get(labels?: LabelValues<L>): number {
    return this.values.get(this.key(labels as Record<string, string> | undefined))?.value ?? 0;
  }
  lines(): string[] {
    return [...this.values.values()].map((s) => `${this.name}${Metric.labelText(s.pairs)} ${formatValue(s.value)}`);
  }
}

type HistogramSeries = { pairs: [string, string][]; counts: number[]; sum: number; count: number };

export class Histogram<L extends string = never> extends Metric<L> {
  readonly type = "histogram" as const;
  private readonly values = new Map<string, HistogramSeries>();
  constructor(name: string, help: string, labelNames: readonly L[], readonly buckets: readonly number[] = DEFAULT_BUCKETS) {
    super(name, help, labelNames);
    for (let i = 1; i < buckets.length; i++) if (!(buckets[i]! > buckets[i - 1]!)) throw new Error(`histogram ${name}: buckets must increase`);
  }
  observe(labels: LabelValues<L>, value: number): void {
    this.record(this.entry(labels), value);
  }
  /** One label combination bound once (see `Counter.bind`); the series appears at its first `observe`. */
  bind(labels: LabelValues<L>): { observe(value: number): void } {
    let entry: HistogramSeries | undefined;
    return { observe: (value) => this.record((entry ??= this.entry(labels)), value) };
  }
  private entry(labels: LabelValues<L>): HistogramSeries {
    const key = this.key(labels as Record<string, string> | undefined);
    let s = this.values.get(key);
    if (!s) {
      s = { pairs: this.pairs(labels as Record<string, string> | undefined), counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.values.set(key, s);
    }
    return s;
  }
  private record(s: HistogramSeries, value: number): void {
    // Non-cumulative per bucket here; cumulated when rendered.
    for (let i = 0; i < this.buckets.length; i++)
      if (value <= this.buckets[i]!) {
        s.counts[i]!++;
        break;
      }
    s.sum += value;
    s.count++;
  }
  /** Number of observations of one series; handy in tests. */
  count(labels?: LabelValues<L>): number {
    return this.values.get(this.key(labels as Record<string, string> | undefined))?.count ?? 0;
  }
  lines(): string[] {
    const out: string[] = [];
    for (const s of this.values.values()) {
      let cumulative = 0;
      this.buckets.forEach((b, i) => {
        cumulative += s.counts[i]!;
        out.push(`${this.name}_bucket${Metric.labelText(s.pairs, ["le", formatValue(b)])} ${cumulative}`);
      });
      out.push(`${this.name}_bucket${Metric.labelText(s.pairs, ["le", "+Inf"])} ${s.count}`);
      out.push(`${this.name}_sum${Metric.labelText(s.pairs)} ${formatValue(s.sum)}`);
      out.push(`${this.name}_count${Metric.labelText(s.pairs)} ${s.count}`);
    }
    return out;
  }
}

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric<string>>();
  private readonly collectors: (() => void | Promise<void>)[] = [];

  counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return this.register(name, "counter", () => new Counter<L>(name, help, labelNames)) as Counter<L>;
  }
  gauge<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return this.register(name, "gauge", () => new Gauge<L>(name, help, labelNames)) as Gauge<L>;
  }
  histogram<L extends string = never>(name: string, help: string, labelNames: readonly L[] = [], buckets?: readonly number[]): Histogram<L> {
    return this.register(name, "histogram", () => new Histogram<L>(name, help, labelNames, buckets)) as Histogram<L>;
  }

  /**
   * Runs `fn` right before every scrape: the place to set gauges whose value is read from
   * somewhere else (memory, queue depth via a COUNT query, …). Keep it cheap; a query's is awaited
   * (the collectors run together).
   */
  onCollect(fn: () => void | Promise<void>): void {
    this.collectors.push(fn);
  }

  /** The whole registry in Prometheus text format. */
  async render(): Promise<string> {
    await Promise.all(this.collectors.map((c) => c()));
    const out: string[] = [];
    for (const m of this.metrics.values()) out.push(...m.header(), ...m.lines());
    return out.join("\n") + "\n";
  }

  private register(name: string, type: Metric<string>["type"], make: () => Metric<string>): Metric<string> {
    const existing = this.metrics.get(name);
    if (existing) {
      if (existing.type !== type) throw new Error(`metric ${name} is already registered as a ${existing.type}`);
      return existing;
    }
    const m = make();
    this.metrics.set(name, m);
    return m;
  }
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

// Keyed by the app context (any object here, so this module needs nothing above it).
const registries = new WeakMap<object, MetricsRegistry>();

/** The metrics registry of one app context (created on first use). */
export function metricsFor(ctx: object): MetricsRegistry {
  let r = registries.get(ctx);
  if (!r) {
    r = new MetricsRegistry();
    registries.set(ctx, r);
  }
  return r;
}
