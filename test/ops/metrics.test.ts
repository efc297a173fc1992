import { expect, test } from "bun:test";
import { MetricsRegistry } from "../../src/lib/metrics";

test("counters render in Prometheus text format with escaped labels", async () => {
  const r = new MetricsRegistry();
  const c = r.counter("gatehouse_things_total", "Things.\nSecond line", ["kind"]);
  c.inc({ kind: "a" });
  c.inc({ kind: "a" }, 2);
  c.inc({ kind: 'we"ird\\\n' });
  expect(await r.render()).toBe(
    [
      "# HELP gatehouse_things_total Things.\\nSecond line",
      "# TYPE gatehouse_things_total counter",
      'gatehouse_things_total{kind="a"} 3',
      'gatehouse_things_total{kind="we\\"ird\\\\\\n"} 1',
      "",
    ].join("\n"),
  );
  expect(c.get({ kind: "a" })).toBe(3);
  expect(() => c.inc({ kind: "a" }, -1)).toThrow();
});

test("histograms are cumulative with +Inf, _sum and _count", async () => {
  const r = new MetricsRegistry();
  const h = r.histogram("gatehouse_wait_seconds", "Wait.", ["op"], [0.1, 1]);
  h.observe({ op: "x" }, 0.05);
  h.observe({ op: "x" }, 0.5);
  h.observe({ op: "x" }, 5);
  expect(await r.render()).toContain(
    [
      'gatehouse_wait_seconds_bucket{op="x",le="0.1"} 1',
      'gatehouse_wait_seconds_bucket{op="x",le="1"} 2',
      'gatehouse_wait_seconds_bucket{op="x",le="+Inf"} 3',
      'gatehouse_wait_seconds_sum{op="x"} 5.55',
      'gatehouse_wait_seconds_count{op="x"} 3',
    ].join("\n"),
  );
  expect(h.count({ op: "x" })).toBe(3);
});

test("gauges, collectors and unlabelled metrics", async () => {
  const r = new MetricsRegistry();
  const g = r.gauge("gatehouse_queue_depth", "Depth.");
  let depth = 0;
  r.onCollect(() => g.set(undefined, depth));
  depth = 7;
  expect(await r.render()).toContain("gatehouse_queue_depth 7\n");
  g.inc();
  expect(g.get()).toBe(8);
});

test("registering twice returns the same metric; a different type or bad labels throw", () => {
  const r = new MetricsRegistry();
  const a = r.counter("gatehouse_x_total", "X.", ["k"]);
  expect(r.counter("gatehouse_x_total", "X.", ["k"])).toBe(a);
  expect(() => r.gauge("gatehouse_x_total", "X.")).toThrow("already registered as a counter");
  expect(() => a.inc({} as { k: string })).toThrow("missing label k");
  expect(() => a.inc({ k: "1", extra: "2" } as { k: string })).toThrow("labels must be exactly k");
  expect(() => r.counter("bad-name", "B.")).toThrow();
  expect(() => r.histogram("gatehouse_h", "H.", ["le"])).toThrow();
});

test("a bound series counts into the same series as inc/observe with its labels, and appears only once used", async () => {
  const r = new MetricsRegistry();
  const c = r.counter("gatehouse_bound_total", "Bound.", ["route"]);
  const h = r.histogram("gatehouse_bound_seconds", "Bound.", ["route"], [0.1, 1]);
  const counted = c.bind({ route: "/a" });
  const timed = h.bind({ route: "/a" });
  expect(await r.render()).not.toContain('route="/a"');
  counted.inc();
  c.inc({ route: "/a" }, 2);
  counted.inc(3);
  timed.observe(0.05);
  h.observe({ route: "/a" }, 0.5);
  expect(c.get({ route: "/a" })).toBe(6);
  expect(h.count({ route: "/a" })).toBe(2);
  expect(await r.render()).toContain('gatehouse_bound_total{route="/a"} 6\n');
  expect(await r.render()).toContain('gatehouse_bound_seconds_bucket{route="/a",le="0.1"} 1\ngatehouse_bound_seconds_bucket{route="/a",le="1"} 2\n');
  expect(() => counted.inc(-1)).toThrow("can only increase");
  expect(() => c.bind({} as { route: string })).toThrow("missing label route");
});
