/**
 * PAGE-7, PAGE-13: the scripts the board page loads only when a board needs them (the markdown renderer, the live
 * views), by URLs carrying their content hash, so a browser keeps them (immutable for a year) like the page's own
 * script. `npm run generate` builds those scripts first and writes their URLs into board.js and proposal.js (esbuild
 * `define`); a build without them (a unit test) asks the plain URLs, which are revalidated by their ETag.
 */
declare const TESSERA_MARKDOWN_SCRIPT: string | undefined;
declare const TESSERA_LIVE_SCRIPT: string | undefined;

export const markdownScriptUrl = typeof TESSERA_MARKDOWN_SCRIPT === 'string' ? TESSERA_MARKDOWN_SCRIPT : '/assets/markdown.js';
export const liveScriptUrl = typeof TESSERA_LIVE_SCRIPT === 'string' ? TESSERA_LIVE_SCRIPT : '/assets/live.js';

/** Loads the instance's script at `url` once (a failed load is tried again by the next call). */
const loads = new Map<string, Promise<void>>();
export function loadScript(url: string): Promise<void> {
  let loading = loads.get(url);
  if (!loading) {
    loading = new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = url;
      script.addEventListener('load', () => resolve());
      script.addEventListener('error', () => {
        loads.delete(url);
        script.remove();
        reject(new Error(`${url} did not load`));
      });
      document.head.append(script);
    });
    loads.set(url, loading);
  }
  return loading;
}

/**
 * PAGE-13: runs `then` once the page has painted what is drawn now: in the frame after the next one (the first
 * animation frame comes before that paint). A hidden page paints nothing: then at once.
 */
export function afterFirstPaint(then: () => void): void {
  if (document.hidden) then();
  else requestAnimationFrame(() => requestAnimationFrame(then));
}
