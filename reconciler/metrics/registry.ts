/** Counters and gauges, rendered in the Prometheus text exposition format (version 0.0.4). */
export type MetricType = "counter" | "gauge";

export class Metric {
  value = 0;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: MetricType,
  ) {}

  inc(by = 1): void {
    if (by < 0) throw new Error(`${this.name}: a counter never goes down`);
    this.value += by;
  }

  set(value: number): void {
    if (this.type === "counter") throw new Error(`${this.name}: set() is for gauges`);
    this.value = value;
  }
}

/** A gauge of value 1 whose labels say something (Prometheus' `_info` convention): `name{revision="…"} 1`. */
export class InfoMetric {
  private labels: Record<string, string> | undefined;
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  set(labels: Record<string, string>): void {
    this.labels = labels;
  }

  render(): string {
    if (this.labels === undefined) return "";
    return `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} gauge\n${this.name}{${labelText(this.labels)}} 1\n`;
  }
}

/** A counter per combination of label values: `name{state="success",result="posted"} 3`. */
export class LabeledCounter {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Record<string, string>, by = 1): void {
    const key = labelText(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  render(): string {
    if (this.values.size === 0) return "";
    const lines = [...this.values].map(([labels, value]) => `${this.name}{${labels}} ${value}\n`).join("");
    return `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} counter\n${lines}`;
  }
}

const labelText = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([label, value]) => `${label}="${escapeLabel(value)}"`)
    .join(",");

/** A gauge with one label, one series per label value: `name{group="web"} 1`. A value once set stays listed (0 when over), so a graph ends at 0. */
export class LabeledGauge {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly label: string,
  ) {}

  set(labelValue: string, value: number): void {
    this.values.set(labelValue, value);
  }

  render(): string {
    const series = [...this.values]
      .map(([labelValue, value]) => `${this.name}{${this.label}="${escapeLabel(labelValue)}"} ${formatValue(value)}\n`)
      .join("");
    return `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} gauge\n${series}`;
  }
}

export class Registry {
  private readonly metrics: Metric[] = [];
  private readonly infos: InfoMetric[] = [];
  private readonly labeled: (LabeledCounter | LabeledGauge)[] = [];

  labeledCounter(name: string, help: string): LabeledCounter {
    return this.addLabeled(new LabeledCounter(name, help));
  }

  labeledGauge(name: string, help: string, label: string): LabeledGauge {
    return this.addLabeled(new LabeledGauge(name, help, label));
  }

  private addLabeled<M extends LabeledCounter | LabeledGauge>(metric: M): M {
    this.labeled.push(metric);
    return metric;
  }

  info(name: string, help: string): InfoMetric {
    const metric = new InfoMetric(name, help);
    this.infos.push(metric);
    return metric;
  }

  counter(name: string, help: string): Metric {
    return this.add(new Metric(name, help, "counter"));
  }

  gauge(name: string, help: string): Metric {
    return this.add(new Metric(name, help, "gauge"));
  }

  render(): string {
    return (
      this.metrics
        .map((m) => `# HELP ${m.name} ${escapeHelp(m.help)}\n# TYPE ${m.name} ${m.type}\n${m.name} ${formatValue(m.value)}\n`)
        .join("") +
      this.labeled.map((m) => m.render()).join("") +
      this.infos.map((m) => m.render()).join("")
    );
  }

  private add(metric: Metric): Metric {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric.name)) throw new Error(`invalid metric name ${metric.name}`);
    this.metrics.push(metric);
    return metric;
  }
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const escapeLabel = (text: string): string => text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

const escapeHelp = (text: string): string => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

const formatValue = (value: number): string =>
  Number.isNaN(value) ? "NaN" : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value);
