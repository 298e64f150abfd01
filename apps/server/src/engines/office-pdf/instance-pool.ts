// The warm LibreOffice instances: at most one per job slot, since a conversion runs in a slot
// (cpu-slots.ts) and takes one instance for itself. An instance is started on first need and kept warm
// for the next conversion, and ended after `recycleAfter` conversions (LibreOffice's memory creeps up as
// it converts), after any failure (a document that made it fail may have left it in any state), after a
// document that left something in it (fonts it carried), and after `idleMs` without work, so an idle
// server gives its memory back. An instance answers before it has finished with a document (it closes
// it while the caller takes the PDF away): it is handed the next once it has.
import type { EngineLog } from '../types.js';

export interface PooledInstance {
  readonly alive: boolean;
  /** Documents it converted. */
  conversions: number;
  /** It holds something of a document it converted, and must end before the next. */
  readonly tainted: boolean;
  /**
   * Resolves once it finished with the last document (it answers before it has) and can take the next,
   * or is no longer `alive`; within `timeoutMs`, or it is ended.
   */
  settled(timeoutMs: number): Promise<void>;
  /** Ends it and removes what it kept on disk. */
  close(): Promise<void>;
}

export interface InstancePoolOptions<I extends PooledInstance> {
  recycleAfter: number;
  idleMs: number;
  /** How long an instance may take to finish with a document after answering. */
  settleMs: number;
  start(): Promise<I>;
  log: EngineLog;
}

export class InstancePool<I extends PooledInstance> {
  readonly #o: InstancePoolOptions<I>;
  readonly #idle: I[] = [];
  readonly #timers = new Map<I, NodeJS.Timeout>();
  readonly #closing = new Set<Promise<void>>();
  #closed = false;

  constructor(options: InstancePoolOptions<I>) {
    this.#o = options;
  }

  /** Runs `task` on an idle instance, or on one started for it; the caller holds a job slot. */
  async run<T>(task: (instance: I) => Promise<T>): Promise<T> {
    const instance = await this.#take();
    try {
      const result = await task(instance);
      instance.conversions += 1;
      if (instance.tainted || instance.conversions >= this.#o.recycleAfter) {
        this.#o.log.info('LibreOffice recycled', {
          conversions: instance.conversions,
          tainted: instance.tainted,
        });
        this.#end(instance);
      } else this.#keep(instance);
      return result;
    } catch (error) {
      this.#end(instance);
      throw error;
    }
  }

  /** Ends every instance, idle or ending (server shutdown, tests); conversions running get killed too. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const instance of this.#idle.splice(0)) this.#end(instance);
    await Promise.all(this.#closing);
  }

  /**
   * A new instance, once those ending are gone: the slot a recycled instance held is free as soon as
   * its conversion is, and starting the next beside it while it ends would run one more LibreOffice
   * than the slots (a crowd of three users saw three on two slots). Ending is a kill: milliseconds.
   */
  async #startNew(): Promise<I> {
    await Promise.all(this.#closing);
    return this.#o.start();
  }

  /**
   * An idle instance once it finished with its last document, or a new one. An instance that died
   * meanwhile is no conversion's failure: the next one gets another.
   */
  async #take(): Promise<I> {
    for (let instance = this.#takeIdle(); instance !== undefined; instance = this.#takeIdle()) {
      await instance.settled(this.#o.settleMs);
      if (instance.alive) return instance;
      this.#o.log.warn('LibreOffice died closing a document', { conversions: instance.conversions });
      this.#end(instance);
    }
    return this.#startNew();
  }

  #takeIdle(): I | undefined {
    for (let instance = this.#idle.pop(); instance !== undefined; instance = this.#idle.pop()) {
      clearTimeout(this.#timers.get(instance));
      this.#timers.delete(instance);
      if (instance.alive) return instance;
      this.#o.log.warn('LibreOffice died while idle', { conversions: instance.conversions });
      this.#end(instance);
    }
    return undefined;
  }

  #keep(instance: I): void {
    if (this.#closed || !instance.alive) {
      this.#end(instance);
      return;
    }
    this.#idle.push(instance);
    const timer = setTimeout(() => {
      const index = this.#idle.indexOf(instance);
      if (index === -1) return;
      this.#idle.splice(index, 1);
      this.#timers.delete(instance);
      this.#end(instance);
    }, this.#o.idleMs);
    // An idle instance never keeps the process alive on its own.
    timer.unref();
    this.#timers.set(instance, timer);
  }

  #end(instance: I): void {
    const closing = instance
      .close()
      .catch((error: unknown) =>
        this.#o.log.warn('LibreOffice did not end cleanly', { error: String(error) }),
      )
      .finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }
}
