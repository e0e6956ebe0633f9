/**
 * What the event streams of discovery's sources share (DISC-32, DISC-26): a stream read line by line with a bound on
 * each line, the wording of one change (`container jellyfin started`, `ingress media/jellyfin added`), and the
 * reconnecting loop: a stream that fails or ends is opened again after 5 s, doubled while it keeps failing, at most a
 * minute, until `stop()`.
 */
import type { Readable } from 'node:stream';

/** DISC-32, DISC-27: a line of a stream longer than this is dropped unread (an event is a few hundred bytes to a few KiB). */
export const maxLineBytes = 256 * 1024;
/** DISC-32, DISC-27: how long a lost stream waits before it reconnects: 5 s, doubled after each failure up to a minute. */
export const reconnectMs = { first: 5_000, most: 60_000 };

const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/g;

/** DISC-32, DISC-26: one change as the history message says it: `<type> <name> <verb>`, names cleaned and cut. */
export function describeChange(type: string, name: string, verb: string): string {
  const clean = (text: string, max: number) => text.replace(controlCharacters, '').slice(0, max);
  return `${type} ${clean(name, 64 + 1 + 253) || '?'} ${clean(verb, 32) || 'changed'}`;
}

/** DISC-32, DISC-27: hands each non-empty line of `stream` to `onLine`; a line longer than `maxLineBytes` is dropped. */
export function readLines(stream: Readable, onLine: (line: string) => void): void {
  let buffered = '';
  let dropping = false;
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (dropping) dropping = false;
      else if (line.trim() !== '') onLine(line);
    }
    if (buffered.length > maxLineBytes) {
      buffered = '';
      dropping = true;
    }
  });
}

/** What one connection attempt reports; whatever it reports after it was lost or stopped is not heard. */
export interface Attempt {
  /** The stream answered and is open: the next failure waits 5 s again. */
  opened(): void;
  /** The stream failed or ended: `error` is told, and it reconnects after the delay (`now`: at once). */
  lost(error: Error, now?: boolean): void;
  /** There is nothing to watch (DISC-27: the kind is not served): no reconnect. */
  finished(): void;
  /** False once this attempt is lost or the stream stopped. */
  readonly current: boolean;
}

/**
 * DISC-32, DISC-27: opens a stream with `connect` (which answers how to abort that attempt) until `stop()`, reconnecting
 * as the header says. `ready` settles once the first attempt answered (opened, failed or finished).
 */
export function reconnecting(connect: (attempt: Attempt) => () => void, onError: (error: Error) => void): { stop(): void; ready: Promise<void> } {
  let stopped = false;
  let serial = 0;
  let abort: (() => void) | null = null;
  let retry: NodeJS.Timeout | null = null;
  let delay = reconnectMs.first;
  let settle: () => void = () => {};
  const ready = new Promise<void>((resolve) => (settle = resolve));

  const start = () => {
    if (stopped) return;
    const id = ++serial;
    const isCurrent = () => !stopped && id === serial;
    const end = () => {
      serial++;
      const aborting = abort;
      abort = null;
      aborting?.();
    };
    const attempt: Attempt = {
      opened: () => {
        settle();
        if (isCurrent()) delay = reconnectMs.first;
      },
      lost: (error, now = false) => {
        settle();
        if (!isCurrent()) return;
        end();
        onError(error);
        retry = setTimeout(
          () => {
            retry = null;
            start();
          },
          now ? 0 : delay,
        );
        retry.unref();
        if (!now) delay = Math.min(delay * 2, reconnectMs.most);
      },
      finished: () => {
        settle();
        if (isCurrent()) end();
      },
      get current() {
        return isCurrent();
      },
    };
    const aborting = connect(attempt);
    if (isCurrent()) abort = aborting;
    else aborting();
  };

  start();
  return {
    ready,
    stop() {
      stopped = true;
      settle();
      if (retry) clearTimeout(retry);
      retry = null;
      const aborting = abort;
      abort = null;
      aborting?.();
    },
  };
}
