/**
 * PAGE-11: an app's name wraps at spaces (board.css); a word too wide for its tile makes the name smaller, down to
 * three quarters of its size, and only then is broken inside the word. Measured whenever an app tile gets its size
 * (first drawn, a section opened, the window resized), after layout and before paint, by one ResizeObserver: all the
 * resized tiles are read, then written, so it costs one more layout however many tiles changed.
 */
const smallest = 0.75;

function fit(tiles: HTMLElement[]): void {
  const names = tiles.map((tile) => tile.querySelector<HTMLElement>('.app-name')).filter((name): name is HTMLElement => name !== null);
  // Only names fitted before are reset (a write makes the browser lay the page out again before the reads).
  for (const name of names) {
    if (name.style.fontSize === '') continue;
    name.style.fontSize = '';
    name.classList.remove('break-word');
  }
  const over = names.filter((name) => name.scrollWidth > name.clientWidth && name.clientWidth > 0);
  const sizes = over.map((name) => ({ name, ratio: name.clientWidth / name.scrollWidth, size: parseFloat(getComputedStyle(name).fontSize) }));
  for (const { name, ratio, size } of sizes) {
    name.style.fontSize = `${(size * Math.max(ratio * 0.98, smallest)).toFixed(2)}px`;
    if (ratio * 0.98 < smallest) name.classList.add('break-word');
  }
}

let observer: ResizeObserver | null = null;

/** Fits the names of the app tiles under `root` now and whenever their size changes. */
export function fitAppNames(root: ParentNode): void {
  observer ??= new ResizeObserver((entries) => fit(entries.map((entry) => entry.target as HTMLElement).filter((tile) => tile.isConnected)));
  for (const tile of Array.from(root.querySelectorAll<HTMLElement>('.tile.widget-app'))) observer.observe(tile);
}
