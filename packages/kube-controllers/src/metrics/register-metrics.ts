import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

/** One metric as a table row: its kind, Prometheus name, help text and label names. */
type MetricSpec =
  | {
      readonly kind: 'gauge' | 'counter';
      readonly name: string;
      readonly help: string;
      readonly labels?: readonly string[];
    }
  | {
      readonly kind: 'histogram';
      readonly name: string;
      readonly help: string;
      readonly labels?: readonly string[];
      readonly buckets: readonly number[];
    };

/** A controller's metrics, by the name its code uses. */
export type MetricTable = Readonly<Record<string, MetricSpec>>;

type LabelsOf<S extends MetricSpec> = S extends { readonly labels: readonly (infer L)[] }
  ? L & string
  : never;

/** The prom-client metric a row declares, typed by its labels. */
type MetricOf<S extends MetricSpec> = S['kind'] extends 'gauge'
  ? Gauge<LabelsOf<S>>
  : S['kind'] extends 'counter'
    ? Counter<LabelsOf<S>>
    : Histogram<LabelsOf<S>>;

/** The registered metrics of a table, by the same keys. */
export type RegisteredMetrics<T extends MetricTable> = { readonly [K in keyof T]: MetricOf<T[K]> };

/**
 * Registers every metric of `table` in `registry` and returns them by the table's keys. Throws
 * (prom-client's error) when a name is already registered there; metrics registered before the
 * clash stay registered.
 */
export function registerMetrics<T extends MetricTable>(
  registry: Registry,
  table: T,
): RegisteredMetrics<T> {
  const registers = [registry];
  const out: Record<string, Gauge | Counter | Histogram> = {};
  for (const [key, spec] of Object.entries(table)) {
    const base = { name: spec.name, help: spec.help, labelNames: spec.labels ?? [], registers };
    out[key] =
      spec.kind === 'histogram'
        ? new Histogram({ ...base, buckets: [...spec.buckets] })
        : spec.kind === 'gauge'
          ? new Gauge(base)
          : new Counter(base);
  }
  return out as RegisteredMetrics<T>;
}

/** Resets every metric of `metrics` (before a recompute sets them), so no stale series survives. */
export function resetMetrics(metrics: Readonly<Record<string, { reset(): void }>>): void {
  for (const m of Object.values(metrics)) m.reset();
}
