/**
 * WDATA-5: how many upstream requests run at once on this instance: in all, and per integration (or source). A
 * request past a limit waits for a slot (its own deadline still runs from when it is sent).
 */
export class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }
}

export class UpstreamLimits {
  private readonly all: Slots;
  private readonly perKey = new Map<string, Slots>();

  constructor(private readonly limits: { concurrency: number; perIntegration: number }) {
    this.all = new Slots(limits.concurrency);
  }

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let slots = this.perKey.get(key);
    if (!slots) this.perKey.set(key, (slots = new Slots(this.limits.perIntegration)));
    const own = slots;
    return own.run(() => this.all.run(work)).finally(() => {
      if (own.idle && this.perKey.get(key) === own) this.perKey.delete(key);
    });
  }
}
